#!/usr/bin/env bash
# --repeatable: the runs call-determinism2.sh found differing (their kernel line named cuSPARSE or
# nnz_vsr), twice each with --repeatable: identical arrays, no note on the kernel line; and the
# median time per iteration with and without it (one run each, same call). Then the kernel and app
# repeatability tests. Run with carry [".carry"]; returns device.txt and repeatable.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/det
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
check() {  # check NAME APP ARGS...
  local name=$1 app=$2; shift 2
  timeout 120 $bin/$app "$@" --device gpu --out /tmp/det/$name-0 > /tmp/det-$name-0.log 2>&1
  for r in 1 2; do
    timeout 150 $bin/$app "$@" --repeatable --device gpu --out /tmp/det/$name-$r > /tmp/det-$name-$r.log 2>&1 ||
      { echo "$name: run $r failed: $(tail -2 /tmp/det-$name-$r.log)" | tee -a "$o/repeatable.txt"; return; }
  done
  local differ=()
  for f in /tmp/det/$name-1/*.npy; do
    cmp -s "$f" "/tmp/det/$name-2/$(basename "$f")" || differ+=("$(basename "$f")")
  done
  local note; note=$(grep -o "not bitwise repeatable: [^)]*" /tmp/det-$name-1.log | head -1)
  echo "$name --repeatable: ${#differ[@]} of $(ls /tmp/det/$name-1/*.npy | wc -l) arrays differ ${differ[*]} ${note:+($note)}" | tee -a "$o/repeatable.txt"
  echo "  kernels without: $(grep -o 'kernels: [^(]*' /tmp/det-$name-0.log | head -1)" | tee -a "$o/repeatable.txt"
  echo "  kernels with:    $(grep -o 'kernels: [^(]*' /tmp/det-$name-1.log | head -1)" | tee -a "$o/repeatable.txt"
  echo "  without: $(grep -h 'median time per' /tmp/det-$name-0.log | cut -c1-110)" | tee -a "$o/repeatable.txt"
  echo "  with:    $(grep -h 'median time per' /tmp/det-$name-1.log | cut -c1-110)" | tee -a "$o/repeatable.txt"
}
check als-ml100k-chol fk-als --config configs/als-ml100k.ini --input .carry/data/movielens-100k/u.data --solver cholesky
check lda-nytimes-unfused fk-lda --config configs/lda-nytimes.ini --iters 2 --ratio-spmm off
check gap-nytimes-unfused fk-gap --config configs/gap-nytimes.ini --iters 2 --ratio-spmm off
timeout 200 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='CudaRepeatability.*' > /tmp/kt.log 2>&1
echo "kernel repeatability tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' /tmp/kt.log | tr '\n' ' ')" | tee -a "$o/repeatable.txt"
grep -E "^\[  FAILED|Failure|Expected|Which is|auto's pick" /tmp/kt.log | head -20 | tee -a "$o/repeatable.txt"
timeout 100 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='LdaTrain.Gpu*:AlsGpu*:Repeat*' > /tmp/at.log 2>&1
echo "app tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' /tmp/at.log | tr '\n' ' ')" | tee -a "$o/repeatable.txt"
