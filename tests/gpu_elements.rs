//! Slices and shared arrays of structs and arrays against CPU references on random data, and
//! the launch's alignment check of 16-byte elements.

use cuprum::prelude::*;
use cuprum::{DeviceView, DeviceViewMut};
use cuprum_testkit::device;

#[path = "kernels/elements.rs"]
mod kernels;
use kernels::*;

/// Whether `got` equals `want` to a few units in the last place (the GPU contracts
/// `a * b + c` into one fused multiply-add).
fn close(got: &[f32], want: &[f32], rel: f32) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} values, {} expected", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > rel * w.abs().max(1.0) {
            return Err(format!("{k}: {g} vs {w}"));
        }
    }
    Ok(())
}

fn random_bodies(n: usize) -> Vec<Body> {
    let mut r = fastrand::Rng::new();
    (0..n)
        .map(|_| Body {
            pos: [
                r.f32() * 4.0 - 2.0,
                r.f32() * 4.0 - 2.0,
                r.f32() * 4.0 - 2.0,
            ],
            vel: [r.f32() - 0.5, r.f32() - 0.5, r.f32() - 0.5],
            mass: r.f32() + 0.5,
        })
        .collect()
}

fn flat(bodies: &[Body]) -> Vec<f32> {
    bodies
        .iter()
        .flat_map(|b| b.pos.into_iter().chain(b.vel).chain([b.mass]))
        .collect()
}

#[test]
fn methods_and_fields_through_slices_of_structs() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let n = 1000;
    let bodies = random_bodies(n);
    let dt = fastrand::f32() * 0.1;
    let mut ps = stream.to_device(&bodies)?;
    let mut energy = stream.alloc_zeros::<f32>(n)?;
    let mut copy = stream.alloc_zeros::<Body>(n)?;
    launch!(advance<<<(n as u32).div_ceil(128), 128, stream>>>(&mut ps, &mut energy, &mut copy, dt))?;
    let mut want = bodies.clone();
    let mut want_energy = Vec::new();
    for b in &mut want {
        // The `#[device] impl` is the host's impl too.
        b.step(dt);
        want_energy.push(b.kinetic());
        b.vel[1] = b.vel[1] * 0.5 + b.mass;
        b.mass += 1.0;
    }
    let got = stream.to_host(&ps)?;
    close(&flat(&got), &flat(&want), 1e-5).unwrap();
    close(&stream.to_host(&energy)?, &want_energy, 1e-5).unwrap();
    assert_eq!(stream.to_host(&copy)?, got);
    Ok(())
}

fn random_probes(n: usize) -> Vec<Probe> {
    let mut r = fastrand::Rng::new();
    (0..n)
        .map(|_| Probe {
            wide: r.i64(..),
            x: r.f32(),
            id: r.u32(..),
            half: r.u16(..),
            byte: r.u8(..),
            flag: r.bool(),
            inner: Inner {
                a: [r.u16(..), r.u16(..)],
                b: r.f32() * 8.0 - 4.0,
                c: r.u32(..),
            },
        })
        .collect()
}

/// What `probe_fields` computes, on the host.
fn probe_reference(input: &[Probe]) -> Vec<Probe> {
    input
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let k = i as u32;
            Probe {
                wide: (-(i as i64))
                    .wrapping_mul(1_000_000_007)
                    .wrapping_add(p.wide),
                x: k as f32 * 0.5 + p.x,
                id: k ^ p.id,
                half: (k.wrapping_mul(3)) as u16 ^ p.half,
                byte: (k.wrapping_mul(7)) as u8 ^ p.byte,
                flag: k.is_multiple_of(3) != p.flag,
                inner: Inner {
                    a: [(k + 1) as u16 ^ p.inner.a[1], (k + 2) as u16 ^ p.inner.a[0]],
                    b: p.inner.b * 2.0,
                    c: p.inner.c.wrapping_add(k),
                },
            }
        })
        .collect()
}

/// Every field written through a slice lands where the host's `offset_of!` puts it, element
/// by element (`size_of` apart): the host reads each field by name.
#[test]
fn slice_elements_have_the_host_layout() -> cuprum::Result<()> {
    use std::mem::{align_of, offset_of, size_of};
    // The layout the tests rely on (the kernel macro asserts the compiler's agrees).
    assert_eq!((size_of::<Probe>(), align_of::<Probe>()), (32, 8));
    assert_eq!(offset_of!(Probe, inner), 20);
    assert_eq!((size_of::<Quad>(), align_of::<Quad>()), (16, 16));
    let stream = device()?.default_stream();
    let n = 777;
    let input = random_probes(n);
    let din = stream.to_device(&input)?;
    let mut out = stream.to_device(&random_probes(n))?;
    launch!(probe_fields<<<(n as u32).div_ceil(64), 64, stream>>>(&mut out, &din))?;
    let got = stream.to_host(&out)?;
    let want = probe_reference(&input);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "element {k}");
    }
    Ok(())
}

#[test]
fn sixteen_byte_elements() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let n = 1500;
    let mut r = fastrand::Rng::new();
    let a: Vec<[f32; 4]> = (0..n)
        .map(|_| [r.f32(), r.f32(), r.f32(), r.f32()])
        .collect();
    let q: Vec<Quad> = (0..n)
        .map(|_| Quad {
            xyz: [r.f32(), r.f32(), r.f32()],
            w: r.f32(),
        })
        .collect();
    let pairs: Vec<[f64; 2]> = (0..n).map(|_| [r.f64(), r.f64() - 0.5]).collect();
    let s = r.f32() + 0.5;
    let (da, dq, dp) = (
        stream.to_device(&a)?,
        stream.to_device(&q)?,
        stream.to_device(&pairs)?,
    );
    let mut out = stream.alloc_zeros::<[f32; 4]>(n)?;
    let mut outq = stream.alloc_zeros::<Quad>(n)?;
    let mut bits = stream.alloc_zeros::<[u32; 4]>(n)?;
    let mut sums = stream.alloc_zeros::<f64>(n)?;
    launch!(vec4<<<(n as u32).div_ceil(256), 256, stream>>>(&da, &dq, &mut out, &mut outq, &mut bits, &dp, &mut sums, s))?;
    let want: Vec<f32> = a
        .iter()
        .zip(&q)
        .flat_map(|(v, w)| {
            [
                v[0] * s + w.xyz[0],
                v[1] * s + w.xyz[1],
                v[2] * s + w.xyz[2],
                v[3] * s + w.w,
            ]
        })
        .collect();
    let got: Vec<f32> = stream.to_host(&out)?.into_iter().flatten().collect();
    close(&got, &want, 1e-6).unwrap();
    let want_q: Vec<Quad> = a
        .iter()
        .zip(&q)
        .map(|(v, w)| Quad {
            xyz: [v[1], v[2], v[3]],
            w: v[0] + w.w,
        })
        .collect();
    assert_eq!(stream.to_host(&outq)?, want_q);
    let want_bits: Vec<[u32; 4]> = (0..n as u32)
        .map(|x| [x, x * 2, (x ^ 0xffff) + 1, !x])
        .collect();
    assert_eq!(stream.to_host(&bits)?, want_bits);
    let got_sums = stream.to_host(&sums)?;
    for (k, (g, p)) in got_sums.iter().zip(&pairs).enumerate() {
        let w = p[0] * p[1] + p[1];
        assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "{k}: {g} vs {w}");
    }
    Ok(())
}

#[test]
fn shared_tiles_of_structs_and_device_functions_on_sub_slices() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let n = 64 * 7 + 13;
    let bodies = random_bodies(n);
    let mut r = fastrand::Rng::new();
    let acc_in: Vec<[f32; 4]> = (0..9)
        .map(|_| [r.f32(), r.f32(), r.f32(), r.f32()])
        .collect();
    let db = stream.to_device(&bodies)?;
    let mut out = stream.alloc_zeros::<f32>(n)?;
    let mut acc = stream.to_device(&acc_in)?;
    launch!(tiles<<<(n as u32).div_ceil(64), 64, stream>>>(&db, &mut out, &mut acc))?;
    let mut want = Vec::new();
    for i in 0..n {
        let start = i - i % 64;
        let end = (start + 64).min(n);
        let mut s = 0.0f32;
        for j in start..start + 64 {
            // Past the end, the tile holds `Body::default()` (mass 0).
            let b = bodies.get(j).copied().unwrap_or_default();
            let dx = b.pos[0] - bodies[i].pos[0];
            s += b.mass * dx * dx;
        }
        want.push(s + bodies[start..end].iter().map(|b| b.mass).sum::<f32>());
    }
    close(&stream.to_host(&out)?, &want, 1e-4).unwrap();
    let mut want_acc = acc_in.clone();
    for v in &mut want_acc[1..] {
        v[0] += 1.5;
    }
    assert_eq!(stream.to_host(&acc)?, want_acc);
    Ok(())
}

#[test]
fn local_arrays_of_arrays() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let n = 999;
    let xs = cuprum_testkit::random_f32(n, -3.0, 3.0);
    let dx = stream.to_device(&xs)?;
    let mut out = stream.alloc_zeros::<f32>(n)?;
    launch!(local_grid<<<(n as u32).div_ceil(128), 128, stream>>>(&dx, &mut out))?;
    let want: Vec<f32> = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let m: Vec<[f32; 2]> = (0..8).map(|r| [x + r as f32, x * r as f32]).collect();
            let row = m[i % 8];
            let mut s = row[0] - row[1];
            for v in &m {
                s += v[1] - v[0];
            }
            s
        })
        .collect();
    close(&stream.to_host(&out)?, &want, 1e-5).unwrap();
    Ok(())
}

/// Foreign memory (a cudarc slice whose address is not a multiple of 16) holding 16-byte
/// elements is an `Err` at launch, never a fault, and the same memory at a 16-byte aligned
/// address launches and computes. Simulator buffers cannot be misaligned; the simulator's
/// launch runs the same check (`misaligned_slices_are_refused_on_the_simulator` in the
/// runtime's tests makes a misaligned simulator view for it).
#[test]
fn misaligned_interop_memory_is_an_error_at_launch() -> cuprum::Result<()> {
    let device = device()?;
    let stream = device.default_stream();
    let Some(cuda) = stream.cuda_stream().cloned() else {
        eprintln!("simulator: foreign memory needs a GPU (see the runtime's own test)");
        return Ok(());
    };
    let n = 300;
    let mut r = fastrand::Rng::new();
    let data: Vec<[f32; 4]> = (0..n)
        .map(|_| [r.f32(), r.f32(), r.f32(), r.f32()])
        .collect();
    let s = r.f32() + 0.5;
    let bytes = 16 * n + 16;
    let base = cuda
        .alloc_zeros::<u8>(bytes)
        .expect("a cudarc allocation")
        .leak();
    for offset in [4u64, 8, 12, 16] {
        // SAFETY: `n` elements of 16 bytes from `offset` <= 16 lie within the `16 n + 16`
        // zeroed bytes, which stay allocated until the end of the test; the slice is leaked
        // below, never freed.
        let slice = unsafe { cuda.upgrade_device_ptr::<[f32; 4]>(base + offset, n) };
        let mut buf = DeviceBuffer::from_cuda_slice(slice, &device)?;
        stream.copy_from_host(&mut buf, &data)?;
        let launched = launch!(scale4<<<(n as u32).div_ceil(128), 128, stream>>>(&mut buf, s));
        if offset % 16 == 0 {
            launched?;
            let want: Vec<[f32; 4]> = data.iter().map(|v| v.map(|x| x * s)).collect();
            assert_eq!(stream.to_host(&buf)?, want);
        } else {
            match launched {
                Err(Error::LaunchConfig(msg)) => {
                    assert!(msg.contains("not aligned to 16 bytes"), "{msg}")
                }
                other => panic!("offset {offset}: {other:?}"),
            }
        }
        stream.synchronize()?;
        let _ = buf.into_cuda_slice()?.leak();
    }
    // SAFETY: the allocation made above, now owned again to be freed.
    drop(unsafe { cuda.upgrade_device_ptr::<u8>(base, bytes) });
    Ok(())
}

#[test]
fn dynamic_shared_pairs_and_iter_mut_over_sub_slices() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let (block, blocks) = (64usize, 9usize);
    let n = block * blocks;
    let mut r = fastrand::Rng::new();
    let xs: Vec<[f32; 2]> = (0..n).map(|_| [r.f32(), r.f32()]).collect();
    let bodies = random_bodies(n - 5);
    let dt = r.f32() * 0.1;
    let dx = stream.to_device(&xs)?;
    let mut out = stream.alloc_zeros::<[f32; 2]>(n)?;
    let mut ps = stream.to_device(&bodies)?;
    let shared = (block * std::mem::size_of::<[f32; 2]>()) as u32;
    launch!(dyn_pairs<<<blocks as u32, block as u32, shared, stream>>>(&dx, &mut out, &mut ps, dt))?;
    let want: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            let (b, t) = (i / block, i % block);
            let v = xs[b * block + block - 1 - t];
            [v[1], v[0]]
        })
        .collect();
    assert_eq!(stream.to_host(&out)?, want);
    let mut want_bodies = bodies.clone();
    for b in &mut want_bodies {
        b.step(dt);
    }
    close(&flat(&stream.to_host(&ps)?), &flat(&want_bodies), 1e-5).unwrap();
    Ok(())
}

#[test]
fn atomics_on_fields_and_lanes_of_elements() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let n = 5000;
    let xs = cuprum_testkit::random_u32(n);
    let (nb, nl) = (37usize, 11usize);
    let dx = stream.to_device(&xs)?;
    let mut bins = stream.alloc_zeros::<Probe>(nb)?;
    let mut lanes = stream.alloc_zeros::<[u32; 4]>(nl)?;
    launch!(field_atomics<<<(n as u32).div_ceil(256), 256, stream>>>(&dx, &mut bins, &mut lanes))?;
    let mut want = vec![Probe::default(); nb];
    let mut want_lanes = vec![[0u32; 4]; nl];
    for &x in &xs {
        let b = x as usize % nb;
        want[b].id += 1;
        want[b].inner.c = want[b].inner.c.wrapping_add(x & 0xff);
        let l = &mut want_lanes[b % nl][(x % 4) as usize];
        *l = (*l).max(x);
    }
    assert_eq!(stream.to_host(&bins)?, want);
    assert_eq!(stream.to_host(&lanes)?, want_lanes);
    Ok(())
}

/// A kernel that joins `as_vectors`' three parts into `out` (`join_parts`).
type Join<'f, T, const N: usize> = &'f dyn Fn(
    &Stream,
    &mut DeviceBuffer<T>,
    &DeviceView<'_, T>,
    &DeviceView<'_, [T; N]>,
    &DeviceView<'_, T>,
) -> cuprum::Result<()>;

/// A kernel that adds `d` to every element of `as_vectors_mut`'s three parts (`bump_parts`).
type Bump<'f, T, const N: usize> = &'f dyn Fn(
    &Stream,
    &mut DeviceViewMut<'_, T>,
    &mut DeviceViewMut<'_, [T; N]>,
    &mut DeviceViewMut<'_, T>,
    T,
) -> cuprum::Result<()>;

/// `as_vectors` and `as_vectors_mut` on views starting at every offset within a vector, of
/// lengths 0, 1, around the vector size and longer, on fresh random data: the three parts
/// hold every element once, in order (`join` puts them back together, reading the middle
/// part in 16-byte loads; an empty middle part is launched as it is), the head reaches the
/// first 16-byte boundary and the head and tail are shorter than a vector; `bump` writes
/// every element of a writable view's parts, and nothing around the view.
fn check_vector_parts<T, const N: usize>(
    random: impl Fn(&mut fastrand::Rng) -> T,
    join: Join<'_, T, N>,
    bump: Bump<'_, T, N>,
    d: T,
    add: impl Fn(T, T) -> T,
) -> cuprum::Result<()>
where
    T: cuprum::VectorLanes<N> + cudarc::driver::ValidAsZeroBits + PartialEq + std::fmt::Debug,
{
    let stream = device()?.default_stream();
    let mut r = fastrand::Rng::new();
    let long = 70_000 + r.usize(..N * 8);
    for len in [
        0,
        1,
        2,
        3,
        N - 1,
        N,
        N + 1,
        2 * N + 1,
        3 * N + 2,
        1000,
        long,
    ] {
        let host: Vec<T> = (0..len + N).map(|_| random(&mut r)).collect();
        let buf = stream.to_device(&host)?;
        for skip in 0..=N {
            let view = buf.slice(skip..skip + len);
            let (head, v, tail) = view.as_vectors::<N>();
            let what = format!("{} len {len} at {skip}", std::any::type_name::<T>());
            assert_eq!(head.len(), ((N - skip % N) % N).min(len), "{what}: head");
            assert_eq!(head.len() + N * v.len() + tail.len(), len, "{what}");
            assert!(tail.len() < N, "{what}: tail {}", tail.len());
            let poison = random(&mut r);
            let mut out = stream.to_device(&vec![poison; len.max(1)])?;
            join(&stream, &mut out, &head, &v, &tail)?;
            let got = stream.to_host(&out)?;
            assert_eq!(&got[..len], &host[skip..skip + len], "{what}");
            // The middle part copies to the host as vectors, too.
            let lanes: Vec<T> = stream.to_host(&v)?.into_iter().flatten().collect();
            assert_eq!(lanes, host[skip + head.len()..][..N * v.len()], "{what}");

            // Writable parts of a view of a copy: every element of the view changes by `d`,
            // nothing else does.
            let mut copy = stream.to_device(&host)?;
            let mut mv = copy.slice_mut(skip..skip + len);
            let (mut h, mut m, mut t) = mv.as_vectors_mut::<N>();
            assert_eq!(
                (h.len(), m.len(), t.len()),
                (head.len(), v.len(), tail.len())
            );
            bump(&stream, &mut h, &mut m, &mut t, d)?;
            let got = stream.to_host(&copy)?;
            for (i, (&g, &x)) in got.iter().zip(&host).enumerate() {
                let want = if (skip..skip + len).contains(&i) {
                    add(x, d)
                } else {
                    x
                };
                assert_eq!(g, want, "{what}: element {i} after bump");
            }
        }
        // A whole buffer starts at a boundary, writable or not.
        assert_eq!(buf.as_vectors::<N>().0.len(), 0);
        let mut copy = stream.to_device(&host)?;
        let (h, m, t) = copy.as_vectors_mut::<N>();
        assert_eq!(
            (h.len(), m.len(), t.len()),
            (0, (len + N) / N, (len + N) % N)
        );
    }
    Ok(())
}

#[test]
fn vector_views_of_scalar_buffers() -> cuprum::Result<()> {
    fn grid(n: usize) -> u32 {
        (n.max(1) as u32).div_ceil(256)
    }
    check_vector_parts::<u32, 4>(
        |r| r.u32(..1 << 31),
        &|stream, out, head, v, tail| {
            let n = head.len().max(v.len()).max(tail.len());
            launch!(join_parts4::<u32><<<grid(n), 256, stream>>>(out, head, v, tail))
        },
        &|stream, head, v, tail, d| {
            let n = head.len().max(v.len()).max(tail.len());
            launch!(bump_parts4::<u32><<<grid(n), 256, stream>>>(head, v, tail, d))
        },
        7,
        |x, d| x + d,
    )?;
    check_vector_parts::<f64, 2>(
        |r| r.f64() - 0.5,
        &|stream, out, head, v, tail| {
            let n = head.len().max(v.len()).max(tail.len());
            launch!(join_parts2::<f64><<<grid(n), 256, stream>>>(out, head, v, tail))
        },
        &|stream, head, v, tail, d| {
            let n = head.len().max(v.len()).max(tail.len());
            launch!(bump_parts2::<f64><<<grid(n), 256, stream>>>(head, v, tail, d))
        },
        0.25,
        |x, d| x + d,
    )
}

/// An empty middle part of a view that starts off a 16-byte boundary (the gap the first
/// version of `as_vectors` had: it kept the view's unaligned address, which launches refuse)
/// is launched like any other, on its own and beside a non-empty one.
#[test]
fn empty_vector_parts_launch_at_any_start() -> cuprum::Result<()> {
    let stream = device()?.default_stream();
    let buf = stream.to_device(&[3u32, 1, 4, 1, 5, 9, 2, 6])?;
    for (skip, len) in [(1, 0), (1, 1), (1, 2), (2, 1), (3, 0), (5, 2), (1, 3)] {
        let view = buf.slice(skip..skip + len);
        let (head, v, tail) = view.as_vectors::<4>();
        assert!(v.is_empty(), "{skip} {len}");
        let mut out = stream.alloc_zeros::<u32>(len.max(1))?;
        launch!(join_parts4::<u32><<<1, 32, stream>>>(&mut out, &head, &v, &tail))?;
        assert_eq!(
            stream.to_host(&out)?[..len],
            [3, 1, 4, 1, 5, 9, 2, 6][skip..skip + len]
        );
    }
    Ok(())
}
