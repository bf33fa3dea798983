"""(run 3 adds `swap`: the fast copy alone with its first two loads issued in nvcc's order, in[idx+1]
first; `nvbase`: the same with nvcc's base address &in[idx-1] and offsets +8, 0.)
laplace (8192 x 8192, block (32, 8)) as nvcc -O3 builds bench/cuda/laplace.cu and as PTX
variants of Cuprum's: main's and this branch's unchecked kernels, main's and this branch's
checked kernels with the launch's flag set (their fast copy), and this branch's checked kernel
with the checked body cut out by hand (the fast copy alone: 39 SASS instructions, 16 registers,
as nvcc's). Same data and launch, interleaved, CUDA events, median of ROUNDS. Run from the
repository root with the PTX files in .dev-guard32/."""
import sys, numpy as np, cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
nx = ny = 8192
rng = np.random.default_rng(3)
inp = cp.asarray(rng.random(nx * ny, dtype=np.float32) * 2 - 1)
fns, out = {}, {}
fns["nvcc"] = cp.RawModule(code=open("bench/cuda/laplace.cu").read(), backend="nvcc",
                           options=("-O3", "-arch=sm_90")).get_function("laplace")
import os
for v in os.environ.get("VARIANTS", "main_u,new_u,main_c,new_c,fastonly").split(","):
    # `X.cubin`: laplace.X.ptx assembled offline by the device's ptxas (run 4), not JIT-compiled.
    f = f".dev-guard32/laplace.{v}.ptx"
    if v.endswith(".cubin"):
        f = f".dev-guard32/{v}"
    fns[v] = cp.RawModule(path=f).get_function("laplace")
for v in fns:
    out[v] = cp.zeros(nx * ny, np.float32)
n = np.uint64(nx * ny)
def launch(v):
    if v.startswith("nvcc"):
        args = (out[v], n, inp, n, np.int32(nx), np.int32(ny))
    elif v.endswith("_u"):
        args = (out[v], n, inp, n, np.uint64(nx), np.uint64(ny))
    else:
        args = (out[v], n, inp, n, np.uint64(nx), np.uint64(ny), np.uint32(1), np.uint64(0))
    fns[v]((nx // 32, ny // 8), (32, 8), args)
for v in fns:
    for _ in range(3):
        launch(v)
cp.cuda.runtime.deviceSynchronize()
ref = cp.asnumpy(out["nvcc"])
for v in fns:
    same = np.array_equal(cp.asnumpy(out[v]).view(np.uint32), ref.view(np.uint32))
    print(f"{v}: bit-identical to nvcc: {same}", flush=True)
t = {v: [] for v in fns}
s0, s1 = cp.cuda.Event(), cp.cuda.Event()
order = list(fns)
for r in range(rounds):
    for v in (order if r % 2 == 0 else order[::-1]):
        s0.record(); launch(v); s1.record(); s1.synchronize()
        t[v].append(cp.cuda.get_elapsed_time(s0, s1))
for v in fns:
    m = float(np.median(t[v]))
    print(f"laplace {v:8s} {m * 1e3:8.2f} us {8.0 * nx * ny / m / 1e6:8.1f} GB/s  vs nvcc {np.median(t['nvcc']) / m:6.3f}", flush=True)
