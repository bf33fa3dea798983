#!/usr/bin/env bash
# Builds what call.sh carries, into .dev-w3/: main's bench_cub, and bench_cub and the
# gpu_algorithms test binary with wide3.patch applied. Run from the repository root on a clean
# work tree after scripts/setup.sh (~4 min on 2 cores). No gpu-pack needed.
set -euo pipefail
D=bench/experiments/2026-12-07-wide3
git diff --quiet || { echo "prepare.sh: the work tree has changes" >&2; exit 1; }
grep -qxF '/.dev-*/' .git/info/exclude || echo '/.dev-*/' >> .git/info/exclude
mkdir -p .dev-w3 && cp $D/call.sh .dev-w3/
cargo build --release -p cuprum-bench --bin bench_cub && cp target/release/bench_cub .dev-w3/main-bench_cub
git apply $D/wide3.patch
trap 'git apply -R $D/wide3.patch' EXIT
cargo build --release -p cuprum-bench --bin bench_cub && cp target/release/bench_cub .dev-w3/w3-bench_cub
t=$(cargo test --release --test gpu_algorithms --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l) if l.startswith("{") else {}
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="gpu_algorithms": print(m["executable"])' | tail -1)
cp "$t" .dev-w3/w3-test-gpu_algorithms
strip .dev-w3/*-bench_cub .dev-w3/w3-test-gpu_algorithms
ls -la .dev-w3
echo "next: run(command: 'bash .dev-w3/call.sh', carry: ['.dev-w3'])"
