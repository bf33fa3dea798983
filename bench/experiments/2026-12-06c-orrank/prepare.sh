#!/usr/bin/env bash
# Builds what call1.sh/call2.sh/call3.sh carry, from main: .gpuz/gpu.tar.xz (gpu-pack of main)
# and, in .dev-lead/, the A/B binaries (or, orwide, orpairs: bench_cub with the atomic-or
# ranking patches; r6: bench with the reduce6 copy-again patch) and the scripts.
# Run from the repository root after scripts/setup.sh, on a clean work tree. ~12 min on 2 cores.
set -euo pipefail
D=bench/experiments/2026-12-06c-orrank
git diff --quiet || { echo "prepare.sh: the work tree has changes" >&2; exit 1; }
for p in /.gpu/ /.gpuz/ '/.dev-*/'; do grep -qxF "$p" .git/info/exclude || echo "$p" >> .git/info/exclude; done
[ -n "${SKIP_PACK:-}" ] || ../shared/tools/gpu-pack
mkdir -p .gpuz .dev-lead; [ -n "${SKIP_PACK:-}" ] || tar cJf .gpuz/gpu.tar.xz .gpu
cp $D/call*.sh $D/common.sh .dev-lead/
b() { cargo build --release -p cuprum-bench --bin "$2"; cp "target/release/$2" ".dev-lead/$1"; strip ".dev-lead/$1"; }
git apply $D/1-or-keys256.patch && b or-bench_cub bench_cub
git apply $D/2-orwide14-on-1.patch && b orwide-bench_cub bench_cub && git apply -R $D/2-orwide14-on-1.patch
git apply $D/3-orpairs14-on-1.patch && b orpairs-bench_cub bench_cub
git checkout -- runtime
git apply bench/experiments/2026-12-06-reduce6-copy-again.patch && b r6-bench bench
git checkout -- codegen
ls -la .gpuz .dev-lead
echo "next: run(command: 'bash .dev-lead/call1.sh', carry: ['.gpuz', '.dev-lead'])"
