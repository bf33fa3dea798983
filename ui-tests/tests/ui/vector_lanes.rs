use cuprum::prelude::*;

fn main() -> cuprum::Result<()> {
    let stream = Device::default()?.default_stream();
    let x = stream.to_device(&[1u32, 2, 3, 4, 5, 6])?;
    // Four `u32`s fill a 16-byte vector, not three.
    let (_head, _vectors, _tail) = x.as_vectors::<3>();
    Ok(())
}
