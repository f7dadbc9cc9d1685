#!/usr/bin/env bash
# Review follow-up (the commit in .carry/commit): cg_init/pcg_residual with a null y. The ALS and
# SFA GPU tests and memcheck on them, then fk-als and fk-sfa on netflix (their errors should
# match the acce846 report's to the printed digits).
set -u
cd "$(dirname "$0")/.."
source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE '^\[  PASSED|^\[  FAILED|ERROR SUMMARY|median time per' $o/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
step als-tests 150 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='Als*'
step sfa-tests 150 $bin/fk_sfa_tests --gtest_brief=1
step memcheck-als 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*'
step memcheck-sfa 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 --gtest_filter='SfaGpu*'
step als-netflix 120 $bin/fk-als --config configs/als-netflix.ini --device gpu --iters 3 --out /tmp/als
step sfa-netflix 120 $bin/fk-sfa --config configs/sfa-netflix.ini --device gpu --iters 3 --out /tmp/sfa
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
rm -f $o/*.log
