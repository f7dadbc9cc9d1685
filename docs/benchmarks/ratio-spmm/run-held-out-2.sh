#!/usr/bin/env bash
# The GPU ratio rule refitted in session 25 (kernels/select.cpp: small B or tiny rows -> the pair)
# on shapes neither fit saw (docs/benchmarks/ratio-spmm.md). Here: fk-bench in .carry/bin.tar.xz,
# lib/, data/ (scripts/device_pack.sh), mb2k.mtx.xz (a 2000-document nytimes minibatch,
# checks/lda-minibatch/make_minibatch.py); on the device machine: bash <this script> ($OUT).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench
D=.carry/data
xz -dc .carry/mb2k.mtx.xz > /tmp/mb2k.mtx
o="--k 32,64,128,256 --runs 10 --variants pair,cuda.ratio_spmm.fused,auto --csv $OUT/held-out-2.csv"
for src in "--input /tmp/mb2k.mtx --name mb2k" "--input $D/uci-kos/docword.kos.txt.gz --name kos-real" \
           "--input $D/movielens-100k/u.data --name ml-100k-real" \
           "--gen uniform:rows=50000,cols=2000,nnz=1000000" "--gen powerlaw:rows=500000,cols=100000,nnz=4000000" \
           "--gen clustered:rows=50000,cols=100000,nnz=2000000"; do
  timeout 120 $B ratio-spmm $src --op both $o > /dev/null 2>&1 || echo "failed: $src"
done
for src in "--gen banded:rows=200000,cols=200000,nnz=6000000" "--input $D/suitesparse/hep-th.mtx" \
           "--input $D/suitesparse/bcsstk13.mtx" "--input $D/suitesparse/delaunay_n14.mtx"; do
  timeout 120 $B ratio-spmm $src --op n $o > /dev/null 2>&1 || echo "failed: $src"
done
