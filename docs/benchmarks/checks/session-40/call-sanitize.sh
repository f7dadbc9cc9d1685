#!/usr/bin/env bash
# Session 40, second GPU call: compute-sanitizer on the apps' GPU tests (names with Gpu, Stream or
# Compare), which session 39 changed without a sanitizer run: fk-als's and fk-sfa's CG rule
# (cg_dot_or_converged) and fk-gap's flush of subnormal results (zero_if_subnormal). TOOL (default
# memcheck; racecheck for a second call) on the three app test binaries, each under its own limit.
# Run with carry [".carry"]: bash call-sanitize.sh [TOOL]; returns summary.txt and the logs' tails.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
filter='*Gpu*:*Stream*:*Compare*'
tool=${1:-memcheck}
for t in fk_gap_tests fk_sfa_tests fk_app_tests; do
  SECONDS=0
  timeout 180 compute-sanitizer --tool $tool --error-exitcode 3 $bin/$t --gtest_brief=1 \
    --gtest_filter="$filter" > /tmp/$tool-$t.txt 2>&1
  echo "$tool $t: rc=$? ${SECONDS}s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' /tmp/$tool-$t.txt | tr '\n' ' ')" |
    tee -a "$o/summary.txt"
  tail -n 30 /tmp/$tool-$t.txt > "$o/$tool-$t.tail.txt"
done
true
