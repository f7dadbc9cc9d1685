#!/usr/bin/env bash
# Which CUDA kernel variants give the same bits run after run (tests/kernels/
# test_cuda_repeatability.cpp, printing the ones that do not), and the apps' GPU repeatability
# tests. Run with carry [".carry"]; returns device.txt and repeat.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
t0=$SECONDS
timeout 400 $bin/fk_kernel_tests --gtest_filter='CudaRepeatability*' > "$o/repeat.txt" 2>&1
echo "kernel repeatability rc=$? ($((SECONDS-t0)) s)" | tee -a "$o/device.txt"
timeout 100 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='LdaTrain.GpuRunsAreRepeatable:AlsGpu*' >> "$o/repeat.txt" 2>&1
echo "app tests rc=$?" | tee -a "$o/device.txt"
timeout 100 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='GapMath.GpuAgreesWithCpu' >> "$o/repeat.txt" 2>&1
echo "gap tests rc=$?" | tee -a "$o/device.txt"
grep -v "^\[ RUN\|^\[       OK" "$o/repeat.txt" | tail -60
