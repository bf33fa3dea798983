"""convolve_cols PTX variants against nvcc's kernel (NVRTC), CuPy, same data and launch,
interleaved, CUDA events, median. Usage: python3 time_cols.py DIR [ROUNDS]; NCU=1: one launch each."""
import glob, os, re, sys
import numpy as np, cupy as cp
d = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 100
ncu = os.environ.get("NCU") == "1"
rng = np.random.default_rng(7)
W, H = 8192, 4096
n = W * H
inp = cp.asarray(rng.random(n, dtype=np.float32) * 2 - 1)
out = cp.empty_like(inp)
rec_info = cp.zeros(16, dtype=cp.uint64); rec = cp.zeros(2, dtype=cp.uint64); rec[1] = rec_info.data.ptr
filt = np.array([1, 16, 120, 560, 1820, 4368, 8008, 11440, 12870, 11440, 8008, 4368, 1820, 560, 120, 16, 1], dtype=np.float32) / np.float32(65536)
g = inp.reshape(H, W); pad = cp.zeros((H + 16, W), dtype=cp.float32); pad[8:8 + H] = g
ref = cp.zeros((H, W), dtype=cp.float32)
for k in range(17):
    ref += cp.float32(filt[k]) * pad[k:k + H]
grid, block = (W // 16, H // 64), (16, 8)
base = [out, np.uint64(n), inp, np.uint64(n), np.uint32(W), np.uint32(H)]
variants = []
nv = cp.RawModule(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "conv.cubin")).get_function("convolve_cols")
variants.append(("nvrtc", nv, base))
only = os.environ.get("ONLY")
for p in sorted(glob.glob(f"{d}/*.ptx")):
    v = os.path.basename(p).split(".")[1]
    if only and v not in only.split(","):
        continue
    text = open(p).read()
    sig = text[text.index(".entry convolve_cols("):]; sig = sig[:sig.index(")")]
    np_ = sig.count(".param")
    a = list(base)
    if np_ == 8: a += [np.uint32(1), rec]
    elif np_ == 7: a += [rec]
    assert len(a) == np_, (p, np_)
    variants.append((v, cp.RawModule(path=p).get_function("convolve_cols"), a))
for v, fn, a in variants:
    out.fill(cp.nan); fn(grid, block, tuple(a)); cp.cuda.runtime.deviceSynchronize()
    err = float(cp.max(cp.abs(out.reshape(H, W) - ref)))
    print(f"{v}: max err {err:.2e} {'ok' if err < 1e-5 else 'WRONG'} panic {int(rec[0].get())}", flush=True)
if ncu:
    sys.exit(0)
guard = cp.RawModule(code=r'extern "C" __global__ void guard(long long ns){ long long t0=clock64(); while(clock64()-t0<ns){} }').get_function("guard")
times = {v: [] for v, _, _ in variants}
s0, s1 = cp.cuda.Event(), cp.cuda.Event()
for r in range(rounds):
    order = variants if r % 2 == 0 else variants[::-1]
    for v, fn, a in order:
        guard((1,), (1,), (np.int64(200000),))
        s0.record(); fn(grid, block, tuple(a)); s1.record(); s1.synchronize()
        times[v].append(cp.cuda.get_elapsed_time(s0, s1))
b = np.median(times["nvrtc"])
for v in times:
    m = np.median(times[v])
    print(f"convolve_cols {v:10s} {m*1e3:8.2f} us  {8*n/m/1e6:8.1f} GB/s  nvrtc/this {b/m:6.3f}  p10-p90 {np.percentile(times[v],10)*1e3:.1f}-{np.percentile(times[v],90)*1e3:.1f}", flush=True)
