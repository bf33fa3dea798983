//! Warp operations in the simulator: the lanes named by a mask meet, exchange their values,
//! and each gets its result. Values travel as raw bits (`u64`).

use super::Loc;

/// Which warp operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOpKind {
    /// `shfl_sync(mask, v, src_lane)`
    ShflIdx(u32),
    /// `shfl_up_sync(mask, v, delta)`
    ShflUp(u32),
    /// `shfl_down_sync(mask, v, delta)`
    ShflDown(u32),
    /// `shfl_xor_sync(mask, v, lane_mask)`
    ShflXor(u32),
    /// `ballot_sync(mask, p)`
    Ballot,
    /// `all_sync(mask, p)`
    All,
    /// `any_sync(mask, p)`
    Any,
    /// `match_any_sync(mask, v)`
    MatchAny,
    /// `sync_warp(mask)`
    Sync,
    /// `activemask()`: the lanes that reach it together.
    ActiveMask,
    /// `__redux_*_sync(mask, v)`: a reduction of 32-bit integers (`redux.sync`).
    Redux(ReduxOp),
}

/// The operation of a `redux.sync` reduction over the low 32 bits of the lanes' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    /// The wrapping sum (the same bits for `i32` and `u32`).
    Add,
    /// The smallest, as `i32`.
    MinI32,
    /// The largest, as `i32`.
    MaxI32,
    /// The smallest, as `u32`.
    MinU32,
    /// The largest, as `u32`.
    MaxU32,
}

impl ReduxOp {
    /// `a` combined with `b` (both the low 32 bits of a value).
    fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            ReduxOp::Add => a.wrapping_add(b),
            ReduxOp::MinI32 => (a as i32).min(b as i32) as u32,
            ReduxOp::MaxI32 => (a as i32).max(b as i32) as u32,
            ReduxOp::MinU32 => a.min(b),
            ReduxOp::MaxU32 => a.max(b),
        }
    }
}

/// One lane's part in a warp operation.
#[derive(Clone, Copy, Debug)]
pub struct WarpOp {
    /// What it is.
    pub kind: WarpOpKind,
    /// The lanes taking part (ignored by `ActiveMask`).
    pub mask: u32,
    /// This lane's value (predicates are 0 or 1).
    pub value: u64,
    /// Where in the source.
    pub loc: &'static Loc,
}

impl WarpOpKind {
    /// Whether two lanes' operations are the same operation (shuffles may differ in their
    /// lane argument, which is per lane).
    pub(crate) fn same_op(self, other: WarpOpKind) -> bool {
        match (self, other) {
            (WarpOpKind::Redux(a), WarpOpKind::Redux(b)) => a == b,
            _ => std::mem::discriminant(&self) == std::mem::discriminant(&other),
        }
    }

    /// The name as users write it, for messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            WarpOpKind::ShflIdx(_) => "shfl_sync",
            WarpOpKind::ShflUp(_) => "shfl_up_sync",
            WarpOpKind::ShflDown(_) => "shfl_down_sync",
            WarpOpKind::ShflXor(_) => "shfl_xor_sync",
            WarpOpKind::Ballot => "ballot_sync",
            WarpOpKind::All => "all_sync",
            WarpOpKind::Any => "any_sync",
            WarpOpKind::MatchAny => "match_any_sync",
            WarpOpKind::Sync => "sync_warp",
            WarpOpKind::ActiveMask => "activemask",
            WarpOpKind::Redux(ReduxOp::Add) => "__redux_add_sync",
            WarpOpKind::Redux(ReduxOp::MinI32 | ReduxOp::MinU32) => "__redux_min_sync",
            WarpOpKind::Redux(ReduxOp::MaxI32 | ReduxOp::MaxU32) => "__redux_max_sync",
        }
    }
}

/// Computes every participating lane's result. `ops[lane]` is the lane's operation (all
/// lanes of `mask` take part). Returns the results by lane, or a message when a shuffle reads
/// a lane outside the mask.
pub(crate) fn resolve(ops: &[Option<WarpOp>; 32], mask: u32) -> Result<[u64; 32], String> {
    let mut out = [0u64; 32];
    let pred_mask = |f: &dyn Fn(u64) -> bool| -> u32 {
        (0..32u32)
            .filter(|&l| mask & (1 << l) != 0 && ops[l as usize].is_some_and(|o| f(o.value)))
            .fold(0, |m, l| m | 1 << l)
    };
    for lane in 0..32u32 {
        if mask & (1 << lane) == 0 {
            continue;
        }
        let op = ops[lane as usize].expect("every lane of the mask is present");
        let read = |src: u32| -> Result<u64, String> {
            if mask & (1 << src) == 0 {
                return Err(format!(
                    "{} in lane {lane} reads lane {src}, which is not in the mask {mask:#010x}",
                    op.kind.name()
                ));
            }
            Ok(ops[src as usize].expect("in mask").value)
        };
        out[lane as usize] = match op.kind {
            WarpOpKind::ShflIdx(src) => read(src % 32)?,
            WarpOpKind::ShflUp(d) => {
                if lane >= d {
                    read(lane - d)?
                } else {
                    op.value
                }
            }
            WarpOpKind::ShflDown(d) => match lane.checked_add(d).filter(|&s| s < 32) {
                Some(s) => read(s)?,
                None => op.value,
            },
            WarpOpKind::ShflXor(m) => {
                let src = lane ^ m;
                if src < 32 {
                    read(src)?
                } else {
                    op.value
                }
            }
            WarpOpKind::Ballot => pred_mask(&|v| v != 0) as u64,
            WarpOpKind::All => (pred_mask(&|v| v != 0) == mask) as u64,
            WarpOpKind::Any => (pred_mask(&|v| v != 0) != 0) as u64,
            WarpOpKind::MatchAny => pred_mask(&|v| v == op.value) as u64,
            WarpOpKind::Sync => 0,
            WarpOpKind::ActiveMask => mask as u64,
            WarpOpKind::Redux(r) => (0..32u32)
                .filter(|&l| mask & (1 << l) != 0)
                .map(|l| ops[l as usize].expect("in mask").value as u32)
                .reduce(|a, b| r.apply(a, b))
                .expect("the calling lane is in the mask")
                as u64,
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    static LOC: Loc = Loc {
        file: "t.rs",
        line: 1,
        column: 1,
    };

    fn ops(kind: impl Fn(u32) -> WarpOpKind, value: impl Fn(u32) -> u64) -> [Option<WarpOp>; 32] {
        std::array::from_fn(|l| {
            Some(WarpOp {
                kind: kind(l as u32),
                mask: u32::MAX,
                value: value(l as u32),
                loc: &LOC,
            })
        })
    }

    #[test]
    fn shuffles_follow_cuda() {
        let down = resolve(
            &ops(|_| WarpOpKind::ShflDown(3), |l| l as u64 * 10),
            u32::MAX,
        )
        .unwrap();
        assert_eq!(down[0], 30);
        assert_eq!(down[30], 300, "past the end keeps its own value");
        let up = resolve(&ops(|_| WarpOpKind::ShflUp(2), |l| l as u64), u32::MAX).unwrap();
        assert_eq!((up[0], up[1], up[5]), (0, 1, 3));
        let xor = resolve(&ops(|_| WarpOpKind::ShflXor(1), |l| l as u64), u32::MAX).unwrap();
        assert_eq!((xor[0], xor[1], xor[6]), (1, 0, 7));
        let idx = resolve(
            &ops(|l| WarpOpKind::ShflIdx(31 - l), |l| l as u64),
            u32::MAX,
        )
        .unwrap();
        assert_eq!((idx[0], idx[31]), (31, 0));
    }

    #[test]
    fn votes_and_match() {
        let ballot = resolve(&ops(|_| WarpOpKind::Ballot, |l| (l % 2) as u64), u32::MAX).unwrap();
        assert_eq!(ballot[0], 0xaaaa_aaaa);
        let all = resolve(&ops(|_| WarpOpKind::All, |_| 1), u32::MAX).unwrap();
        assert_eq!(all[7], 1);
        let m = resolve(
            &ops(|_| WarpOpKind::MatchAny, |l| (l / 16) as u64),
            u32::MAX,
        )
        .unwrap();
        assert_eq!((m[0], m[20]), (0x0000_ffff, 0xffff_0000));
    }

    #[test]
    fn redux_combines_the_lanes_of_the_mask_as_32_bit_integers() {
        let v = |l: u32| (l as i32 - 16) as u32 as u64;
        let sum = resolve(&ops(|_| WarpOpKind::Redux(ReduxOp::Add), v), u32::MAX).unwrap();
        assert_eq!(sum[3], (-16i32) as u32 as u64);
        let mask = 0x0000_ff0f;
        let mut o = ops(|_| WarpOpKind::Redux(ReduxOp::MinI32), v);
        for (l, op) in o.iter_mut().enumerate() {
            if mask & (1 << l) == 0 {
                *op = None;
            }
        }
        let min = resolve(&o, mask).unwrap();
        assert_eq!(
            (min[0], min[15]),
            ((-16i32) as u32 as u64, (-16i32) as u32 as u64)
        );
        let umin = resolve(&ops(|_| WarpOpKind::Redux(ReduxOp::MinU32), v), u32::MAX).unwrap();
        assert_eq!(umin[9], 0, "as u32, lane 16's 0 is the smallest");
        let max = resolve(&ops(|_| WarpOpKind::Redux(ReduxOp::MaxI32), v), u32::MAX).unwrap();
        assert_eq!(max[0], 15);
        let umax = resolve(&ops(|_| WarpOpKind::Redux(ReduxOp::MaxU32), v), u32::MAX).unwrap();
        assert_eq!(umax[0], (-1i32) as u32 as u64);
    }

    #[test]
    fn reading_outside_the_mask_is_reported() {
        let mut o = ops(|_| WarpOpKind::ShflDown(1), |l| l as u64);
        o[1] = None;
        let e = resolve(&o, 0b1).unwrap_err();
        assert!(e.contains("reads lane 1, which is not in the mask"), "{e}");
    }
}
