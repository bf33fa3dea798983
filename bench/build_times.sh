#!/usr/bin/env bash
# Build time per kernel on this machine: the time each #[kernel] spends in the macro (checking,
# lowering, LLVM's O3 passes, PTX emission), recorded through CUPRUM_BUILD_TIMES while the
# bench crate and the examples are rebuilt in release mode. Prints one line per kernel and a
# summary. Usage: bash bench/build_times.sh [ROUNDS] (default 3; the median of the rounds is
# reported per kernel).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
cargo build --release -p cuprum-bench --examples --bins -q 2>/dev/null || cargo build --release -p cuprum-bench -q
cargo build --release --examples -q
for _ in $(seq "$rounds"); do
    # Touching the sources makes cargo re-expand every kernel in them, in a fresh rustc.
    touch bench/src/kernels.rs bench/src/saxpy.rs examples/*.rs
    CUPRUM_BUILD_TIMES="$out" cargo build --release -p cuprum-bench -q
    CUPRUM_BUILD_TIMES="$out" cargo build --release --examples -q
done
python3 - "$out" "$rounds" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, ms = line.rstrip("\n").split("\t")
    times.setdefault(name, []).append(float(ms))
rows = sorted((statistics.median(v), k) for k, v in times.items())
for ms, name in rows:
    print(f"{name:32s} {ms:8.1f} ms")
all_ms = [ms for ms, _ in rows]
print(f"\n{len(rows)} kernels, median of {sys.argv[2]} builds each: "
      f"median {statistics.median(all_ms):.1f} ms, max {max(all_ms):.1f} ms, "
      f"{sum(1 for m in all_ms if m <= 30)} of {len(all_ms)} at or under 30 ms")
PY
