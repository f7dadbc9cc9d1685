#!/usr/bin/env bash
# The residual form: tests and sanitizers, then app A/B old (0e8d78f) vs new (1dcc691) alternated.
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
step kernel-tests 200 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*:*Sliced*:*Transpos*'
step als-tests 150 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='*Als*:*Lda*Gpu*:*LdaEStep*'
step sfa-tests 150 $bin/fk_sfa_tests --gtest_brief=1
step gap-gpu 60 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='*Gpu*'
ab() {  # ab NAME APP ARGS...: old and new binaries alternated twice
  local name=$1 app=$2; shift 2
  for r in 1 2; do for w in old new; do
    local b=$bin; [[ $w == old ]] && b=$old
    timeout 150 $b/$app "$@" --out /tmp/ab-$name-$w > $o/logs/ab-$name-$w-$r.log 2>&1
    echo "$name $w round $r: $(grep -h 'median time per' $o/logs/ab-$name-$w-$r.log)" | tee -a $o/summary.txt
  done; done
}
ab netflix fk-als --config configs/als-netflix.ini --device gpu --iters 3
ab ml20m-imp64 fk-als --config configs/als-ml20m-implicit.ini --device gpu --iters 3
ab sfa-netflix fk-sfa --config configs/sfa-netflix.ini --device gpu --iters 3
ab sfa-netflix-em fk-sfa --config configs/sfa-netflix.ini --mstep em --device gpu --iters 3
echo "A/B done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
step memcheck-ratio 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu*:*Ratio*cuda*'
step racecheck-sliced 100 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu.SlicedTranspose:CudaSpmmSpecific.SlicedTransposedProduct'
step memcheck-apps 100 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*'
step memcheck-sfa 100 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*'
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs && rm -rf $o/logs
