#!/usr/bin/env bash
# The sliced transposed ratio plan: tests, kernel times (new fk-bench's pair and fused-t; old
# fk-bench's fused-t unsliced), and app A/B old (9bb3c28) vs new binaries alternated.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry; tar xJf .carry/old.tar.xz -C .carry
bin=.carry/bin old=.carry/old
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/logs/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE 'PASSED|FAILED|ERROR SUMMARY|RACECHECK SUMMARY' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
step ratio-tests 150 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*'
step als-gpu 120 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*:AlsCli*'
step sfa-gpu 120 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*:SfaCli*'
common="--runs 20 --warmup 3 --variants pair,cuda.ratio_spmm.fused --op t"
for spec in "netflix 104 product" "ml-20m 256 product" "nytimes 256 ratio" "netflix 104 ratio"; do
  set -- $spec
  timeout 150 $bin/fk-bench ratio-spmm --preset $1 --k $2 --form $3 $common --csv $o/bench-new-$1-$2-$3.csv > $o/logs/bench-new-$1-$2-$3.txt 2>&1
  [[ $3 == ratio ]] && timeout 150 $old/fk-bench ratio-spmm --preset $1 --k $2 --form ratio $common --csv $o/bench-old-$1-$2-$3.csv > $o/logs/bench-old-$1-$2-$3.txt 2>&1
  echo "bench $spec ($((SECONDS-t0)) s):" | tee -a $o/summary.txt
  grep -hE "^  (pair|cuda)" $o/logs/bench-*-$1-$2-$3.txt | tee -a $o/summary.txt
done
ab() {  # ab NAME APP ARGS...: old and new binaries alternated twice
  local name=$1 app=$2; shift 2
  for r in 1 2; do for w in old new; do
    local b=$bin; [[ $w == old ]] && b=$old
    timeout 150 $b/$app "$@" --out /tmp/ab-$name-$w > $o/logs/ab-$name-$w-$r.log 2>&1
    echo "$name $w round $r: $(grep -h 'kernels:' $o/logs/ab-$name-$w-$r.log | sed 's/.*kernels: //' | cut -c1-110) | $(grep -h 'median time per' $o/logs/ab-$name-$w-$r.log)" | tee -a $o/summary.txt
  done; done
}
ab netflix fk-als --config configs/als-netflix.ini --device gpu --iters 3
ab ml20m-imp256 fk-als --config configs/als-ml20m-implicit.ini --device gpu --iters 3 --factors 256
ab sfa-netflix-em fk-sfa --config configs/sfa-netflix.ini --mstep em --device gpu --iters 3
echo "A/B done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
step memcheck-ratio 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu*'
step racecheck-ratio 150 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu.SlicedTranspose'
step memcheck-als 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*'
step memcheck-sfa 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*'
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs && rm -rf $o/logs
