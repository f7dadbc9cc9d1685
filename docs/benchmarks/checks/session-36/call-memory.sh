#!/usr/bin/env bash
# This session's second GPU call, after the peak-memory series (the CPU engines read the apps'
# matrices in place, the readers keep row-ordered entries where they are, CPU transposed plans
# transpose the pattern only; GPU engines unchanged): every test binary on the GPU, the apps'
# GPU and --compare tests among them.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-als --version; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
true
