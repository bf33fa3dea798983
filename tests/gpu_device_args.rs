//! Device-function arguments that the other tests do not reach: `&mut` references to struct
//! fields (of a local and of a slice element) and slices of dynamic shared memory (whole and
//! sub-slices), against the CPU (on a GPU host, the GPU and the simulator each).

use cuprum::prelude::*;

/// A point whose fields device functions update through `&mut`.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Pt {
    pub x: f32,
    pub y: f32,
}

/// Adds `by` to the place `v` refers to.
#[device]
pub fn bump(v: &mut f32, by: f32) {
    *v += by;
}

/// `out[i]` from a local point whose fields are bumped through `&mut p.x` / `&mut p.y`;
/// `ps[i]`'s fields are bumped in place through `&mut ps[i].x` / `&mut ps[i].y`.
#[kernel]
pub fn field_refs(out: &mut [f32], ps: &mut [Pt], xs: &[f32]) {
    let i = gpu::global_id_x();
    if i < xs.len() && i < out.len() && i < ps.len() {
        let mut p = Pt {
            x: xs[i],
            y: 2.0 * xs[i],
        };
        bump(&mut p.x, 1.5);
        bump(&mut p.y, p.x);
        out[i] = p.x * 10.0 + p.y;
        bump(&mut ps[i].x, xs[i]);
        bump(&mut ps[i].y, -1.0);
    }
}

/// Writes `v` at `s[t]`.
#[device]
pub fn put(s: &mut [u32], t: usize, v: u32) {
    s[t] = v;
}

/// The sum of `s`.
#[device]
pub fn total(s: &[u32]) -> u32 {
    let mut acc = 0u32;
    for k in 0..s.len() {
        acc += s[k];
    }
    acc
}

/// Each thread's inclusive prefix sum within its block, through device functions that take
/// the block's dynamic shared memory whole (`put`) and as a sub-slice (`total`).
#[kernel]
pub fn dynamic_shared_to_device_functions(out: &mut [u32], x: &[u32]) {
    let s = gpu::dynamic_shared::<u32>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    let v = if i < x.len() { x[i] } else { 0 };
    put(s, t, v);
    gpu::sync_threads();
    if i < out.len() {
        out[i] = total(&s[..t + 1]);
    }
}

#[test]
fn mutable_references_to_fields() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 1000 + fastrand::usize(..100);
        let xs = cuprum_testkit::random_f32(n, -4.0, 4.0);
        let ps: Vec<Pt> = (0..n)
            .map(|_| Pt {
                x: fastrand::f32(),
                y: fastrand::f32(),
            })
            .collect();
        let dx = stream.to_device(&xs)?;
        let mut dps = stream.to_device(&ps)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let blocks = n.div_ceil(128) as u32;
        launch!(field_refs<<<blocks, 128, stream>>>(&mut out, &mut dps, &dx))?;
        let (got, got_ps) = (stream.to_host(&out)?, stream.to_host(&dps)?);
        for i in 0..n {
            let px = xs[i] + 1.5;
            let py = 2.0 * xs[i] + px;
            let want = px * 10.0 + py;
            assert!(
                (got[i] - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{}: out[{i}] = {}, expected {want}",
                dev.name(),
                got[i]
            );
            let want_p = Pt {
                x: ps[i].x + xs[i],
                y: ps[i].y - 1.0,
            };
            assert_eq!(got_ps[i], want_p, "{}: ps[{i}]", dev.name());
        }
    }
    Ok(())
}

#[test]
fn dynamic_shared_slices_in_device_functions() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let block = 128usize;
        let n = block * 7 + 45;
        let x: Vec<u32> = (0..n).map(|_| fastrand::u32(..1000)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        let blocks = n.div_ceil(block) as u32;
        let shared = (block * std::mem::size_of::<u32>()) as u32;
        launch!(dynamic_shared_to_device_functions<<<blocks, block as u32, shared, stream>>>(
            &mut out, &dx
        ))?;
        let got = stream.to_host(&out)?;
        for (b, chunk) in x.chunks(block).enumerate() {
            let mut acc = 0u32;
            for (t, v) in chunk.iter().enumerate() {
                acc += v;
                let i = b * block + t;
                assert_eq!(got[i], acc, "{}: out[{i}]", dev.name());
            }
        }
    }
    Ok(())
}
