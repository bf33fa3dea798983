use cuprum::prelude::*;

fn main() -> cuprum::Result<()> {
    let stream = Device::default()?.default_stream();
    let x = stream.to_device(&[1u8, 2, 3, 4])?;
    // Only 4- and 8-byte scalars are read as vectors.
    let (_head, _vectors, _tail) = x.as_vectors::<16>();
    Ok(())
}
