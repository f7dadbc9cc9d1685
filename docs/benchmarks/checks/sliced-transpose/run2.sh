#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; w=/tmp/sl; rm -rf $w; mkdir -p $w $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 100 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*SlicedTransposed*:*CudaSpmmSpecific.Auto*:*SpmmConformance*nnz_vsr*' 2>&1 | tail -3
o="--device gpu --runs 10 --warmup 2 --k 64,128,256,512 --op t --variants auto"
for m in netflix nytimes ml-20m; do
  timeout 100 $b/fk-bench spmm --preset $m $o --csv $w/auto.csv > /dev/null 2>>$w/err.log || echo "fail $m"
  echo "$m $((SECONDS-s)) s"
  tar czf $out/slice2.tar.gz -C $w .
done
