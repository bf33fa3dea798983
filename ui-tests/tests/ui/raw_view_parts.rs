// The parts of the view a launch takes are the runtime's own: a simulator view taken out of
// one would carry no lifetime.
use cuprum::prelude::*;
use cuprum::DeviceSlice;

fn main() {
    let stream = Device::simulator().default_stream();
    let buffer = stream.alloc_zeros::<u32>(4).unwrap();
    let _parts = DeviceSlice::__view(&buffer).repr;
}
