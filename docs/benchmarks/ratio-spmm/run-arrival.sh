#!/usr/bin/env bash
# Validation and A/B of the arrival-counter finish of cuda.ratio_spmm.fused's long rows against the
# two finishing launches it replaced (docs/benchmarks/ratio-spmm.md). Here, first: the old
# fk-bench built and copied to fk-bench-main; the new fk-bench and fk_kernel_tests built;
# .carry/: bin.tar.xz with the three, lib/, data/ (scripts/device_pack.sh), mb.mtx.xz (the
# 4096-document minibatch, checks/lda-minibatch/make_minibatch.py).
# On the device machine: bash <this script> ($OUT: where to write). The two binaries alternate.
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
B=.carry/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*' --gtest_repeat=3 > $OUT/tests.log 2>&1
echo "ratio tests x3 rc=$?"; tail -1 $OUT/tests.log
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 $B/fk_kernel_tests --gtest_brief=1 \
    --gtest_filter='*cuda_ratio*' > $OUT/$tool.log 2>&1
  echo "$tool rc=$?"; tail -1 $OUT/$tool.log
done
xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
for round in 1 2; do
  for v in fk-bench-main fk-bench; do
    for src in "--input /tmp/mb.mtx --name mb" "--preset kos" "--preset nips" "--preset ml-100k" \
               "--gen uniform:rows=300000,cols=30000,nnz=1500000" "--gen powerlaw:rows=1000000,cols=1000000,nnz=20000000"; do
      timeout 100 $B/$v ratio-spmm $src --op both --k 32,64,128,256 --runs 10 \
        --variants pair,cuda.ratio_spmm.fused --csv $OUT/$v-r$round.csv > /dev/null 2>&1 || echo "failed $v $src"
    done
  done
done
