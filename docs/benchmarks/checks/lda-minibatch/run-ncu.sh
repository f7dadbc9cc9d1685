#!/usr/bin/env bash
# GPU time per kernel of fk-lda on two nytimes-shaped minibatches (4096 documents each, K = 256,
# the E-step and λ update of configs/lda-nytimes.ini), two passes, under Nsight Compute (one
# duration metric, clocks left alone). fk-lda (device build) in .carry/bin; on the device machine,
# from the repository root: bash docs/benchmarks/checks/lda-minibatch/run-ncu.sh > summary.txt
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib
ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
  .carry/bin/fk-lda --input gen:nytimes:docs=8192 --topics 256 --batch-size 4096 --inner-iters 5 \
  --tol 0 --holdout-frac 0 --eval-every 0 --device gpu --out /tmp/o --iters 2 2>&1 | grep -v "==PROF=="
