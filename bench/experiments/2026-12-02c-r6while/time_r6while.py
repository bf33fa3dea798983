"""r6while branch (not yet run): counted `while` with a branch-free body, main's lowering (the
`while` form, `nounroll`) against the branch's (the stepped `for`'s form; its PTX is the `for`'s
but for .loc lines), timed as time3.py of 2026-12-02c-unroll does: 10 back-to-back launches
per event pair, and one launch after a 200 us spin kernel (the bench's way). 2^26 f32, grid
1024 x 256, interleaved rounds, medians. Unchecked PTX from this branch's codegen
(dump_test.rs.txt): rs_* = reduce_sum's kernel (entry reduce_sum), lo_* = the loop-only
kernel (entry k, `max_threads = 256`), r6_main = reduce6's body (entry reduce6; the same PTX
from both builds: the control). Run: python3 time_r6while.py [rounds]"""
import sys, glob, os, numpy as np
import cupy as cp
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
d = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
n = 1 << 26
x = cp.asarray(rng.random(n, dtype=np.float32)); grid, block = 1024, 256
out = cp.zeros(grid * block, dtype=cp.float32)
spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long ns){ long long t0 = clock64(); while (clock64() - t0 < ns * 2) {} }''', "spin")
entry = {"rs": "reduce_sum", "lo": "k", "r6": "reduce6"}
fns, wants = {}, {}
xs = cp.asnumpy(x).astype(np.float64)
for p in sorted(glob.glob(os.path.join(d, "*.ptx"))):
    name = os.path.basename(p)[:-4]
    kind = name.split("_", 1)[0]
    k = cp.RawModule(path=p).get_function(entry[kind])
    # (out, out.len, x, x.len) for every kernel; reduce6 writes out[block], k out[b*256+t],
    # reduce_sum adds into out[0].
    args = (out, np.uint64(out.size), x, np.uint64(n))
    fns[name] = (lambda k=k, args=args: k((grid,), (block,), args))
want = float(xs.sum())
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
    print(f"{name:18s} b2b {np.median(b2b[name])*1000:8.2f} us  single {np.median(single[name])*1000:8.2f} us")
for mode, t in (("b2b", b2b), ("single", single)):
    med = lambda k: np.median(t[k])
    print(f"{mode:6s} branch/main (time ratio main/branch): rs while {med('rs_while_main')/med('rs_while_branch'):.3f}"
          f"  lo while {med('lo_while_main')/med('lo_while_branch'):.3f}"
          f"  | rs for_main/while_branch {med('rs_for_main')/med('rs_while_branch'):.3f} (expect 1.000: same PTX)")
