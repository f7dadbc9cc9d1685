#!/usr/bin/env bash
# A held-out check for the GPU ratio rule's fourth form (kernels/select.cpp: the pair only on
# small skewed matrices, rows of mean >= 32, at K <= 32), NOT RUN YET: shapes none of the fits saw,
# chosen to straddle the branch (fk-bench ratio-spmm --explain-auto, on this machine):
#   LDA minibatch transposes of 700 nips-like and 1500 kos-like documents (rows of mean 28 and 23:
#   fused), ratings 3000 x 2000 (mean 83, its transpose 125, longest about 10x: the pair at K <= 32)
#   and 1500 x 4000 (mean 80 and 30, longest under 8x: fused), a 20000 x 20000 power-law matrix
#   of 800,000 nonzeros (mean 40, very skewed: the pair at K <= 32).
# Here: fk-bench and fk-datagen in .carry/bin.tar.xz, lib/; on the device machine:
# bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
$B/fk-datagen lda --preset nips --docs 700 --out /tmp/h4nips > /dev/null
$B/fk-datagen lda --preset kos --docs 1500 --out /tmp/h4kos > /dev/null
$B/fk-datagen ratings --users 3000 --items 2000 --ratings 250000 --seed 4 --out /tmp/h4r.csv > /dev/null
$B/fk-datagen ratings --users 1500 --items 4000 --ratings 120000 --seed 5 --out /tmp/h4r2.csv > /dev/null
o="--op both --k 16,32,64,128 --runs 20 --variants pair,cuda.ratio_spmm.fused,auto --csv $OUT/held-out-4.csv"
for src in "--input /tmp/h4nips/docword.txt --name nips-700" "--input /tmp/h4kos/docword.txt --name kos-1500" \
           "--input /tmp/h4r.csv --name ratings-3000x2000" "--input /tmp/h4r2.csv --name ratings-1500x4000" \
           "--gen powerlaw:rows=20000,cols=20000,nnz=800000"; do
  timeout 120 $B/fk-bench ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $src"
done
