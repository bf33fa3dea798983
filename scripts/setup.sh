#!/usr/bin/env bash
# Installs what building and testing Cuprum needs, skipping whatever is already there:
#   - LLVM 22 (Debian's llvm-22-dev, libpolly-22-dev), which the compiler links;
#   - ptxas and libdevice, from the PyPI wheel nvidia-cuda-nvcc-cu12 (no CUDA toolkit needed).
# Safe to run again and again.
set -euo pipefail

NVCC_WHEEL="nvidia-cuda-nvcc-cu12==12.9.86"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if [ -x /usr/lib/llvm-22/bin/llvm-config ] && [ -e /usr/lib/llvm-22/lib/libLLVM.so ]; then
  echo "setup: LLVM 22 present ($(/usr/lib/llvm-22/bin/llvm-config --version))"
else
  echo "setup: installing LLVM 22 (llvm-22-dev, libpolly-22-dev)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-22-dev libpolly-22-dev >/dev/null
fi

has_wheel() {
  python3 - <<'PY' 2>/dev/null
import importlib.util, sys
spec = importlib.util.find_spec("nvidia.cuda_nvcc")
sys.exit(0 if spec else 1)
PY
}

if has_wheel; then
  echo "setup: ptxas and libdevice present (nvidia-cuda-nvcc-cu12)"
else
  echo "setup: installing ptxas and libdevice ($NVCC_WHEEL)"
  python3 -m pip install --quiet --disable-pip-version-check "$NVCC_WHEEL"
fi
