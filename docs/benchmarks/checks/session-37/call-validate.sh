#!/usr/bin/env bash
# Session 37's GPU call: every test binary; compute-sanitizer memcheck on the peak-memory tests
# (MemoryPeaks.*, one of them allocating DeviceBuffers); and the apps' peak memory on the GPU at
# the four large configs: summary.json's peak_host_mib and peak_device_mib beside the driver's
# view of the process (nvidia-smi's used memory, sampled every 100 ms, which adds the CUDA
# context and the libraries' handles).
# Run with carry [".carry"]; returns summary.txt, memory.txt, each app run's log and summary.json,
# and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start $bin/fk-als --version
call_tests
call_memcheck "fk_core_tests MemoryPeaks.*" 120 fk_core_tests \
  'MemoryPeaks.*'
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes" "fk-als als-netflix" "fk-sfa sfa-netflix"; do
  set -- $run
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -lms 100 \
    > "/tmp/smi-$2.txt" 2>/dev/null &
  smi=$!
  timeout 300 $bin/$1 --config configs/$2.ini --device gpu --iters 2 --out "/tmp/run-$2" \
    > "$o/$2.out" 2> "$o/$2.err"
  rc=$?
  kill $smi 2>/dev/null; wait $smi 2>/dev/null
  cp "/tmp/run-$2/summary.json" "$o/$2-summary.json" 2>/dev/null
  driver=$(awk -F', ' '$2 > m {m = $2} END {print m + 0}' "/tmp/smi-$2.txt")
  echo "$2 rc=$rc driver_peak_mib=$driver $(grep -o '"peak_[a-z]*_mib":[0-9null]*' "/tmp/run-$2/summary.json" 2>/dev/null | tr '\n' ' ')" |
    tee -a "$o/memory.txt"
done
true
