#!/usr/bin/env bash
# Session 41, third call: every test binary on the GPU with the session's changes (the small-uneven
# rule, fk-lda's E-step progress lines, the helpers' app fixes). Run with carry [".carry"];
# returns summary.txt (and the logs of a binary that failed).
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 420
true
