#!/usr/bin/env bash
# A held-out check of the fused ratio SpMM's chain length (chain_steps) and of "fused everywhere":
# shapes none of the comparisons saw (sizes from 40K to 6M nonzeros, so that the chain takes 4 to
# 32 steps), acc4006's build (fk-bench-old: fixed chains, before the single-segment rows) against
# this one, alternated twice in one call, each with the pair. Here: fk-bench, fk-bench-old,
# fk-datagen in .carry/bin.tar.xz, lib/, data/; on the device machine: bash <this script>.
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
$B/fk-datagen lda --preset nips --docs 300 --seed 7 --out /tmp/hcnips > /dev/null
$B/fk-datagen lda --preset nytimes --docs 600 --seed 7 --out /tmp/hcnyt > /dev/null
$B/fk-datagen lda --preset kos --docs 3430 --seed 7 --out /tmp/hckos > /dev/null
$B/fk-datagen ratings --users 800 --items 1200 --ratings 60000 --seed 7 --out /tmp/hcr.csv > /dev/null
$B/fk-datagen ratings --users 20000 --items 3000 --ratings 1500000 --seed 8 --out /tmp/hcr2.csv > /dev/null
for r in 1 2; do
  for bin in fk-bench-old fk-bench; do
    o="--op both --k 16,32,64,128 --runs 15 --variants cuda.ratio_spmm.fused --csv $OUT/held-out-chain-$bin-r$r.csv"
    for src in "--input /tmp/hcnips/docword.txt --name nips-300" "--input /tmp/hcnyt/docword.txt --name nytimes-600" \
               "--input /tmp/hckos/docword.txt --name kos-3430" "--input /tmp/hcr.csv --name ratings-800x1200" \
               "--input /tmp/hcr2.csv --name ratings-20000x3000" "--gen uniform:rows=20000,cols=5000,nnz=200000,seed=7" \
               "--gen powerlaw:rows=10000,cols=50000,nnz=150000,seed=7" "--gen clustered:rows=100000,cols=20000,nnz=3000000,seed=7" \
               "--gen powerlaw:rows=300000,cols=300000,nnz=6000000,seed=7" "--gen banded:rows=40000,cols=40000,nnz=40000,seed=7"; do
      timeout 60 $B/$bin ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $bin $src"
    done
  done
done
