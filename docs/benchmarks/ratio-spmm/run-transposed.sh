#!/usr/bin/env bash
# The ratio SpMM over Sᵀ (fk-lda's statistics, `--op t`) against its pair, and the long-row split on
# the power-law matrix that the row kernel alone ran 50x slower (docs/benchmarks/ratio-spmm.md).
# Here, from the repository root, first: ninja -C build/device fk-bench; the LDA minibatches of
# run-h100.sh and run-out-of-sample.sh (mb.mtx.xz, mb16.mtx.xz) and data/uci-kos in .carry/, with
# bin.tar.xz (fk-bench) and lib/. On the device machine: bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
xz -dc .carry/mb16.mtx.xz > /tmp/mb16.mtx
o="--k 32,64,128,256 --runs 10 --csv $OUT/transposed.csv"
$B ratio-spmm --input /tmp/mb.mtx --name lda-nytimes-minibatch --op both $o
$B ratio-spmm --input /tmp/mb16.mtx --name lda-nytimes-minibatch-16384 --op t $o
$B ratio-spmm --input .carry/data/uci-kos/docword.kos.txt.gz --name kos --op t $o
$B ratio-spmm --preset nips --op t $o
$B ratio-spmm --preset default --op t $o
$B ratio-spmm --preset ml-20m --op t $o
$B ratio-spmm --gen uniform:rows=500000,cols=100000,nnz=30000000 --op t $o
$B ratio-spmm --gen clustered:rows=300000,cols=50000,nnz=15000000 --op t $o
$B ratio-spmm --gen powerlaw:rows=1000000,cols=1000000,nnz=20000000 --k 16,32,64 --runs 10 \
  --variants pair,cuda.ratio_spmm.fused --csv $OUT/transposed.csv
