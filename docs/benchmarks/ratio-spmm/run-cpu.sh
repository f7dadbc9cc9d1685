#!/usr/bin/env bash
# The CPU side on this 2-core machine (docs/benchmarks/ratio-spmm.md), from the repository root,
# with the minibatches of run-h100.sh (/tmp/mb.mtx) and of 2000 documents (seed 7, /tmp/mb2k.mtx).
set -uo pipefail
B=build/device/apps/bench/fk-bench
o="--device cpu --threads 2 --runs 7"
fit="$o --variants omp.ratio_spmm.rows --csv cpu-2core-fit.csv"
$B ratio-spmm --input ../shared/data/uci-kos/docword.kos.txt.gz --name kos --k 20,50,100 $fit
$B ratio-spmm --preset nips --k 32,64,256 $fit
$B ratio-spmm --preset default --k 20,100 $fit
$B ratio-spmm --input /tmp/mb.mtx --name lda-nytimes-minibatch --k 32,100,256 $fit
$B ratio-spmm --gen uniform:rows=100000,cols=20000,nnz=2000000 --k 32,128 $fit
$B ratio-spmm --gen clustered:rows=100000,cols=20000,nnz=2000000 --k 32,128 $fit
check="$o --variants omp.ratio_spmm.rows,auto --csv cpu-2core-check.csv"
$B ratio-spmm --input ../shared/data/movielens-100k/u.data --name ml-100k --k 32,64 $check
$B ratio-spmm --input /tmp/mb2k.mtx --name nytimes-minibatch-2000 --k 24,48 $check
$B ratio-spmm --input ../shared/data/dlmc/rn50/magnitude_pruning/0.8/bottleneck_2_block_group3_1_1.smtx --name dlmc-0.8 --k 32,64 $check
$B ratio-spmm --gen banded:rows=50000,cols=50000,nnz=5000000 --k 32,96 $check
$B ratio-spmm --gen clustered:rows=20000,cols=30000,nnz=1000000 --k 40,80 $check
