// The simulator's launch arguments carry no lifetime, so taking one is `unsafe`.
use cuprum::prelude::*;

fn main() {
    let stream = Device::simulator().default_stream();
    let buffer = stream.alloc_zeros::<u32>(4).unwrap();
    if let cuprum::__private::Backend::Sim(sim) = cuprum::__private::backend(&stream) {
        let _view = sim.arg(cuprum::__private::Slice::new(&buffer));
    }
}
