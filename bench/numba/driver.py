"""The Numba side of the benchmark harness: a long-lived process that the Rust harness
(bench/src/numba.rs) drives over stdin/stdout, one command per line, one reply line per
command. Run from the repository root: `python3 bench/numba/driver.py`.

On start it prints one line: `ready numba-cuda <version> <GPU name>`, or `error <message>`
(numba missing, no GPU) and exits. Then, per line on stdin:

  setup <kernel> <dir>       load <dir>/params.json and <dir>/<array>.bin (raw little-endian),
                             copy to the device, JIT-compile and run the kernel once, compare
                             each checked output with <dir>/expected_<array>.bin within the
                             tolerance in params.json; reply `ok` or `error <message>`.
                             The directory is not read again after the reply.
  time <kernel>              run the set-up kernel once: reset the arrays params.json lists
                             under "restore", launch the guard kernel, then the kernel between
                             two CUDA events; reply the milliseconds between the events.
  launchcost <kernel> <n>    host wall-clock microseconds per launch over n back-to-back
                             launches of the tiny variant (only saxpy: n = 1024, grid 4,
                             block 256); reply `<us>`.
  quit                       reply `bye` and exit.

Any failure is replied as one line `error <message>`; the process stays usable.

`python3 bench/numba/driver.py --cold`: import numba, launch saxpy once on 1024 random
elements, synchronize, print `first-kernel-done` and exit (for the time from process start to
the first kernel finished).

params.json (written by the Rust side):
  {"kernel": "saxpy", "grid": [gx, gy, gz], "block": [bx, by, bz], "shared_bytes": 0,
   "arrays": [{"name": "y", "dtype": "f32", "len": 67108864}, ...],
   "scalars": [{"name": "a", "dtype": "f32", "value": 1.25, "bits": 1067450368}, ...],
   "restore": ["y"],
   "check": [{"name": "y", "rtol": 1e-6, "atol": 0.0}]}
dtype is one of f32 f64 i32 u32 i64 u64; float scalars are read from "bits" (exact).
"""

import json
import os
import sys
import time

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

DTYPES = {"f32": "<f4", "f64": "<f8", "i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8"}
FLOAT_BITS = {"f32": "<u4", "f64": "<u8"}
SPIN_ITERS = 200  # about 200 us of guard: longer than Numba's host-side launch preparation
TINY_N = 1024


class Setup:
    """One kernel's device data and launch shape, as set up by `setup`."""

    def __init__(self, np, cuda, kernels, name, directory):
        with open(os.path.join(directory, "params.json")) as f:
            params = json.load(f)
        if params.get("kernel") != name:
            raise ValueError(f"params.json is for {params.get('kernel')!r}, not {name!r}")
        if name not in kernels.KERNELS:
            raise ValueError(f"unknown kernel {name!r}; known: {' '.join(kernels.KERNELS)}")
        self.np = np
        self.cuda = cuda
        self.kernel, arg_names = kernels.KERNELS[name]
        self.grid = tuple(int(g) for g in params["grid"])
        self.block = tuple(int(b) for b in params["block"])
        self.shared_bytes = int(params.get("shared_bytes", 0))

        self.arrays = {}
        for spec in params["arrays"]:
            host = np.fromfile(os.path.join(directory, spec["name"] + ".bin"),
                               dtype=DTYPES[spec["dtype"]])
            if len(host) != int(spec["len"]):
                raise ValueError(f"{spec['name']}.bin holds {len(host)} elements, "
                                 f"params.json says {spec['len']}")
            self.arrays[spec["name"]] = cuda.to_device(host)
        scalars = {}
        for spec in params["scalars"]:
            dtype = np.dtype(DTYPES[spec["dtype"]])
            if "bits" in spec:
                bits = np.array([int(spec["bits"])], dtype=FLOAT_BITS[spec["dtype"]])
                scalars[spec["name"]] = bits.view(dtype)[0]
            else:
                scalars[spec["name"]] = dtype.type(spec["value"])
        missing = [a for a in arg_names if a not in self.arrays and a not in scalars]
        if missing:
            raise ValueError(f"params.json lacks {', '.join(missing)}")
        self.args = [self.arrays[a] if a in self.arrays else scalars[a] for a in arg_names]
        # Pristine device copies of the arrays to reset before each run (in-place kernels,
        # accumulators).
        self.pristine = []
        for a in params.get("restore", []):
            copy = cuda.device_array_like(self.arrays[a])
            copy.copy_to_device(self.arrays[a])
            self.pristine.append((self.arrays[a], copy))

        self.launch()
        cuda.synchronize()
        for check in params.get("check", []):
            self.compare(directory, check)
        self.start = cuda.event()
        self.end = cuda.event()

    def restore(self):
        for dev, pristine in self.pristine:
            dev.copy_to_device(pristine)

    def launch(self):
        self.restore()
        self.kernel[self.grid, self.block, 0, self.shared_bytes](*self.args)

    def compare(self, directory, check):
        np = self.np
        name = check["name"]
        got = self.arrays[name].copy_to_host()
        want = np.fromfile(os.path.join(directory, f"expected_{name}.bin"), dtype=got.dtype)
        if want.shape != got.shape:
            raise ValueError(f"expected_{name}.bin holds {len(want)} elements, "
                             f"the output {len(got)}")
        if got.dtype.kind == "f":
            g = got.astype(np.float64)
            w = want.astype(np.float64)
            ok = np.abs(g - w) <= float(check.get("atol", 0.0)) + float(check.get("rtol", 0.0)) * np.abs(w)
        else:
            ok = got == want
        bad = np.flatnonzero(~ok)
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"{name}: {len(bad)} of {len(got)} elements differ from Cuprum's "
                             f"beyond rtol {check.get('rtol', 0)} atol {check.get('atol', 0)}; "
                             f"first at {i}: Numba {got[i].item()!r}, Cuprum {want[i].item()!r}")

    def time_ms(self, spin):
        self.restore()
        spin[1, 1](SPIN_ITERS)
        self.start.record()
        self.kernel[self.grid, self.block, 0, self.shared_bytes](*self.args)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end)


def random_f32(np, rng, n):
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    x[x == 0] = 0.5
    return x


class Driver:
    def __init__(self, np, cuda, kernels):
        self.np = np
        self.cuda = cuda
        self.kernels = kernels
        self.setups = {}
        self.tiny = None

    def setup(self, name, directory):
        self.setups.pop(name, None)
        self.setups[name] = Setup(self.np, self.cuda, self.kernels, name, directory)
        return "ok"

    def time(self, name):
        if name not in self.setups:
            raise ValueError(f"{name} is not set up")
        return f"{self.setups[name].time_ms(self.kernels.spin):.6f}"

    def launch_cost(self, name, iters):
        if name != "saxpy":
            raise ValueError(f"launchcost knows only saxpy, not {name!r}")
        np, cuda = self.np, self.cuda
        if self.tiny is None:
            rng = np.random.default_rng()
            self.tiny = (cuda.to_device(random_f32(np, rng, TINY_N)),
                         cuda.to_device(random_f32(np, rng, TINY_N)), np.float32(1.0001))
        y, x, a = self.tiny
        saxpy = self.kernels.saxpy
        for _ in range(10):
            saxpy[4, 256](y, x, a)
        cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            saxpy[4, 256](y, x, a)
        t1 = time.perf_counter()
        cuda.synchronize()
        return f"{(t1 - t0) * 1e6 / iters:.4f}"

    def handle(self, line):
        words = line.split()
        if not words:
            raise ValueError("empty command")
        cmd, rest = words[0], words[1:]
        if cmd == "setup" and len(rest) == 2:
            return self.setup(rest[0], rest[1])
        if cmd == "time" and len(rest) == 1:
            return self.time(rest[0])
        if cmd == "launchcost" and len(rest) == 2:
            return self.launch_cost(rest[0], int(rest[1]))
        raise ValueError(f"unknown command {line!r}")


def reply(text):
    sys.stdout.write(text.replace("\n", " | ") + "\n")
    sys.stdout.flush()


def import_numba():
    """numpy, numba.cuda and the kernels module, or exits with an `error` line."""
    try:
        import numpy as np

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import kernels
        from numba import cuda
    except Exception as e:  # noqa: BLE001 - any import failure is reported the same way
        reply(f"error numba is not importable in {sys.executable}: {type(e).__name__}: {e}")
        sys.exit(1)
    if not cuda.is_available():
        reply("error numba-cuda sees no GPU (cuda.is_available() is False)")
        sys.exit(1)
    return np, cuda, kernels


def cold():
    np, cuda, kernels = import_numba()
    rng = np.random.default_rng()
    y = cuda.to_device(random_f32(np, rng, TINY_N))
    x = cuda.to_device(random_f32(np, rng, TINY_N))
    kernels.saxpy[4, 256](y, x, np.float32(1.0001))
    cuda.synchronize()
    reply("first-kernel-done")


def serve():
    np, cuda, kernels = import_numba()
    from importlib.metadata import version

    name = getattr(cuda.get_current_device(), "name", "(simulator)")
    if isinstance(name, bytes):
        name = name.decode()
    reply(f"ready numba-cuda {version('numba-cuda')} {name}")
    driver = Driver(np, cuda, kernels)
    for line in sys.stdin:
        line = line.strip()
        if line == "quit":
            reply("bye")
            return
        try:
            reply(driver.handle(line))
        except Exception as e:  # noqa: BLE001 - every failure becomes an error reply
            reply(f"error {type(e).__name__}: {e}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--cold"]:
        cold()
    else:
        serve()
