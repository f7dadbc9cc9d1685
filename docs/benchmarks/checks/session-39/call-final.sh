#!/usr/bin/env bash
# The session's last binaries: the apps' test binaries (their GPU tests: the CG and subnormal rules
# of fk-als, fk-sfa and fk-gap on the GPU against the CPU) and fk_core_tests, within the device time
# left (each under its own limit; a binary cut short shows no PASSED line). fk_kernel_tests ran on
# bf43c74 and, for the gather by runs, on cba46ca; no kernel changed after.
# Run with carry [".carry"]; returns summary.txt and the logs of binaries that failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_binaries "fk_sfa_tests 30" "fk_gap_tests 30" "fk_core_tests 20" "fk_app_tests 150"
true
