// A simulator view carries no lifetime, so making one is `unsafe`: in safe code it could
// outlive its buffer and write into freed memory.
use cuprum::gpu::sim::SimBuffer;

fn main() {
    let buffer = SimBuffer::<u32>::zeroed(4).unwrap();
    let view = buffer.view(0, 4);
    drop(buffer);
    view.copy_from(&[1, 2, 3, 4]);
}
