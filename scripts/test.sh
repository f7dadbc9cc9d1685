#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite through ctest. GPU tests skip
# themselves when no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh
ctest --preset release
