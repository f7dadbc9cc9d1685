#!/usr/bin/env bash
# The padding rule (SDDMM at K >= 5, Sᵀ·B at 5 <= K < 128, not a multiple of 4, nonzeros x K >= 1e7)
# on matrices it was not fitted on: `auto` (padded) against every variant at the same K (named
# variants are never padded) -> $OUT/*.csv; then the padded plans' tests and memcheck.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.cusparse,auto
W=cuda.sddmm.convert,cuda.sddmm.preds,cuda.sddmm.cusparse,auto
for x in "--gen powerlaw:rows=100000,cols=40000,nnz=2000000,param=0.5,seed=141" "--gen clustered:rows=200000,cols=200000,nnz=1000000,seed=142" \
         "--gen uniform:rows=20000,cols=80000,nnz=3000000,seed=143" "--preset default" "--preset ml-20m"; do
  timeout 200 $B spmm $x --k 30,50,65,101 --op t --variants $V --runs 20 --warmup 3 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -2 $OUT/last.log; }
  timeout 200 $B sddmm $x --k 30,50,65,101,257 --variants $W --runs 20 --warmup 3 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || { echo "fail sddmm $x"; tail -2 $OUT/last.log; }
  echo "$x $(date +%T)"
done
timeout 200 .carry/bin/fk_kernel_tests --gtest_filter='*AutoPadsOddWidths*:*AutoWidth*:CudaSpmmSpecific.*:CudaSddmmSpecific.*' --gtest_brief=1 2>&1 | tail -3
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $CS --tool memcheck --error-exitcode 9 .carry/bin/fk_kernel_tests --gtest_filter='*AutoPadsOddWidths*' --gtest_brief=1 > $OUT/memcheck.log 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tail -2 | tr '\n' ' ')"
echo "done $(date +%T)"
