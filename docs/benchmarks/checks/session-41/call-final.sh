#!/usr/bin/env bash
# Session 41, last call: every test binary on the GPU with all of the session's rules and app
# fixes (the carry without its data files, so tests that need ../shared/data skip; call 3 ran them
# with the data). Run with carry [".carry"]; returns summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 420
true
