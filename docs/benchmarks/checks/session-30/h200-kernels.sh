#!/usr/bin/env bash
# The kernel half of the standard report on an H200 only (an H100 gives nothing new: the H100
# kernel report at 523ab76 has the same SpMM/SDDMM code). Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt")
[[ $gpu == *H200* ]] || { echo "not an H200 ($gpu): nothing run"; exit 0; }
t0=$SECONDS
OUT=$o bash scripts/device_run.sh report-kernels > "$o/run.log" 2>&1
echo "report-kernels rc=$? ($((SECONDS-t0)) s)" | tee -a "$o/device.txt"
tail -20 "$o/run.log"
