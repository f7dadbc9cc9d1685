#!/usr/bin/env bash
# Session 40, after the last helper's host-side changes (--resume checks the inputs' content; the
# held-out reader's wording; help texts): the apps' test binaries on the GPU, within the device
# time left. fk_kernel_tests, fk_core_tests and fk_io_tests ran in call 7 on f2c19e8; no kernel
# changed after. Run with carry [".carry"]; returns summary.txt and the logs of failed binaries.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_binaries "fk_gap_tests 40" "fk_sfa_tests 40" "fk_app_tests 120"
true
