"""unroll branch: grid-stride sum loops (Cuprum unchecked PTX), with and without `.pragma "nounroll"`
on the LLVM-unrolled main loop; 2^26 f32, grid 1024 x 256, interleaved, CUDA events, medians."""
import sys, glob, os, numpy as np
import cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
d = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
n = 1 << 26
x = cp.asarray(rng.random(n, dtype=np.float32)); grid, block = 1024, 256
out = cp.zeros(grid * block, dtype=cp.float32)
fns = {}
for p in sorted(glob.glob(os.path.join(d, "*.ptx"))):
    name = os.path.basename(p)[:-4]
    k = cp.RawModule(path=p).get_function(name.rsplit("_", 1)[0])
    args = (out, np.uint64(out.size), x, np.uint64(n))
    fns[name] = (lambda k=k, args=args: k((grid,), (block,), args))
s = cp.cuda.Stream.null
want_all = float(x.astype(cp.float64).sum()); want_c = float(x[256:].astype(cp.float64).sum())
for name, f in fns.items():
    out.fill(0); f(); s.synchronize()
    tot = float(out.astype(cp.float64).sum()); want = want_c if "1c" in name else want_all
    print(f"check {name}: {tot:.1f} vs {want:.1f}", "OK" if abs(tot - want) / want < 1e-4 else "WRONG")
times = {k: [] for k in fns}
e0, e1 = cp.cuda.Event(), cp.cuda.Event()
order = list(fns)
for r in range(rounds):
    for name in (order if r % 2 == 0 else order[::-1]):
        f = fns[name]
        for _ in range(3): f()
        e0.record()
        for _ in range(10): f()
        e1.record(); e1.synchronize()
        times[name].append(cp.cuda.get_elapsed_time(e0, e1) / 10)
for name in order:
    m = np.median(times[name])
    print(f"{name:14s} {m*1000:8.2f} us  {n*4/m/1e6:8.1f} GB/s")
for base in sorted({k.rsplit('_', 1)[0] for k in order}):
    on, off = np.median(times[base + "_on"]), np.median(times[base + "_off"])
    print(f"{base:10s} nounroll/without (throughput) {off/on:.3f}")
