//! What Cuprum's compiler (`cuprum-codegen`), its simulator (`cuprum-std`) and its runtime
//! (`cuprum`) must agree on at the binary level, written once: the layout of the record a
//! failed check fills, the kinds of runtime checks and the message each prints (Rust's own
//! wording), and the names of the symbols generated code and the runtime share.
//!
//! Nothing here depends on anything: each side reads the same constants, so a change is one
//! edit that every side sees.

#![no_std]
#![deny(missing_docs)]

use core::fmt;

/// The cold device function a failed check calls.
pub const PANIC_FN: &str = "__cuprum_panic";

/// The `u32` global in each checked kernel's module that holds its kernel id. The runtime
/// writes it when it loads the module (ids are handed out by its kernel registry, one per
/// kernel, so two kernels never share one); the panic path copies it into the record.
pub const KERNEL_ID_SYMBOL: &str = "__cuprum_kernel_id";

/// The alignment kernels assume for the elements of a slice parameter whose element type
/// has `size` bytes and `align`ment: its own alignment, raised to the largest power of two
/// up to 16 that divides its size, so that a 16-byte element (`[f32; 4]`, a 16-byte struct)
/// is read and written as one vector access (`ld.global.nc.v4.f32`), a 32-byte one as two,
/// an 8-byte one (`[f32; 2]`) as one `.v2`. The compiler marks the kernel's pointers with
/// it, and every launch, on the GPU and on the simulator, refuses a slice whose address is
/// not a multiple of it (a view's offset is a multiple of the element size, so only memory
/// from elsewhere can break it).
pub const fn element_align(size: u64, align: u64) -> u64 {
    if size == 0 {
        return align;
    }
    let pow = 1u64 << size.trailing_zeros();
    let pow = if pow > 16 { 16 } else { pow };
    if pow > align {
        pow
    } else {
        align
    }
}

/// The record a stream's checked kernels report a failed check to.
///
/// The kernel's hidden last parameter is the address of the *claim* (device memory):
/// `u32 claimed`, `u32 pad`, `u64 host record address`. The first failing thread claims it
/// with a compare-and-swap of [`UNCLAIMED`](record::UNCLAIMED) to
/// [`CLAIMED`](record::CLAIMED), fills the host record (mapped, pinned host memory) with plain
/// stores, fences, and stores [`COMPLETE`](record::COMPLETE) into its state last; every
/// failing thread then exits.
pub mod record {
    /// Bytes of the claim (device memory).
    pub const CLAIM_BYTES: usize = 16;
    /// Offset in the claim of the host record's address (`u64`).
    pub const CLAIM_HOST_ADDRESS: usize = 8;
    /// The claim word before any thread failed.
    pub const UNCLAIMED: u32 = 0;
    /// The claim word once a thread failed.
    pub const CLAIMED: u32 = 1;

    /// Bytes of the host record: the fixed fields, then [`MAX_VALUES`] values.
    pub const HOST_BYTES: usize = VALUES + 8 * MAX_VALUES;
    /// `u32`: [`COMPLETE`] once the record is filled.
    pub const STATE: usize = 0;
    /// `u32`: the failing kernel's id (see [`KERNEL_ID_SYMBOL`](crate::KERNEL_ID_SYMBOL)).
    pub const KERNEL: usize = 4;
    /// `u32`: the failed check's site number (an index into the kernel's site table).
    pub const SITE: usize = 8;
    /// `u64`: the failing index (index checks).
    pub const INDEX: usize = 16;
    /// `u64`: the length indexed (index checks).
    pub const LEN: usize = 24;
    /// `u32[3]`: the failing thread's block.
    pub const BLOCK: usize = 32;
    /// `u32[3]`: the failing thread within its block.
    pub const THREAD: usize = 44;
    /// `u64[MAX_VALUES]`: the values a failed assertion records (its format arguments, each
    /// widened to 8 bytes), which the host formats with the site's message.
    pub const VALUES: usize = 64;
    /// Most values an assertion records.
    pub const MAX_VALUES: usize = 16;
    /// The state of a complete record.
    pub const COMPLETE: u32 = 2;

    const _: () = assert!(THREAD + 12 <= VALUES);
}

/// What a runtime check guards against. Each kind's [`message`](CheckKind::message) is the
/// one Rust's own panic prints for the same failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckKind {
    /// An index out of bounds.
    Index,
    /// An integer division by zero.
    DivZero,
    /// An integer remainder by zero.
    RemZero,
    /// `step_by(0)`.
    StepZero,
    /// An `assert!`-family macro, `panic!` or `unreachable!`: its message is the site's own,
    /// formatted from the values the failing thread records.
    Panic,
}

impl CheckKind {
    /// Every kind.
    pub const ALL: [CheckKind; 5] = [
        CheckKind::Index,
        CheckKind::DivZero,
        CheckKind::RemZero,
        CheckKind::StepZero,
        CheckKind::Panic,
    ];

    /// The variant's name, as code that names it spells it (`CheckKind::Index`).
    pub const fn name(self) -> &'static str {
        match self {
            CheckKind::Index => "Index",
            CheckKind::DivZero => "DivZero",
            CheckKind::RemZero => "RemZero",
            CheckKind::StepZero => "StepZero",
            CheckKind::Panic => "Panic",
        }
    }

    /// The failure's message, as Rust prints it. `index` and `len` are the failing index and
    /// the length indexed (only index checks use them). For [`CheckKind::Panic`] this is
    /// Rust's message for a `panic!()` without one; a site with its own message formats it
    /// from the recorded values instead.
    pub const fn message(self, index: u64, len: u64) -> Message {
        Message {
            kind: self,
            index,
            len,
        }
    }
}

/// A failed check's message (see [`CheckKind::message`]); `Display` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    kind: CheckKind,
    index: u64,
    len: u64,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            CheckKind::Index => write!(
                f,
                "index out of bounds: the len is {} but the index is {}",
                self.len, self.index
            ),
            CheckKind::DivZero => f.write_str("attempt to divide by zero"),
            CheckKind::RemZero => {
                f.write_str("attempt to calculate the remainder with a divisor of zero")
            }
            CheckKind::StepZero => f.write_str("assertion failed: step != 0"),
            CheckKind::Panic => f.write_str("explicit panic"),
        }
    }
}

/// Host-evaluated versioning: the test that selects a checked kernel's fast copy (the copy
/// of its body without the index checks a uniform condition proves), when every value the
/// condition reads is known at launch.
///
/// The compiler (`passes::bounds`) emits the condition as [`Test`]s over a list of launch
/// values (slice lengths, unsigned scalar arguments, grid and block dimensions, each as a
/// `u64`); the launch evaluates it with [`holds`] from the values it actually passes (the
/// lengths of the views it hands the kernel, never a length a trait method reports) and
/// passes the result as the kernel's hidden `u32` parameter, on a GPU and on the simulator
/// alike. A wrong `true` would let the fast copy access memory out of bounds, so [`holds`]
/// computes exactly (`i128`, checked) and answers `false` whenever it cannot.
pub mod versioning {
    /// `coefficient · Π values[factors[k]]`.
    #[derive(Clone, Copy, Debug)]
    pub struct Term<'a> {
        /// The constant factor (negative for the terms subtracted).
        pub coefficient: i128,
        /// Indices into the launch's values, multiplied together (none: the constant).
        pub factors: &'a [u32],
    }

    /// `Σ terms <= values[len]`.
    #[derive(Clone, Copy, Debug)]
    pub struct Test<'a> {
        /// The polynomial.
        pub terms: &'a [Term<'a>],
        /// The index of the slice length it must not exceed.
        pub len: u32,
    }

    /// Whether every test holds for `values`, computed exactly: `false` when a test fails,
    /// when an index is past `values`, or when a product or sum leaves `i128`.
    pub fn holds(tests: &[Test<'_>], values: &[u64]) -> bool {
        tests.iter().all(|t| test_holds(t, values).unwrap_or(false))
    }

    fn test_holds(t: &Test<'_>, values: &[u64]) -> Option<bool> {
        let mut sum: i128 = 0;
        for term in t.terms {
            let mut product = term.coefficient;
            for &f in term.factors {
                product = product.checked_mul(i128::from(*values.get(f as usize)?))?;
            }
            sum = sum.checked_add(product)?;
        }
        Some(sum <= i128::from(*values.get(t.len as usize)?))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::string::ToString;

    use super::*;

    #[test]
    fn names_are_the_variants() {
        for kind in CheckKind::ALL {
            assert_eq!(kind.name(), format!("{kind:?}"));
        }
    }

    /// The messages are Rust's: each is compared with the panic of the same failure in
    /// ordinary Rust.
    #[test]
    fn messages_are_rusts() {
        fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> std::string::String {
            let hook = std::panic::take_hook();
            std::panic::set_hook(std::boxed::Box::new(|_| {}));
            let p = std::panic::catch_unwind(f).expect_err("the closure panics");
            std::panic::set_hook(hook);
            p.downcast_ref::<std::string::String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .expect("a message")
        }
        let zero = std::hint::black_box(0u32);
        let v = std::hint::black_box([1u32, 2, 3]);
        let i = std::hint::black_box(7usize);
        let cases = [
            (
                CheckKind::Index.message(7, 3),
                panic_of(move || {
                    std::hint::black_box(v[i]);
                }),
            ),
            (
                CheckKind::DivZero.message(0, 0),
                panic_of(move || {
                    std::hint::black_box(1 / zero);
                }),
            ),
            (
                CheckKind::RemZero.message(0, 0),
                panic_of(move || {
                    std::hint::black_box(1 % zero);
                }),
            ),
            (
                CheckKind::StepZero.message(0, 0),
                panic_of(move || {
                    let _ = std::hint::black_box((0..4).step_by(zero as usize));
                }),
            ),
            (
                CheckKind::Panic.message(0, 0),
                panic_of(move || {
                    if std::hint::black_box(true) {
                        panic!()
                    }
                }),
            ),
        ];
        for (ours, rusts) in cases {
            assert_eq!(ours.to_string(), rusts);
        }
    }

    /// `holds` is exact: against a `u128` evaluation of random polynomials, and `false` on
    /// overflow or a missing value.
    #[test]
    fn versioning_tests_are_exact() {
        use super::versioning::{holds, Term, Test};
        // x·y − 3·z + 2 <= len, with values [x, y, z, len].
        let terms = [
            Term {
                coefficient: 1,
                factors: &[0, 1],
            },
            Term {
                coefficient: -3,
                factors: &[2],
            },
            Term {
                coefficient: 2,
                factors: &[],
            },
        ];
        let test = [Test {
            terms: &terms,
            len: 3,
        }];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..10_000 {
            let shift = (next() % 64) as u32;
            let v = [
                next() >> shift,
                next() >> shift,
                next() >> (shift / 2),
                next() >> shift,
            ];
            // x·y can pass i128 (then q is far above any length: false).
            let want = i128::from(v[0])
                .checked_mul(i128::from(v[1]))
                .is_some_and(|xy| xy - 3 * i128::from(v[2]) + 2 <= i128::from(v[3]));
            assert_eq!(holds(&test, &v), want, "{v:?}");
        }
        // An exact boundary.
        assert!(holds(&test, &[10, 10, 1, 99]));
        assert!(!holds(&test, &[10, 10, 1, 98]));
        // Overflow of i128 is `false`, even where the exact value would pass.
        let big = [
            Term {
                coefficient: 1,
                factors: &[0, 0, 0],
            },
            Term {
                coefficient: -1,
                factors: &[0, 0, 0],
            },
        ];
        assert!(!holds(
            &[Test {
                terms: &big,
                len: 1
            }],
            &[u64::MAX, u64::MAX]
        ));
        // A missing value is `false`.
        assert!(!holds(
            &[Test {
                terms: &terms,
                len: 9
            }],
            &[1, 1, 1, 1]
        ));
        // No tests: true.
        assert!(holds(&[], &[]));
    }
}
