#!/usr/bin/env bash
# This session's GPU call, part 5, after the review's mends (compare.ini written by each run's
# start_training_output; the ratio SpMM's eps check): every test binary on the GPU, the apps'
# --compare tests with both devices among them. device_run.sh's tests stage now writes the
# one-line-per-binary summary the earlier call scripts spelled out.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-als --version; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
true
