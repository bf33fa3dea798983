"""nbody_unchecked PTX variants (bench/NOTES.md, branch `nbody`): main's (64-bit counter, 2x),
the branch's (32-bit shared address and counter, 2x) and the branch's compiled with LLVM's
partial-unroll threshold raised (4x, 8x), against nvcc -O3's build of bench/cuda/nbody.cu:
same bodies and launch, interleaved, CUDA events, median of ROUNDS. Run from the repository
root with the PTX files in DIR (argv[2])."""
import sys, numpy as np, cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
d = sys.argv[2] if len(sys.argv) > 2 else ".dev-nbody"
names = sys.argv[3].split(",") if len(sys.argv) > 3 else ["main", "u2", "u4", "u8"]
n, eps2 = 1 << 16, np.float32(0.01)
rng = np.random.default_rng(7)
body = np.empty((n, 4), np.float32)
body[:, :3] = rng.random((n, 3), dtype=np.float32) * 2 - 1
body[:, 3] = rng.random(n, dtype=np.float32) + 0.5
db = cp.asarray(body.ravel())
fns = {v: cp.RawModule(path=f"{d}/nbody.{v}.ptx").get_function("nbody") for v in names}
src = open("bench/cuda/nbody.cu").read()
fns["nvcc"] = cp.RawModule(code=src, backend="nvcc", options=("-O3", "-arch=sm_90")).get_function("nbody")
acc = {v: cp.full(3 * n, np.nan, np.float32) for v in fns}
def launch(v):
    fns[v]((n // 256,), (256,), (acc[v], np.uint64(3 * n), db, np.uint64(4 * n), eps2))
for v in fns:
    for _ in range(3):
        launch(v)
cp.cuda.runtime.deviceSynchronize()
ref = cp.asnumpy(acc["nvcc"])
for v in fns:
    got = cp.asnumpy(acc[v])
    print(f"{v}: max rel diff vs nvcc {float(np.max(np.abs(got - ref) / (np.abs(ref) + 1e-3))):.2e}", flush=True)
t = {v: [] for v in fns}
s0, s1 = cp.cuda.Event(), cp.cuda.Event()
order = list(fns)
for r in range(rounds):
    for v in (order if r % 2 == 0 else order[::-1]):
        s0.record(); launch(v); s1.record(); s1.synchronize()
        t[v].append(cp.cuda.get_elapsed_time(s0, s1))
flops = 20.0 * n * n
for v in fns:
    m = float(np.median(t[v]))
    print(f"nbody {v:5s} {m:8.3f} ms {flops / m / 1e12:7.2f} TFLOP/s  vs nvcc {np.median(t['nvcc']) / m:6.3f}  vs main {np.median(t[names[0]]) / m:6.3f}", flush=True)
