#!/usr/bin/env bash
# A/B of the fused ratio SpMM's rows of one segment stored by their warp (and the scratch bound),
# against the build before (fk-bench-old), alternating old, new, old, new in one call, on the
# shapes whose long rows are mostly one segment (transposes at K = 16-64 of held-out 4's ratings
# and LDA shapes, kos, ml-100k, hep-th, a small power-law matrix), the held-out-4 shapes both ways,
# and the nytimes corpus's transpose at K = 256, whose scratch the bound shrinks from about 1.1 GB
# to C's 105 MB. Here: fk-bench, fk-bench-old and fk-datagen in .carry/bin.tar.xz, lib/, data/;
# on the device machine: bash <this script> PART ($OUT: where to write; PART small or large).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin D=.carry/data
v="--variants pair,cuda.ratio_spmm.fused,auto"
if [[ ${1:-small} == small ]]; then
  $B/fk-datagen lda --preset nips --docs 700 --out /tmp/h4nips > /dev/null
  $B/fk-datagen lda --preset kos --docs 1500 --out /tmp/h4kos > /dev/null
  $B/fk-datagen ratings --users 3000 --items 2000 --ratings 250000 --seed 4 --out /tmp/h4r.csv > /dev/null
  $B/fk-datagen ratings --users 1500 --items 4000 --ratings 120000 --seed 5 --out /tmp/h4r2.csv > /dev/null
  for r in 1 2; do
    for bin in fk-bench-old fk-bench; do
      o="--op both --k 16,32,64,128 --runs 20 $v --csv $OUT/small-$bin-r$r.csv"
      for src in "--input /tmp/h4nips/docword.txt --name nips-700" "--input /tmp/h4kos/docword.txt --name kos-1500" \
                 "--input /tmp/h4r.csv --name ratings-3000x2000" "--input /tmp/h4r2.csv --name ratings-1500x4000" \
                 "--gen powerlaw:rows=20000,cols=20000,nnz=800000" "--gen powerlaw:rows=30000,cols=30000,nnz=300000" \
                 "--input $D/uci-kos/docword.kos.txt.gz --name kos-real" "--input $D/movielens-100k/u.data --name ml-100k-real" \
                 "--input $D/suitesparse/hep-th.mtx"; do
        timeout 60 $B/$bin ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $bin $src"
      done
    done
  done
else
  xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
  for r in 1 2; do
    for bin in fk-bench-old fk-bench; do
      timeout 200 $B/$bin ratio-spmm --preset nytimes --op t --k 256 --runs 10 \
        --variants cuda.ratio_spmm.fused --csv $OUT/large-$bin-r$r.csv > $OUT/large-$bin-r$r.log 2>&1 || echo "failed: $bin nytimes"
      timeout 60 $B/$bin ratio-spmm --input /tmp/mb.mtx --name mb4096 --op both --k 64,256 --runs 20 $v \
        --csv $OUT/large-$bin-r$r.csv > /dev/null 2>&1 || echo "failed: $bin mb"
    done
  done
fi
