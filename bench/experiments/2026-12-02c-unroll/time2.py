"""unroll branch: the bench's reduce_sum / reduce6 unchecked PTX (main vs nounroll) and the loop-only
for1 kernel, timed two ways: 10 back-to-back launches per event pair, and one launch per event
pair after a 200 us spin kernel (the bench's way). 2^26 f32, grid 1024 x 256, interleaved, medians."""
import sys, glob, os, numpy as np
import cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
d = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
n = 1 << 26
x = cp.asarray(rng.random(n, dtype=np.float32)); grid, block = 1024, 256
out = cp.zeros(grid * block, dtype=cp.float32)
spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long ns){ long long t0 = clock64(); while (clock64() - t0 < ns * 2) {} }''', "spin")
entry = {"rs": "reduce_sum", "r6": "reduce6_256", "for1": "for1"}
fns = {}
for p in sorted(glob.glob(os.path.join(d, "*.ptx"))):
    name = os.path.basename(p)[:-4]
    base = name.rsplit("_", 1)[0]
    k = cp.RawModule(path=p).get_function(entry[base])
    if base == "r6": args = (out, np.uint64(grid), x, np.uint64(n))
    else: args = (out, np.uint64(out.size), x, np.uint64(n))
    fns[name] = (lambda k=k, args=args: k((grid,), (block,), args))
want = float(x.astype(cp.float64).sum())
for name, f in fns.items():
    out.fill(0); f(); cp.cuda.Stream.null.synchronize()
    tot = float(out.astype(cp.float64).sum())
    print(f"check {name}: {tot:.1f} vs {want:.1f}", "OK" if abs(tot - want) / want < 1e-4 else "WRONG")
b2b = {k: [] for k in fns}; single = {k: [] for k in fns}
e0, e1 = cp.cuda.Event(), cp.cuda.Event()
order = list(fns)
for r in range(rounds):
    for name in (order if r % 2 == 0 else order[::-1]):
        f = fns[name]
        for _ in range(2): f()
        e0.record()
        for _ in range(10): f()
        e1.record(); e1.synchronize()
        b2b[name].append(cp.cuda.get_elapsed_time(e0, e1) / 10)
        spin((1,), (1,), (np.int64(200000),))
        e0.record(); f(); e1.record(); e1.synchronize()
        single[name].append(cp.cuda.get_elapsed_time(e0, e1))
for name in order:
    print(f"{name:10s} b2b {np.median(b2b[name])*1000:8.2f} us  single {np.median(single[name])*1000:8.2f} us")
for base in ["rs", "r6", "for1"]:
    for mode, t in (("b2b", b2b), ("single", single)):
        print(f"{base:5s} {mode:6s} nounroll/main (throughput) {np.median(t[base + '_main'])/np.median(t[base + '_on']):.3f}")
