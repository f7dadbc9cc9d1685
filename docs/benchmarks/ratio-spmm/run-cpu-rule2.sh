#!/usr/bin/env bash
# The CPU rule of the ratio SpMM's auto, second form (docs/benchmarks/ratio-spmm.md): the fit set
# (transposes of the LDA corpora and minibatches, ml-100k, short-row and large-B shapes), then the
# check set, run after the rule was set. From the repository root, device build (or CPU build):
#   bash docs/benchmarks/ratio-spmm/run-cpu-rule2.sh build/device/apps/bench/fk-bench /tmp/mb.mtx /tmp/mb2000.mtx
# where mb.mtx is make_minibatch.py's 4096-document minibatch (checks/lda-minibatch) and
# mb2000.mtx the same for `fk-datagen lda --preset nytimes --docs 2000 --seed 7`.
set -euo pipefail
B=$1 MB=$2 MB2000=$3
kos=../shared/data/uci-kos/docword.kos.txt.gz
o="--device cpu --threads 2 --runs 5 --warmup 1"
fit="$o --variants pair,omp.ratio_spmm.rows,auto --csv cpu-2core-rule2-fit.csv"
for src in "--input $kos --name kos" "--preset nips" "--preset default" "--input $MB --name mb"; do
  $B ratio-spmm $src --op t --k 32,64,128,256 $fit
done
fit="$o --variants pair,omp.ratio_spmm.rows --csv cpu-2core-rule2-fit.csv"
$B ratio-spmm --preset ml-100k --op both --k 32,64,128,256 $fit
$B ratio-spmm --input $MB2000 --name nytimes-minibatch-2000-seed7 --op t --k 32,64,128,256 $fit
$B ratio-spmm --gen uniform:rows=200000,cols=2000,nnz=2000000 --op n --k 32,64,128,256 $fit
$B ratio-spmm --gen uniform:rows=100000,cols=20000,nnz=2000000 --op t --k 64,128 $fit
$B ratio-spmm --gen powerlaw:rows=200000,cols=50000,nnz=2000000 --op t --k 64,128 $fit
$B ratio-spmm --gen banded:rows=50000,cols=50000,nnz=2000000 --op t --k 64,128 $fit
check="$o --variants pair,omp.ratio_spmm.rows --csv cpu-2core-rule2-check.csv"
$B ratio-spmm --input $kos --name kos --op both --k 50,100 $check
$B ratio-spmm --preset nips --op both --k 50,100 $check
$B ratio-spmm --gen uniform:rows=50000,cols=5000,nnz=1000000 --op both --k 64,100 $check
$B ratio-spmm --gen clustered:rows=30000,cols=10000,nnz=1500000 --op both --k 64,100 $check
$B ratio-spmm --gen powerlaw:rows=100000,cols=100000,nnz=1000000 --op both --k 64,100 $check
$B ratio-spmm --preset ml-100k --op both --k 48,80 $check
