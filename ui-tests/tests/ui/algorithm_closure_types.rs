use cuprum::prelude::*;

fn main() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let x = stream.to_device(&[1.0f32, 2.0])?;
    // The kernel is compiled before rustc knows the element type: the closure must say it.
    let m = cuprum::algorithms::reduce!(&stream, &x, 0.0, |a, b| a.max(b))?;
    println!("{m}");
    Ok(())
}
