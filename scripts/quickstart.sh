#!/usr/bin/env bash
# The main job: installs what is missing, builds, and trains LDA on the embedded default corpus on
# the GPU (when one is present) and on the CPU, printing time per pass for each, the speedup, the
# final held-out per-word log-likelihood and the top words of a few topics.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh
exec build/release/apps/lda/fk-lda --config configs/lda-default.ini --compare --out out/lda-default "$@"
