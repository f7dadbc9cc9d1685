#!/usr/bin/env bash
# Shapes no choice was made on, at small K (docs/benchmarks/ratio-spmm.md). Here, first, as for
# run-h100.sh, with a 16384-document minibatch: fk-datagen lda --preset nytimes --docs 16384 and
# make_minibatch.py into .carry/mb16.mtx.xz. On the device machine: bash <this script>.
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench
xz -dc .carry/mb16.mtx.xz > /tmp/mb16.mtx
o="--k 16,32,64 --runs 10 --variants cuda.ratio_spmm.fused --csv $OUT/oos.csv"
$B ratio-spmm --input /tmp/mb16.mtx --name lda-nytimes-minibatch-16384 $o
$B ratio-spmm --preset ml-20m $o
$B ratio-spmm --preset netflix $o
$B ratio-spmm --gen powerlaw:rows=1000000,cols=1000000,nnz=20000000 $o
$B ratio-spmm --gen uniform:rows=500000,cols=100000,nnz=30000000 $o
$B ratio-spmm --gen clustered:rows=300000,cols=50000,nnz=15000000 $o
