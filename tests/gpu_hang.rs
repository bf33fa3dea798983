//! A kernel that never ends, and the way out of waiting for it: `synchronize_timeout`
//! returns `Ok(false)` while `synchronize` would wait forever.
//!
//! Ignored by default and alone in its binary: the kernel keeps the GPU busy until this
//! process exits (CUDA cannot stop a running kernel). Run it on a GPU with
//! `CUPRUM_DEVICE=gpu cargo test --test gpu_hang -- --ignored`. On the simulator a launch
//! runs to its end before returning, so the test only checks that a finished stream reports
//! `true` there.

use std::time::Duration;

use cuprum::prelude::*;

/// Spins forever: `v` stays odd, so it never becomes 0.
#[kernel]
pub fn spin_forever(y: &mut [u32], x: &[u32]) {
    if gpu::global_id_x() == 0 && !x.is_empty() && !y.is_empty() {
        let mut v = x[0] | 1;
        while v != 0 {
            v = v.wrapping_mul(3) | 1;
        }
        y[0] = v;
    }
}

#[test]
#[ignore = "keeps the GPU busy until the process exits"]
fn a_kernel_that_never_ends_times_out() -> cuprum::Result<()> {
    let dev = cuprum_testkit::device()?;
    let s = dev.new_stream()?;
    let x = s.to_device(&[1u32])?;
    let mut y = s.alloc_zeros::<u32>(1)?;
    if dev.is_simulator() {
        assert!(s.synchronize_timeout(Duration::ZERO)?);
        return Ok(());
    }
    spin_forever::launch(&s, LaunchConfig::new(1, 32), &mut y, &x)?;
    assert!(!s.synchronize_timeout(Duration::from_millis(200))?);
    // Still running a while later: the host keeps control each time.
    assert!(!s.synchronize_timeout(Duration::from_millis(200))?);
    // The buffers are never freed under the kernel: leak them with the stream, as a
    // program that reports the hang and exits would.
    std::mem::forget((x, y, s));
    Ok(())
}
