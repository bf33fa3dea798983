//! `sync_threads`: writes before the barrier are seen by the whole block after it, for
//! blocks up to 1024 threads and 3-D block shapes.

use cuprum::prelude::*;

#[path = "kernels/sync.rs"]
mod kernels;
use kernels::*;

fn check(block: (u32, u32, u32), blocks: u32) -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = (block.0 * block.1 * block.2) as usize;
        let total = n * blocks as usize;
        let mut rng = fastrand::Rng::new();
        let x: Vec<u32> = (0..total).map(|_| rng.u32(1..1 << 20)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; total])?;
        let mut scratch = stream.alloc_zeros::<u32>(total)?;
        launch!(rotate_in_block<<<blocks, block, stream>>>(&mut out, &mut scratch, &dx))?;
        let got = stream.to_host(&out)?;
        for b in 0..blocks as usize {
            let base = b * n;
            let first: Vec<u32> = (0..n).map(|l| x[base + (l + 1) % n] * 3 + 1).collect();
            for l in 0..n {
                let want = first[(l + n - 1) % n] ^ x[base + l];
                assert_eq!(
                    got[base + l],
                    want,
                    "block {b}, thread {l} of block {block:?}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn barrier_orders_block_writes() -> cuprum::Result<()> {
    check((128, 1, 1), 7)
}

#[test]
fn blocks_of_1024_threads() -> cuprum::Result<()> {
    check((1024, 1, 1), 3)
}

#[test]
fn three_dimensional_blocks() -> cuprum::Result<()> {
    check((8, 4, 3), 5)
}
