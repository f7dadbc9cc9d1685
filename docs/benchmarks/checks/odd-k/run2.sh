#!/usr/bin/env bash
# auto_width on the device: tests (kernel and app binaries), memcheck on the padded plans, and the
# odd K of run.sh again with `auto` now padding -> $OUT/*.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
timeout 300 .carry/bin/fk_kernel_tests --gtest_brief=1 2>&1 | tail -3
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $CS --tool memcheck --error-exitcode 9 .carry/bin/fk_kernel_tests --gtest_filter='*AutoPadsOddWidths*' --gtest_brief=1 > $OUT/memcheck.log 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tail -2 | tr '\n' ' ')"
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.cusparse,auto
W=cuda.sddmm.convert,cuda.sddmm.cusparse,auto
for x in "--input .carry/data/uci-kos/docword.kos.txt.gz" "--input .carry/data/movielens-100k/u.data" "--preset nips" \
         "--gen uniform:rows=500000,cols=17770,nnz=20000000,seed=131"; do
  timeout 200 $B spmm $x --k 49,50,52,65,68 --op both --variants $V --runs 20 --warmup 3 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -2 $OUT/last.log; }
  timeout 200 $B sddmm $x --k 49,50,52,65,68 --variants $W --runs 20 --warmup 3 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || { echo "fail sddmm $x"; tail -2 $OUT/last.log; }
  echo "$x $(date +%T)"
done
x="--gen uniform:rows=500000,cols=17770,nnz=20000000,seed=131"
timeout 200 $B spmm $x --k 257,260 --op both --variants $V --runs 10 --warmup 2 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || echo "fail 257"
timeout 200 $B sddmm $x --k 257,260 --variants $W --runs 10 --warmup 2 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || echo "fail sddmm 257"
echo "done $(date +%T)"
