#!/usr/bin/env bash
# Session 40, after the last helper's host-side changes (--resume checks the inputs' content; the
# held-out reader's wording; help texts): the apps' test binaries on the GPU, within the device
# time left. fk_kernel_tests, fk_core_tests and fk_io_tests ran in call 7 on f2c19e8; no kernel
# changed after. Run with carry [".carry"]; returns summary.txt and the logs of failed binaries.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
for run in "fk_gap_tests 40" "fk_sfa_tests 40" "fk_app_tests 120"; do
  set -- $run
  timeout $2 $bin/$1 --gtest_brief=1 > /tmp/$1.log 2>&1
  rc=$?
  echo "$1 rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/$1.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
  if ((rc != 0)); then grep -E '^\[  FAILED  \]' /tmp/$1.log | head -20 | tee -a "$o/summary.txt"; cp /tmp/$1.log "$o/"; fi
done
true
