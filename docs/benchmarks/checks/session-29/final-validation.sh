#!/usr/bin/env bash
# The session's last GPU call (binaries of the commit in .carry/commit): every test binary, then
# memcheck on the apps' GPU tests that this session's changes reach (fk-gap's fused products,
# fk-als's solver errors, the shared run start).
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/logs/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE '^\[  PASSED|^\[  FAILED|tests? ran|ERROR SUMMARY' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
for t in $bin/fk_*tests; do step "$(basename $t)" 300 $t --gtest_brief=1; done
step memcheck-gap 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='*Gpu*'
step memcheck-als 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*:LdaTrain.GpuAndCpuAgree'
step memcheck-sfa 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*'
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs && rm -rf $o/logs
