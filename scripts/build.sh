#!/usr/bin/env bash
# Configures and builds factorkit (Release) into build/release. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
# Only factorkit's own configure lines (GPU code on or CPU-only, and why) are shown.
cmake --preset release "$@" | { grep '^-- factorkit:' || true; }
cmake --build --preset release
