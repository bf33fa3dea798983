//! The host API beyond a single launch: streams and events, copies into existing
//! memory (pageable and pinned), views and empty buffers, cudarc interop and raw pointers,
//! several devices, occupancy, ptxas reports, and launches from several host threads. Each
//! result is checked against a CPU reference on fresh random inputs.

use cuprum::occupancy;
use cuprum::prelude::*;
use cuprum::{DeviceView, DeviceViewMut, Event, Graph, PinnedBuffer};
use cuprum_testkit::{compare_f32, on_backends, random_f32, random_u32};

#[path = "kernels/runtime.rs"]
mod kernels;
use kernels::*;

/// A random odd multiplier and a random offset for `step`/`affine`.
fn random_map() -> (u32, u32) {
    let mut r = fastrand::Rng::new();
    (r.u32(..) | 1, r.u32(1..))
}

#[test]
fn streams_order_work_through_events() -> cuprum::Result<()> {
    on_backends(|dev| {
        let (s1, s2) = (dev.new_stream()?, dev.new_stream()?);
        let n = 100_000;
        let y = random_u32(n);
        let ((m1, c1), (m2, c2)) = (random_map(), random_map());
        let mut dy = s1.to_device(&y)?;
        let cfg = LaunchConfig::for_elements(n, 256);
        let e0 = s1.record_event()?;
        step::launch(&s1, cfg, &mut dy, m1, c1)?;
        let e1 = s1.record_event()?;
        // The second map runs on another stream, after the first: the maps do not commute, so the
        // result shows the order.
        s2.wait_event(&e1)?;
        step::launch(&s2, cfg, &mut dy, m2, c2)?;
        let e2 = s2.record_event()?;
        s2.synchronize()?;
        e2.synchronize()?;
        let got = s2.to_host(&dy)?;
        for i in 0..n {
            let want = affine_ref(affine_ref(y[i], m1, c1), m2, c2);
            assert_eq!(got[i], want, "element {i}");
        }
        let (t1, t2) = (e0.elapsed_ms(&e1)?, e0.elapsed_ms(&e2)?);
        assert!(
            t1.is_finite() && t1 >= 0.0 && t2 >= t1 && t2 < 60_000.0,
            "event times {t1} ms, {t2} ms"
        );
        s1.synchronize()?;
        // The default stream is one stream per device.
        let (d1, d2) = (dev.default_stream(), dev.default_stream());
        let mut dz = d1.to_device(&y)?;
        step::launch(&d2, cfg, &mut dz, m1, c1)?;
        let got = d1.to_host(&dz)?;
        assert!((0..n).all(|i| got[i] == affine_ref(y[i], m1, c1)));
        Ok(())
    })
}

#[test]
fn copies_into_existing_memory_both_ways() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 50_000;
        let x = random_u32(n);
        let (m, c) = random_map();
        let mut buf = stream.alloc_zeros::<u32>(n)?;
        stream.copy_from_host(&mut buf, &x)?;
        step::launch(&stream, LaunchConfig::for_elements(n, 128), &mut buf, m, c)?;
        let mut out = vec![0xdead_beef_u32; n];
        stream.copy_to_host(&buf, &mut out)?;
        assert!(
            (0..n).all(|i| out[i] == affine_ref(x[i], m, c)),
            "host → device → kernel → host"
        );

        // Into and out of views, from slices and arrays.
        let (lo, hi) = (1000, 4000);
        let patch = random_u32(hi - lo);
        stream.copy_from_host(&mut buf.slice_mut(lo..hi), &patch[..])?;
        let mut head = [0u32; 16];
        stream.copy_to_host(&buf.slice(lo..lo + 16), &mut head)?;
        assert_eq!(head[..], patch[..16]);
        let all = stream.to_host(&buf)?;
        for i in 0..n {
            let want = if (lo..hi).contains(&i) {
                patch[i - lo]
            } else {
                affine_ref(x[i], m, c)
            };
            assert_eq!(all[i], want, "element {i} after the patch");
        }

        // Device to device, between views of two buffers.
        let mut other = stream.to_device(&vec![1u32; n])?;
        stream.copy(&buf.slice(lo..hi), &mut other.slice_mut(..hi - lo))?;
        let got = stream.to_host(&other)?;
        assert_eq!(got[..hi - lo], patch[..]);
        assert!(got[hi - lo..].iter().all(|&v| v == 1));

        // Lengths must match; nothing is copied when they do not.
        match stream.copy_from_host(&mut buf, &x[..n - 1]) {
            Err(Error::LengthMismatch { expected, found }) => {
                assert_eq!((expected, found), (n, n - 1))
            }
            other => panic!("expected a length mismatch, got {other:?}"),
        }
        let mut short = vec![0u32; 3];
        assert!(matches!(
            stream.copy_to_host(&buf, &mut short),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            stream.copy(&buf, &mut other.slice_mut(..10)),
            Err(Error::LengthMismatch { .. })
        ));
        assert_eq!(stream.to_host(&buf)?, all);
        Ok(())
    })
}

#[test]
fn pinned_buffers_copy_asynchronously() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 1 << 18;
        let (x, y) = (random_f32(n, -2.0, 2.0), random_f32(n, -2.0, 2.0));
        let a = cuprum_testkit::random_scalar(-3.0, 3.0);
        let mut px: PinnedBuffer<f32> = dev.alloc_pinned(n)?;
        assert_eq!(px.len(), n);
        assert!(
            px.as_slice()?.iter().all(|&v| v == 0.0),
            "pinned memory starts zeroed"
        );
        px.as_mut_slice()?.copy_from_slice(&x);
        let mut py = dev.alloc_pinned::<f32>(n)?;
        py.as_mut_slice()?.copy_from_slice(&y);
        let (mut dx, mut dy) = (stream.alloc_zeros::<f32>(n)?, stream.alloc_zeros::<f32>(n)?);
        // Everything below is queued; the host only waits when it reads the result.
        stream.copy_from_host(&mut dx, &px)?;
        stream.copy_from_host(&mut dy, &py)?;
        axpy::launch(&stream, LaunchConfig::for_elements(n, 256), &mut dy, &dx, a)?;
        let mut out = dev.alloc_pinned::<f32>(n)?;
        out.as_mut_slice()?.fill(f32::NAN);
        stream.copy_to_host(&dy, &mut out)?;
        // Rewriting the source waits for the copy that reads it.
        px.as_mut_slice()?.fill(0.0);
        let want: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a * x + y).collect();
        let scale: Vec<f32> = x.iter().map(|&x| (a * x).abs()).collect();
        compare_f32(out.as_slice()?, &want, &scale, 2.0 * f32::EPSILON)
            .unwrap_or_else(|e| panic!("pinned round trip: {e}"));
        stream.synchronize()?;
        assert_eq!(
            stream.to_host(&dx)?,
            x,
            "the copy read the source before it was rewritten"
        );
        Ok(())
    })
}

#[test]
fn empty_buffers_views_and_launches_behave() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut empty = stream.alloc_zeros::<f32>(0)?;
        let from_empty = stream.to_device::<f32>(&[])?;
        assert_eq!((empty.len(), from_empty.len()), (0, 0));
        assert!(empty.is_empty() && from_empty.is_empty());
        assert_eq!(stream.to_host(&empty)?, Vec::<f32>::new());
        assert_eq!(stream.to_host(&from_empty)?, Vec::<f32>::new());
        stream.copy_from_host(&mut empty, &[] as &[f32])?;
        stream.copy_to_host(&from_empty, &mut [] as &mut [f32])?;
        stream.copy(&from_empty, &mut empty)?;
        let mut pinned = dev.alloc_pinned::<f32>(0)?;
        stream.copy_to_host(&empty, &mut pinned)?;
        assert!(pinned.as_slice()?.is_empty());
        // A grid over empty buffers: every thread sees len() == 0 and does nothing.
        axpy::launch(
            &stream,
            LaunchConfig::new(2, 64),
            &mut empty,
            &from_empty,
            2.0,
        )?;

        let n = 3000;
        let (x, y) = (random_f32(n, -1.0, 1.0), random_f32(n, -1.0, 1.0));
        let (dx, mut dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
        // An empty grid launches nothing; so does a grid over an empty view.
        axpy::launch(
            &stream,
            LaunchConfig::for_elements(0, 256),
            &mut dy,
            &dx,
            5.0,
        )?;
        let (e, ex) = (dy.slice_mut(700..700), dx.slice(700..700));
        assert!(e.is_empty() && ex.is_empty());
        assert_eq!((e.len(), ex.len()), (0, 0));
        let mut e = e;
        axpy::launch(&stream, LaunchConfig::new(4, 128), &mut e, &ex, 5.0)?;
        assert_eq!(stream.to_host(&dy)?, y, "nothing was written");
        // The views' lengths are what the kernel sees.
        let (mut v, vx): (DeviceViewMut<'_, f32>, DeviceView<'_, f32>) =
            (dy.slice_mut(100..1100), dx.slice(2000..));
        assert_eq!((v.len(), vx.len(), v.is_empty()), (1000, 1000, false));
        axpy::launch(
            &stream,
            LaunchConfig::for_elements(n, 256),
            &mut v,
            &vx,
            3.0,
        )?;
        let got = stream.to_host(&dy)?;
        let mut want = y.clone();
        let mut scale = vec![0.0f32; n];
        for i in 100..1100 {
            want[i] = 3.0 * x[i + 1900] + y[i];
            scale[i] = 3.0 * x[i + 1900].abs();
        }
        compare_f32(&got, &want, &scale, 2.0 * f32::EPSILON)
            .unwrap_or_else(|e| panic!("views of other lengths: {e}"));
        Ok(())
    })
}

#[test]
fn cudarc_interop_both_ways() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 20_000;
        let x = random_u32(n);
        let ((m1, c1), (m2, c2)) = (random_map(), random_map());
        let dx = stream.to_device(&x)?;
        let Some(ctx) = dev.cuda_context().cloned() else {
            // The simulator has no CUDA objects: every interop entry point says so.
            assert!(dev.is_simulator());
            assert!(matches!(
                unsafe { dx.device_ptr() },
                Err(Error::Unsupported(_))
            ));
            assert!(matches!(
                unsafe { dx.slice(1..).device_ptr() },
                Err(Error::Unsupported(_))
            ));
            let mut dy = stream.to_device(&x)?;
            assert!(matches!(
                unsafe { dy.slice_mut(1..).device_ptr_mut() },
                Err(Error::Unsupported(_))
            ));
            assert!(matches!(dev.memory_info(), Err(Error::Unsupported(_))));
            assert!(stream.cuda_stream().is_none() && dx.cuda_slice().is_none());
            assert!(matches!(
                stream.to_device(&x)?.into_cuda_slice(),
                Err(Error::Unsupported(_))
            ));
            return Ok(());
        };
        use cudarc::driver::{LaunchConfig as CudaConfig, PushKernelArg};
        let cuda = stream.cuda_stream().expect("a GPU stream").clone();
        let f = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(affine::PTX))
            .and_then(|m| m.load_function(affine::NAME))
            .expect("the PTX loads through cudarc");
        let cfg = CudaConfig {
            grid_dim: ((n as u32).div_ceil(256), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let n64 = n as u64;

        // A Cuprum buffer through a cudarc-launched kernel and back.
        let mut slice = stream.to_device(&vec![0u32; n])?.into_cuda_slice()?;
        let mut b = cuda.launch_builder(&f);
        b.arg(&mut slice)
            .arg(&n64)
            .arg(dx.cuda_slice().expect("a GPU buffer"))
            .arg(&n64)
            .arg(&m1)
            .arg(&c1);
        unsafe { b.launch(cfg) }.expect("cudarc launch");
        let mut back = DeviceBuffer::from_cuda_slice(slice, &dev)?;
        step::launch(
            &stream,
            LaunchConfig::for_elements(n, 256),
            &mut back,
            m2,
            c2,
        )?;
        let got = stream.to_host(&back)?;
        assert!(
            (0..n).all(|i| got[i] == affine_ref(affine_ref(x[i], m1, c1), m2, c2)),
            "cudarc launch then Cuprum launch"
        );

        // Raw device pointers, the way a C library takes them (on Cuprum's stream, so ordered).
        let mut out = stream.to_device(&vec![0u32; n])?;
        let lo = 5;
        let (po, px) = unsafe { (out.device_ptr_mut()?, dx.slice(lo..).device_ptr()?) };
        assert_eq!(px, unsafe { dx.device_ptr()? } + 4 * lo as u64);
        let len = (n - lo) as u64;
        let mut b = cuda.launch_builder(&f);
        b.arg(&po).arg(&len).arg(&px).arg(&len).arg(&m2).arg(&c2);
        unsafe { b.launch(cfg) }.expect("raw launch");
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let want = if i < n - lo {
                affine_ref(x[i + lo], m2, c2)
            } else {
                0
            };
            assert_eq!(got[i], want, "raw pointers, element {i}");
        }

        // A cudarc stream adopted by Cuprum.
        let theirs = Stream::from_cuda_stream(&dev, ctx.new_stream().expect("a cudarc stream"))?;
        let mut z = theirs.to_device(&x)?;
        step::launch(&theirs, LaunchConfig::for_elements(n, 64), &mut z, m1, c1)?;
        let got = theirs.to_host(&z)?;
        assert!((0..n).all(|i| got[i] == affine_ref(x[i], m1, c1)));

        // Memory of the GPU is not the simulator's, and free memory is below total.
        let sim = Device::simulator();
        assert!(matches!(
            Stream::from_cuda_stream(&sim, cuda.clone()),
            Err(Error::WrongDevice(_))
        ));
        let (free, total) = dev.memory_info()?;
        assert!(free > 0 && free <= total, "memory_info: {free} of {total}");
        Ok(())
    })
}

/// The devices a test can use: every GPU, and the simulator.
fn all_devices() -> cuprum::Result<Vec<Device>> {
    let mut devices: Vec<Device> = (0..Device::count())
        .map(Device::gpu)
        .collect::<Result<_>>()?;
    devices.push(Device::simulator());
    Ok(devices)
}

#[test]
fn several_devices_each_run_and_refuse_each_others_memory() -> cuprum::Result<()> {
    let count = Device::count();
    match Device::gpu(count) {
        Err(Error::NoGpu) => assert_eq!(count, 0),
        Err(Error::NoSuchDevice { ordinal, count: c }) => assert_eq!((ordinal, c), (count, count)),
        other => panic!("GPU {count} of {count}: {other:?}"),
    }
    let devices = all_devices()?;
    let n = 5000;
    let x = random_u32(n);
    let (m, c) = random_map();
    // The same kernel on every device: its module is loaded once per context.
    for dev in &devices {
        let stream = dev.new_stream()?;
        let mut y = stream.to_device(&x)?;
        step::launch(&stream, LaunchConfig::for_elements(n, 256), &mut y, m, c)?;
        step::launch(&stream, LaunchConfig::for_elements(n, 128), &mut y, c, m)?;
        let got = stream.to_host(&y)?;
        assert!(
            (0..n).all(|i| got[i] == affine_ref(affine_ref(x[i], m, c), c, m)),
            "on {}",
            dev.name()
        );
    }
    // Another handle of the same GPU is the same device.
    if count > 0 {
        let (a, b) = (Device::gpu(0)?, Device::gpu(0)?);
        let mut y = a.default_stream().to_device(&x)?;
        step::launch(
            &b.new_stream()?,
            LaunchConfig::for_elements(n, 256),
            &mut y,
            m,
            c,
        )?;
        let got = b.default_stream().to_host(&y)?;
        assert!((0..n).all(|i| got[i] == affine_ref(x[i], m, c)));
    }
    // Memory of one device on another's stream: an error before anything reaches the
    // driver, and nothing changes.
    for a in &devices {
        for b in &devices {
            if a == b {
                continue;
            }
            let (sa, sb) = (a.default_stream(), b.default_stream());
            let y = random_u32(n);
            let cfg = LaunchConfig::for_elements(n, 256);
            let (xa, mut ya) = (sa.to_device(&x)?, sa.to_device(&y)?);
            let (xb, mut yb) = (sb.to_device(&x)?, sb.to_device(&y)?);
            let wrong = |r: cuprum::Result<()>, what: &str| match r {
                Err(Error::WrongDevice(_)) => {}
                other => panic!("{what}, {} memory on {}: {other:?}", a.name(), b.name()),
            };
            // SAFETY (each launch): `affine` guards its index by the lengths of both slices.
            wrong(
                unsafe { affine::launch(&sb, cfg, &mut yb, &xa, 3, 4) },
                "reading",
            );
            wrong(
                unsafe { affine::launch(&sb, cfg, &mut ya, &xb, 3, 4) },
                "writing",
            );
            wrong(
                unsafe { affine::launch(&sb, cfg, &mut ya.slice_mut(..), &xb.slice(..), 3, 4) },
                "views",
            );
            wrong(sb.to_host(&xa).map(drop), "to_host");
            wrong(sb.copy_from_host(&mut ya, &y), "copy_from_host");
            wrong(sb.copy_to_host(&xa, &mut vec![0; n]), "copy_to_host");
            wrong(sb.copy(&xa, &mut yb), "copy");
            assert_eq!(sa.to_host(&ya)?, y);
            assert_eq!(sb.to_host(&yb)?, y);
        }
    }
    Ok(())
}

#[test]
fn occupancy_queries_and_block_choice() -> cuprum::Result<()> {
    on_backends(|dev| {
        let sim = dev.is_simulator();
        let blocks = |info, block, shared| occupancy::max_active_blocks(&dev, info, block, shared);
        let (a256, a1024, a32) = (
            blocks(&axpy::INFO, 256, 0)?,
            blocks(&axpy::INFO, 1024, 0)?,
            blocks(&axpy::INFO, 32, 0)?,
        );
        let (s0, s40k) = (
            blocks(&block_sums::INFO, 128, 0)?,
            blocks(&block_sums::INFO, 128, 40 * 1024)?,
        );
        if sim {
            // The simulator's documented model of an sm_90 multiprocessor.
            assert_eq!((a256, a1024, a32, s0, s40k), (8, 2, 32, 16, 5));
        } else {
            // Whatever the registers, an sm_90 multiprocessor holds at most 2048 threads, 32
            // blocks and 228 KiB of shared memory (1 KiB more per block).
            assert!((1..=8).contains(&a256), "{a256}");
            assert!((1..=2).contains(&a1024), "{a1024}");
            assert!((1..=32).contains(&a32), "{a32}");
            assert!(
                (1..=5).contains(&s40k) && s40k <= s0 && s0 <= 16,
                "{s40k} {s0}"
            );
        }
        for (info, block, shared) in [
            (&axpy::INFO, 0, 0),
            (&axpy::INFO, 2048, 0),
            (&bounded_step::INFO, 256, 0),
            (&axpy::INFO, 128, 228 * 1024),
        ] {
            match blocks(info, block, shared) {
                Err(Error::LaunchConfig(_)) => {}
                other => panic!(
                    "{} with {block} threads, {shared} bytes: {other:?}",
                    info.name
                ),
            }
        }
        // The chosen block size keeps the most threads resident of all sizes the kernel allows.
        for info in [&axpy::INFO, &block_sums::INFO, &bounded_step::INFO] {
            let best = occupancy::best_block_size(&dev, info, |_| 0)?;
            let limit = if info.max_threads != 0 {
                info.max_threads
            } else {
                1024
            };
            assert!(best % 32 == 0 && best <= limit, "{}: {best}", info.name);
            let resident = |b: u32| blocks(info, b, 0).map(|k| k * b);
            let best_resident = resident(best)?;
            for b in (32..=limit).step_by(32) {
                assert!(
                    resident(b)? <= best_resident,
                    "{}: {b} beats {best}",
                    info.name
                );
            }
        }
        if sim {
            assert_eq!(occupancy::best_block_size(&dev, &axpy::INFO, |_| 0)?, 1024);
            assert_eq!(
                occupancy::best_block_size(&dev, &bounded_step::INFO, |_| 0)?,
                128
            );
        }
        // Dynamic shared memory that grows with the block moves the choice.
        let per_thread = occupancy::best_block_size(&dev, &block_sums::INFO, |b| b * 100)?;
        assert!(blocks(&block_sums::INFO, per_thread, per_thread * 100)? >= 1);

        let n = 100_003;
        let cfg = LaunchConfig::for_occupancy(&dev, &axpy::INFO, n)?;
        let best = occupancy::best_block_size(&dev, &axpy::INFO, |_| 0)?;
        assert_eq!(cfg, LaunchConfig::for_elements(n, best));
        let stream = dev.default_stream();
        let (x, y) = (random_f32(n, -1.0, 1.0), random_f32(n, -1.0, 1.0));
        let (dx, mut dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
        axpy::launch(&stream, cfg, &mut dy, &dx, -1.5)?;
        let want: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| -1.5 * x + y).collect();
        let scale: Vec<f32> = x.iter().map(|&x| 1.5 * x.abs()).collect();
        compare_f32(&stream.to_host(&dy)?, &want, &scale, 2.0 * f32::EPSILON)
            .unwrap_or_else(|e| panic!("for_occupancy launch: {e}"));
        assert!(LaunchConfig::for_occupancy(&dev, &axpy::INFO, 0)?.is_empty());
        Ok(())
    })
}

#[test]
fn ptxas_reports_registers_and_shared_memory() {
    match cuprum::inspect::find_ptxas() {
        Some(_) => {
            let r = cuprum::inspect::resources(block_sums::PTX, "sm_90").expect("ptxas runs");
            let k = r
                .iter()
                .find(|r| r.kernel == block_sums::NAME)
                .unwrap_or_else(|| panic!("no report for block_sums in {r:?}"));
            assert!((1..=255).contains(&k.registers), "{k:?}");
            assert_eq!(k.shared_bytes, 4096, "{k:?}");
            assert_eq!((k.spill_stores, k.spill_loads), (0, 0), "{k:?}");
            let a = cuprum::inspect::resources(axpy::PTX, "sm_90").expect("ptxas runs");
            assert!(a
                .iter()
                .any(|r| r.kernel == axpy::NAME && r.shared_bytes == 0 && r.registers > 0));
            match cuprum::inspect::resources(".version 7.8\n.target sm_80\nnot ptx", "sm_90") {
                Err(Error::Tool(msg)) => assert!(msg.contains("rejected"), "{msg}"),
                other => panic!("bad PTX: {other:?}"),
            }
        }
        None => match cuprum::inspect::resources(axpy::PTX, "sm_90") {
            Err(Error::Tool(msg)) => assert!(msg.contains("ptxas was not found"), "{msg}"),
            other => panic!("without ptxas: {other:?}"),
        },
    }
}

#[test]
fn handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<DeviceView<'static, f32>>();
    send_sync::<DeviceViewMut<'static, f32>>();
    send_sync::<PinnedBuffer<f64>>();
    send_sync::<Graph<'static>>();
    send_sync::<Error>();
}

#[test]
fn threads_launch_at_once_from_many_host_threads() -> cuprum::Result<()> {
    on_backends(|dev| {
        let n = 30_000;
        let x = random_u32(n);
        let dx = dev.default_stream().to_device(&x)?;
        dev.default_stream().synchronize()?;
        let maps: Vec<(u32, u32)> = (0..6).map(|_| random_map()).collect();
        let results: Vec<cuprum::Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = maps
                .iter()
                .enumerate()
                .map(|(t, &(m, c))| {
                    let (dev, dx, x) = (&dev, &dx, &x);
                    scope.spawn(move || -> cuprum::Result<()> {
                        // Thread 0 shares the default stream; the others make their own.
                        let stream = if t == 0 {
                            dev.default_stream()
                        } else {
                            dev.new_stream()?
                        };
                        let mut out = stream.to_device(&vec![u32::MAX; n])?;
                        for round in 0..10u32 {
                            // SAFETY: `affine` guards its index by the lengths of both slices.
                            unsafe {
                                affine::launch(
                                    &stream,
                                    LaunchConfig::for_elements(n, 256),
                                    &mut out,
                                    dx,
                                    m,
                                    c,
                                )
                            }?;
                            step::launch(
                                &stream,
                                LaunchConfig::for_elements(n, 128),
                                &mut out,
                                round | 1,
                                t as u32,
                            )?;
                            let got = stream.to_host(&out)?;
                            for i in 0..n {
                                let want = affine_ref(affine_ref(x[i], m, c), round | 1, t as u32);
                                if got[i] != want {
                                    panic!(
                                        "thread {t}, round {round}, element {i}: {} vs {want}",
                                        got[i]
                                    );
                                }
                            }
                        }
                        Ok(())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no thread panics"))
                .collect()
        });
        for r in results {
            r?;
        }
        assert_eq!(
            dev.default_stream().to_host(&dx)?,
            x,
            "the shared input is unchanged"
        );
        Ok(())
    })
}
