"""Checks the reference kernels of the benchmark suite against numpy, on the GPU host, with no
Cuprum in the loop: every Numba kernel (bench/numba/kernels.py) and, given cubins that nvcc
built from bench/cuda/*.cu, every CUDA C++ kernel (launched through CuPy), on fresh random
data of the sizes in bench/SPEC.md, outputs poisoned before each run. `--driver` also drives
bench/numba/driver.py through its stdin/stdout protocol.

  python3 bench/check_refs.py [--small] [--cubins DIR] [--driver]

--small uses tiny sizes (for Numba's CPU simulator, NUMBA_ENABLE_CUDASIM=1). Prints one
line per check and ends with "N passed, N failed"; exits non-zero if any failed. The times it
prints (mean of 10 back-to-back launches) are a first look, not the harness's measurement.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

np.row_stack = np.vstack  # before numba is imported (see kernels.py)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "numba"))
import kernels  # noqa: E402
from numba import cuda  # noqa: E402

SPEC_SIZES = {
    "n_saxpy": 1 << 26, "n_reduce": 1 << 26, "n_hist": 1 << 26, "transpose": (8192, 8192),
    "gemm": 4096, "n_scan": 1 << 26, "softmax_rows": 65536, "jacobi": 8192, "n_bs": 1 << 24,
    "reduce_grid": 1024, "hist_grid": 1024,
}
SMALL_SIZES = {
    "n_saxpy": 1000, "n_reduce": 5000, "n_hist": 5000, "transpose": (64, 96),
    "gemm": 64, "n_scan": 2048, "softmax_rows": 3, "jacobi": 64, "n_bs": 1000,
    "reduce_grid": 2, "hist_grid": 2,
}
U32_POISON = 0xDEADBEEF


def uniform(rng, n, lo, hi):
    """n float32 uniform in [lo, hi), never zero."""
    x = rng.uniform(lo, hi, n).astype(np.float32)
    x[x == 0] = np.float32(hi / 2)
    return x


def poison_f32(n):
    return np.full(n, np.nan, dtype=np.float32)


def close(rtol, atol):
    """A checker: |got - ref| <= atol + rtol * |ref| everywhere (NaN fails)."""

    def check(got, ref):
        err = np.abs(got.astype(np.float64) - ref)
        ok = err <= atol + rtol * np.abs(ref)
        if ok.all():
            return True, f"max |err| {err.max():.3g}"
        i = int(np.flatnonzero(~ok)[0])
        return False, f"{(~ok).sum()} bad, first at {i}: {got[i]!r} vs {ref[i]!r}"

    return check


def exact(got, ref):
    ok = got == ref
    if ok.all():
        return True, "exact"
    i = int(np.flatnonzero(~ok)[0])
    return False, f"{(~ok).sum()} differ, first at {i}: {got[i]!r} vs {ref[i]!r}"


class Case:
    """One kernel: launch shape, arguments in order (arrays and scalars), and per output
    array a reference (array or function of the output) and a checker."""

    def __init__(self, name, cu_name, grid, block, shared, args, checks, bytes_moved=0, flops=0):
        self.name, self.cu_name = name, cu_name
        self.grid, self.block, self.shared = grid, block, shared
        self.args = args  # list of (name, numpy array or numpy scalar)
        self.checks = checks  # name -> function(output) -> (ok, detail)
        self.bytes_moved, self.flops = bytes_moved, flops


def cases(sz, rng):
    out = []

    n = sz["n_saxpy"]
    x, y, a = uniform(rng, n, -1, 1), uniform(rng, n, -1, 1), np.float32(rng.uniform(0.5, 1.5))
    ref = a.astype(np.float64) * x + y
    out.append(Case("saxpy", "saxpy", ((n + 255) // 256, 1, 1), (256, 1, 1), 0,
                    [("y", y), ("x", x), ("a", a)],
                    {"y": lambda g, ref=ref: close(1e-6, 1e-7)(g, ref)}, bytes_moved=12 * n))

    n = sz["n_reduce"]
    x = uniform(rng, n, 0, 1)
    ref = np.array([x.astype(np.float64).sum()])
    out.append(Case("reduce_sum", "reduce_sum", (sz["reduce_grid"], 1, 1), (256, 1, 1), 0,
                    [("out", np.zeros(1, np.float32)), ("x", x)],
                    {"out": lambda g, ref=ref: close(1e-4, 0)(g, ref)}, bytes_moved=4 * n))

    n = sz["n_hist"]
    data = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    ref = np.bincount(data & 255, minlength=256).astype(np.uint32)
    out.append(Case("histogram", "histogram", (sz["hist_grid"], 1, 1), (256, 1, 1), 0,
                    [("bins", np.zeros(256, np.uint32)), ("data", data)],
                    {"bins": lambda g, ref=ref: exact(g, ref)}, bytes_moved=4 * n))

    rows, cols = sz["transpose"]
    inp = uniform(rng, rows * cols, -1, 1)
    ref = inp.reshape(rows, cols).T.ravel()
    out.append(Case("transpose", "transpose", (cols // 32, rows // 32, 1), (32, 8, 1), 0,
                    [("out", poison_f32(rows * cols)), ("in", inp),
                     ("rows", np.uint32(rows)), ("cols", np.uint32(cols))],
                    {"out": lambda g, ref=ref: exact(g, ref)}, bytes_moved=8 * rows * cols))

    m = nn = k = sz["gemm"]
    a, b = uniform(rng, m * k, 0, 1), uniform(rng, k * nn, 0, 1)
    idx = rng.integers(0, m * nn, min(4096, m * nn))
    a2, b2 = a.reshape(m, k).astype(np.float64), b.reshape(k, nn).astype(np.float64)
    ref = np.einsum("ij,ji->i", a2[idx // nn], b2[:, idx % nn])

    def gemm_check(g, ref=ref, idx=idx):
        return close(1e-3, 0)(g[idx], ref)

    out.append(Case("sgemm_tiled", "sgemm", (nn // 32, m // 32, 1), (32, 32, 1), 0,
                    [("c", poison_f32(m * nn)), ("a", a), ("b", b),
                     ("m", np.uint32(m)), ("n", np.uint32(nn)), ("k", np.uint32(k))],
                    {"c": gemm_check}, flops=2 * m * nn * k))

    n = sz["n_scan"]
    inp = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    ref = np.cumsum(inp.reshape(-1, 1024), axis=1, dtype=np.uint32).ravel()
    out.append(Case("block_scan", "block_scan", (n // 1024, 1, 1), (512, 1, 1), 4096,
                    [("out", np.full(n, U32_POISON, np.uint32)), ("in", inp)],
                    {"out": lambda g, ref=ref: exact(g, ref)}, bytes_moved=8 * n))

    rows, cols = sz["softmax_rows"], 1024
    x = uniform(rng, rows * cols, -4, 4)
    x64 = x.reshape(rows, cols).astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = (e / e.sum(axis=1, keepdims=True)).ravel()
    out.append(Case("softmax_rows", "softmax", (rows, 1, 1), (256, 1, 1), 0,
                    [("out", poison_f32(rows * cols)), ("x", x), ("cols", np.uint32(cols))],
                    {"out": lambda g, ref=ref: close(1e-5, 1e-9)(g, ref)},
                    bytes_moved=8 * rows * cols))

    n = sz["jacobi"]
    inp = uniform(rng, n * n, -1, 1)
    g2 = inp.reshape(n, n)
    ref2 = g2.copy()
    ref2[1:-1, 1:-1] = np.float32(0.25) * ((g2[:-2, 1:-1] + g2[2:, 1:-1]) + (g2[1:-1, :-2] + g2[1:-1, 2:]))
    ref = ref2.ravel()
    out.append(Case("jacobi_2d", "jacobi", (n // 32, n // 8, 1), (32, 8, 1), 0,
                    [("out", poison_f32(n * n)), ("in", inp), ("n", np.uint32(n))],
                    {"out": lambda g, ref=ref: exact(g, ref)}, bytes_moved=8 * n * n))

    n = sz["n_bs"]
    s, xx, t = uniform(rng, n, 5, 30), uniform(rng, n, 1, 100), uniform(rng, n, 0.25, 10)
    r, v = np.float32(0.02), np.float32(0.30)
    call_ref, put_ref = black_scholes_ref(s, xx, t, r, v)
    out.append(Case("black_scholes", "black_scholes", ((n + 255) // 256, 1, 1), (256, 1, 1), 0,
                    [("call", poison_f32(n)), ("put", poison_f32(n)), ("s", s), ("x", xx),
                     ("t", t), ("r", r), ("v", v)],
                    {"call": lambda g, ref=call_ref: close(1e-4, 1e-4)(g, ref),
                     "put": lambda g, ref=put_ref: close(1e-4, 1e-4)(g, ref)},
                    bytes_moved=20 * n))
    return out


def black_scholes_ref(s, x, t, r, v):
    s, x, t, r, v = (np.asarray(q, dtype=np.float64) for q in (s, x, t, r, v))

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        c = 0.3989422804 * np.exp(-0.5 * d * d) * (k * (0.31938153 + k * (-0.356563782 + k * (
            1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
        return np.where(d > 0, 1.0 - c, c)

    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    exp_rt = np.exp(-r * t)
    return s * cnd(d1) - x * exp_rt * cnd(d2), x * exp_rt * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))


def run_numba(case):
    fn, names = kernels.KERNELS[case.name]
    given = [n for n, _ in case.args]
    assert list(names) == given, f"{case.name}: kernels.py args {names} vs {given}"
    dev = {n: cuda.to_device(v) for n, v in case.args if isinstance(v, np.ndarray)}
    args = [dev[n] if n in dev else v for n, v in case.args]
    launch = fn[case.grid, case.block, 0, case.shared]
    launch(*args)
    cuda.synchronize()
    outputs = {n: dev[n].copy_to_host() for n in case.checks}
    return outputs, lambda: time_launches(lambda: launch(*args))


def time_launches(launch, reps=10):
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return float("nan")
    launch()
    start, end = cuda.event(), cuda.event()
    start.record()
    for _ in range(reps):
        launch()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


def run_cupy(case, cubins):
    import cupy as cp

    module = cp.RawModule(path=os.path.join(cubins, case.name + ".cubin"))
    fn = module.get_function(case.cu_name)
    dev = {n: cp.asarray(v) for n, v in case.args if isinstance(v, np.ndarray)}
    args = []
    for n, v in case.args:
        if n in dev:
            args += [dev[n], np.uint64(len(v))]
        else:
            args.append(v)
    grid, block = case.grid, case.block

    def launch():
        fn(grid, block, tuple(args), shared_mem=case.shared)

    launch()
    cp.cuda.runtime.deviceSynchronize()
    outputs = {n: cp.asnumpy(dev[n]) for n in case.checks}

    def timing(reps=10):
        launch()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(reps):
            launch()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) / reps

    return outputs, timing


def rate(case, ms):
    if case.flops:
        return f"{case.flops / (ms * 1e-3) / 1e9:.0f} GFLOP/s"
    return f"{case.bytes_moved / (ms * 1e-3) / 1e9:.0f} GB/s"


def write_inputs(case, directory, expected, restore):
    """The directory the Rust harness would write for `setup`: arrays, params, expected."""
    arrays, scalars = [], []
    dtypes = {np.dtype(np.float32): "f32", np.dtype(np.uint32): "u32"}
    for n, v in case.args:
        if isinstance(v, np.ndarray):
            v.astype(v.dtype.newbyteorder("<")).tofile(os.path.join(directory, n + ".bin"))
            arrays.append({"name": n, "dtype": dtypes[v.dtype], "len": len(v)})
        else:
            entry = {"name": n, "dtype": dtypes[np.dtype(type(v))], "value": v.item()}
            if isinstance(v, np.float32):
                entry["bits"] = int(np.array([v]).view(np.uint32)[0])
            scalars.append(entry)
    checks = []
    for n, out in expected.items():
        out.tofile(os.path.join(directory, f"expected_{n}.bin"))
        # Numba against its own earlier output: bitwise but for the order of float atomics.
        checks.append({"name": n, "rtol": 1e-4 if out.dtype.kind == "f" else 0.0, "atol": 0.0})
    params = {"kernel": case.name, "grid": list(case.grid), "block": list(case.block),
              "shared_bytes": case.shared, "arrays": arrays, "scalars": scalars,
              "restore": restore, "check": checks}
    with open(os.path.join(directory, "params.json"), "w") as f:
        json.dump(params, f)


RESTORE = {"saxpy": ["y"], "reduce_sum": ["out"], "histogram": ["bins"]}


def check_driver(all_cases, expected, report):
    """Drives driver.py: setup (against Numba's own outputs from above), time, launchcost."""
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "numba", "driver.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(line):
        try:
            if line is not None:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            return proc.stdout.readline().strip()
        except OSError as e:
            return f"(driver gone: {e})"

    hello = ask(None)
    report(hello.startswith("ready"), "driver start", hello)
    for case in all_cases:
        if case.name not in expected:
            continue
        with tempfile.TemporaryDirectory() as d:
            write_inputs(case, d, expected[case.name], RESTORE.get(case.name, []))
            r = ask(f"setup {case.name} {d}")
        report(r == "ok", f"driver setup {case.name}", r)
        times = [ask(f"time {case.name}") for _ in range(3)]
        try:
            ok = all(float(t) > 0 or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" for t in times)
        except ValueError:
            ok = False
        report(ok, f"driver time {case.name}", " ".join(times))
    # A wrong expected output must be refused.
    case = all_cases[0]
    wrong = {n: out + np.float32(1.0) for n, out in expected[case.name].items()}
    with tempfile.TemporaryDirectory() as d:
        write_inputs(case, d, wrong, RESTORE.get(case.name, []))
        r = ask(f"setup {case.name} {d}")
    report(r.startswith("error"), "driver refuses a wrong result", r[:200])
    r = ask(f"launchcost saxpy {5 if os.environ.get('NUMBA_ENABLE_CUDASIM') == '1' else 500}")
    try:
        ok = float(r) > 0
    except ValueError:
        ok = False
    report(ok, "driver launchcost saxpy (us/launch)", r)
    report(ask("bogus").startswith("error"), "driver answers a bad command with error", "")
    report(ask("quit") == "bye", "driver quit", "")
    proc.wait(timeout=30)
    cold = subprocess.run([sys.executable, os.path.join(HERE, "numba", "driver.py"), "--cold"],
                          capture_output=True, text=True, timeout=300)
    report(cold.stdout.strip() == "first-kernel-done", "driver --cold", cold.stdout.strip())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--small", action="store_true")
    p.add_argument("--cubins")
    p.add_argument("--driver", action="store_true")
    p.add_argument("--only", nargs="*")
    opts = p.parse_args()
    rng = np.random.default_rng()
    counts = [0, 0]

    def report(ok, what, detail):
        counts[0 if ok else 1] += 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}", flush=True)

    all_cases = [c for c in cases(SMALL_SIZES if opts.small else SPEC_SIZES, rng)
                 if not opts.only or c.name in opts.only]
    expected = {}
    for case in all_cases:
        runners = [("numba", run_numba)]
        if opts.cubins:
            runners.append(("nvcc", lambda c: run_cupy(c, opts.cubins)))
        for who, runner in runners:
            try:
                outputs, timing = runner(case)
                results = [check(outputs[n]) for n, check in case.checks.items()]
                ok = all(r[0] for r in results)
                detail = "; ".join(r[1] for r in results)
                if ok:
                    ms = timing()
                    if ms == ms:
                        detail += f"; {ms:.3f} ms, {rate(case, ms)}"
                    if who == "numba":
                        expected[case.name] = outputs
                report(ok, f"{who} {case.name}", detail)
            except Exception as e:  # noqa: BLE001 - report and go on with the next
                report(False, f"{who} {case.name}", f"{type(e).__name__}: {e}")
    if opts.driver:
        check_driver(all_cases, expected, report)
    print(f"{counts[0]} passed, {counts[1]} failed")
    sys.exit(1 if counts[1] else 0)


if __name__ == "__main__":
    main()
