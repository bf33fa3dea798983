#!/usr/bin/env bash
# Sets up what is missing, then runs every test that needs no GPU: codegen unit tests, PTX
# snapshots, ptxas validation, UI tests, and the kernel tests (on the simulator without a GPU).
# CI=true makes insta fail on an unreviewed snapshot instead of writing a new one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CI="${CI:-true}"
cargo test --workspace --locked
