#!/usr/bin/env bash
# One device call: the product form's GPU tests, then A/B of --product-spmm off|auto (same binary,
# alternated), then sanitizers. Logs to $OUT.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/device.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s)"; tail -n 4 $o/$name.log; }
if [[ ${1:-} != ab-only ]]; then
step ratio-tests 120 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*'
step als-tests 120 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='*Als*'
step sfa-tests 120 $bin/fk_sfa_tests --gtest_brief=1
step gap-gpu 60 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='*Gpu*'
fi
ab() {  # ab NAME APP ARGS...: off and auto alternated twice, median iteration lines
  local name=$1 app=$2; shift 2
  for r in 1 2; do for m in off auto; do
    timeout 120 $bin/$app "$@" --product-spmm $m --out /tmp/ab-$name-$m > $o/ab-$name-$m-$r.log 2>&1
    echo "$name $m round $r: $(grep -h 'kernels:' $o/ab-$name-$m-$r.log | sed 's/.*kernels: //' | cut -c1-80) | $(grep -h 'median time per iteration' $o/ab-$name-$m-$r.log)"
  done; done
}
ab netflix fk-als --config configs/als-netflix.ini --device gpu --iters 3
ab sfa-netflix fk-sfa --config configs/sfa-netflix.ini --device gpu --iters 3
ab ml20m-imp64 fk-als --config configs/als-ml20m-implicit.ini --device gpu --iters 3 --factors 64
ab ml20m-imp256 fk-als --config configs/als-ml20m-implicit.ini --device gpu --iters 3 --factors 256
ab netflix-f12 fk-als --config configs/als-netflix.ini --device gpu --iters 3 --factors 12
ab ml20m-exp fk-als --input gen:ml-20m --factors 100 --biases --device gpu --iters 3
echo "A/B done ($((SECONDS-t0)) s)"
if [[ ${1:-} != ab-only ]]; then
step memcheck-ratio 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*cuda*:RatioSpmmFusedGpu*'
step racecheck-ratio 120 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*cuda*:RatioSpmmFusedGpu*'
step memcheck-apps 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*'
step memcheck-sfa 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*'
fi
echo "all done ($((SECONDS-t0)) s)"
