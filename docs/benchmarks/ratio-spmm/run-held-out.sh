#!/usr/bin/env bash
# The GPU rule of the ratio SpMM's auto (kernels/select.cpp) on shapes it was not fitted on
# (docs/benchmarks/ratio-spmm.md). Here: ninja -C build/device fk-bench, bin.tar.xz and lib/ in
# .carry/; on the device machine: bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
o="--k 32,64,128,256 --runs 10 --variants pair,cuda.ratio_spmm.fused,auto --csv $OUT/held-out.csv"
$B ratio-spmm --preset ml-100k --op both $o
$B ratio-spmm --gen uniform:rows=300000,cols=30000,nnz=1500000 --op both $o
$B ratio-spmm --gen powerlaw:rows=200000,cols=200000,nnz=1500000 --op n $o
$B ratio-spmm --gen clustered:rows=100000,cols=20000,nnz=4000000 --op both $o
$B ratio-spmm --gen banded:rows=500000,cols=500000,nnz=5000000 --op n $o
