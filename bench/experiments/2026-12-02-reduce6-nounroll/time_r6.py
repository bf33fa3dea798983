"""reduce6 variants (Cuprum checked/unchecked, with ld.global.nc and with plain ld.global) and
Numba's reduce6, same data and launch (2^26 f32, grid 1024, block 256), interleaved, CUDA events."""
import sys, glob, os, numpy as np
sys.path.insert(0, "bench/numba")
import kernels as nk  # sets numpy.row_stack
import cupy as cp
from numba import cuda
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 50
d = os.path.dirname(__file__)
rng = np.random.default_rng(11)
n = 1 << 26
x = cp.asarray(rng.random(n, dtype=np.float32)); grid, block = 1024, 256
out = cp.zeros(grid, dtype=cp.float32)
rec_info = cp.zeros(16, dtype=cp.uint64); rec = cp.zeros(2, dtype=cp.uint64); rec[1] = rec_info.data.ptr
ref = x.reshape(grid, -1).sum()  # total only
fns = {}
for p in sorted(glob.glob(os.path.join(d, "*.ptx"))):
    name = os.path.basename(p)[:-4]
    m = cp.RawModule(path=p)
    k = m.get_function("reduce6_256")
    args = (out, np.uint64(grid), x, np.uint64(n)) + ((rec,) if "unchecked" not in name else ())
    fns[name] = (lambda k=k, args=args: k((grid,), (block,), args))
xn = cuda.as_cuda_array(x); on = cuda.as_cuda_array(out)
kern = nk.reduce6[grid, block]
fns["numba"] = lambda: kern(on, xn)
s = cp.cuda.Stream.null
for name, f in fns.items():
    out.fill(0); f(); s.synchronize()
    tot = float(out.sum()); want = float(x.sum())
    print(f"check {name}: {tot:.1f} vs {want:.1f}", "OK" if abs(tot - want) / want < 1e-4 else "WRONG")
times = {k: [] for k in fns}
e0, e1 = cp.cuda.Event(), cp.cuda.Event()
for r in range(rounds):
    for name, f in fns.items():
        for _ in range(3): f()
        e0.record(); 
        for _ in range(10): f()
        e1.record(); e1.synchronize()
        times[name].append(cp.cuda.get_elapsed_time(e0, e1) / 10)
base = np.median(times["numba"])
for name in fns:
    m = np.median(times[name])
    print(f"{name:28s} {m*1000:8.2f} us  {n*4/m/1e6:8.1f} GB/s  vs numba {base/m:.3f}")
out_dir = os.environ.get("OUT")
if out_dir:
    for sig, asm in nk.reduce6.inspect_asm().items():
        open(os.path.join(out_dir, "numba_reduce6.ptx"), "w").write(asm)
