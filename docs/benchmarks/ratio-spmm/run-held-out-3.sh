#!/usr/bin/env bash
# The third form of the GPU ratio rule (kernels/select.cpp: many tiny rows, or small skewed
# matrices, at small K -> the pair) on shapes none of the fits saw (docs/benchmarks/ratio-spmm.md).
# Here: fk-bench in .carry/bin.tar.xz, lib/, mb1k.mtx.xz (a 1000-document nytimes minibatch:
# checks/lda-minibatch/make_minibatch.py), dlmc/ (two DLMC layers); on the device machine:
# bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench
xz -dc .carry/mb1k.mtx.xz > /tmp/mb1k.mtx
o="--k 32,64,128,256 --runs 10 --variants pair,cuda.ratio_spmm.fused,auto --csv $OUT/held-out-3.csv"
for src in "--input /tmp/mb1k.mtx --name mb1k" "--gen uniform:rows=100000,cols=1000,nnz=800000" \
           "--gen powerlaw:rows=30000,cols=30000,nnz=300000" "--gen clustered:rows=200000,cols=10000,nnz=2000000" \
           "--input .carry/dlmc/final_dense.smtx --name dlmc-0.9-final_dense" \
           "--input .carry/dlmc/b2g3-0.7.smtx --name dlmc-0.7-b2g3"; do
  timeout 120 $B ratio-spmm $src --op both $o > /dev/null 2>&1 || echo "failed: $src"
done
for src in "--gen powerlaw:rows=100000,cols=100000,nnz=500000" "--gen banded:rows=1000000,cols=1000000,nnz=8000000" \
           "--preset netflix"; do
  timeout 150 $B ratio-spmm $src --op n $o > /dev/null 2>&1 || echo "failed: $src"
done
