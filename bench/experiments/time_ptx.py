"""Times PTX variants of the bench kernels with CuPy: same data, same launch, interleaved,
CUDA events, median. Usage: python3 time_ptx.py DIR [ROUNDS]"""
import glob, os, re, sys
import numpy as np, cupy as cp

d = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
rng = np.random.default_rng(7)
rec_info = cp.zeros(16, dtype=cp.uint64)
rec = cp.zeros(2, dtype=cp.uint64)
rec[1] = rec_info.data.ptr

def u(a): return np.uint64(a.size)

def setup(name):
    f32 = np.float32
    if name == "transpose":
        n = 8192
        inp = cp.asarray(rng.random(n * n, dtype=f32)); out = cp.empty_like(inp)
        args = [out, u(out), inp, u(inp), np.uint32(n), np.uint32(n)]
        return args, (n // 32, n // 32), (32, 8), 2 * n * n * 4, lambda: cp.array_equal(out.reshape(n, n), inp.reshape(n, n).T)
    if name == "sgemm":
        n = 4096
        a = cp.asarray(rng.random(n * n, dtype=f32)); b = cp.asarray(rng.random(n * n, dtype=f32)); c = cp.empty_like(a)
        args = [c, u(c), a, u(a), b, u(b), np.uint32(n), np.uint32(n), np.uint32(n)]
        ref = (a.reshape(n, n) @ b.reshape(n, n))
        return args, (n // 32, n // 32), (32, 32), 2 * n**3, lambda: float(cp.max(cp.abs(c.reshape(n, n) - ref) / cp.abs(ref))) < 1e-3
    if name == "softmax":
        rows, cols = 65536, 1024
        x = cp.asarray(rng.random(rows * cols, dtype=f32) * 8 - 4); out = cp.empty_like(x)
        args = [out, u(out), x, u(x), np.uint32(cols)]
        xx = x.reshape(rows, cols); e = cp.exp(xx - xx.max(axis=1, keepdims=True)); ref = e / e.sum(axis=1, keepdims=True)
        return args, (rows,), (256,), 2 * rows * cols * 4, lambda: float(cp.max(cp.abs(out.reshape(rows, cols) - ref))) < 1e-5
    if name == "jacobi":
        n = 8192
        inp = cp.asarray(rng.random(n * n, dtype=f32)); out = cp.empty_like(inp)
        args = [out, u(out), inp, u(inp), np.uint32(n)]
        g = inp.reshape(n, n); ref = g.copy(); ref[1:-1, 1:-1] = 0.25 * ((g[:-2, 1:-1] + g[2:, 1:-1]) + (g[1:-1, :-2] + g[1:-1, 2:]))
        return args, (n // 32, n // 8), (32, 8), 2 * n * n * 4, lambda: float(cp.max(cp.abs(out.reshape(n, n) - ref))) < 1e-5
    if name == "black_scholes":
        n = 1 << 24
        s = cp.asarray((rng.random(n, dtype=f32) * 25 + 5)); x = cp.asarray(rng.random(n, dtype=f32) * 99 + 1); t = cp.asarray(rng.random(n, dtype=f32) * 9.75 + 0.25)
        call = cp.empty_like(s); put = cp.empty_like(s)
        args = [call, u(call), put, u(put), s, u(s), x, u(x), t, u(t), np.float32(0.02), np.float32(0.30)]
        return args, (n // 256,), (256,), 5 * n * 4, lambda: bool(cp.all(cp.isfinite(call)))
    raise ValueError(name)

guard_mod = cp.RawModule(code=r'''extern "C" __global__ void guard(long long ns){ long long t0=clock64(); while(clock64()-t0<ns){} }''')
guard = guard_mod.get_function("guard")

names = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(f"{d}/*.ptx")})
only = os.environ.get("ONLY")
for name in names:
    if only and name not in only.split(","):
        continue
    args, grid, block, work, ok = setup(name)
    variants = []
    for p in sorted(glob.glob(f"{d}/{name}.*.ptx")):
        v = os.path.basename(p).split(".")[1]
        src = open(p).read()
        entry = re.search(r"\.entry (\w+)\(", src).group(1)
        sig = src[src.index(f".entry {entry}("):]
        sig = sig[:sig.index(")")]
        nparams = sig.count(".param")
        fn = cp.RawModule(path=p).get_function(entry)
        a = list(args) + ([rec] if nparams == len(args) + 1 else [])
        assert len(a) == nparams, (p, nparams, len(a))
        variants.append((v, fn, a))
    times = {v: [] for v, _, _ in variants}
    for v, fn, a in variants:  # warm-up and check
        for _ in range(3):
            fn(grid, block, tuple(a))
        cp.cuda.runtime.deviceSynchronize()
        good = ok()
        flag = int(rec[0].get())
        print(f"  {name}.{v}: result {'ok' if good else 'WRONG'}, panic flag {flag}", flush=True)
    s0, s1 = cp.cuda.Event(), cp.cuda.Event()
    for r in range(rounds):
        order = variants if r % 2 == 0 else variants[::-1]
        for v, fn, a in order:
            guard((1,), (1,), (np.int64(400000),))
            s0.record(); fn(grid, block, tuple(a)); s1.record(); s1.synchronize()
            times[v].append(cp.cuda.get_elapsed_time(s0, s1))
    base = np.median(times["unchecked"]) if "unchecked" in times else None
    for v in times:
        m = np.median(times[v])
        print(f"{name:14s} {v:10s} {m*1e3:9.1f} us  {work/m/1e6:9.1f} G/s  unchecked/this {base/m:6.3f}", flush=True)
