"""nbody (unchecked, main's PTX) with its 64-bit inner-loop counter, the same PTX with a 32-bit
counter and shared address (hand-edited), and nvcc -O3's build of bench/cuda/nbody.cu: same
bodies, same launch, interleaved, CUDA events, median of ROUNDS. Run from the repository root
with the two PTX files in .dev-stencil/ (bench/NOTES.md §22). The rate printed is TFLOP/s
(labelled GFLOP/s in run 1)."""
import sys, numpy as np, cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
n, eps2 = 1 << 16, np.float32(0.01)
rng = np.random.default_rng(7)
body = np.empty((n, 4), np.float32)
body[:, :3] = rng.random((n, 3), dtype=np.float32) * 2 - 1
body[:, 3] = rng.random(n, dtype=np.float32) + 0.5
db = cp.asarray(body.ravel())
acc = {}
fns = {}
for v in ["base", "iv32"]:
    fns[v] = cp.RawModule(path=f".dev-stencil/nbody.{v}.ptx").get_function("nbody")
src = open("bench/cuda/nbody.cu").read()
fns["nvcc"] = cp.RawModule(code=src, backend="nvcc", options=("-O3", "-arch=sm_90")).get_function("nbody")
for v in fns:
    acc[v] = cp.full(3 * n, np.nan, np.float32)
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
    print(f"nbody {v:5s} {m:8.3f} ms {flops / m / 1e9:9.1f} TFLOP/s  vs nvcc {np.median(t['nvcc']) / m:6.3f}  vs base {np.median(t['base']) / m:6.3f}", flush=True)
