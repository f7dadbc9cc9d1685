#!/usr/bin/env bash
# This session's third GPU call, after the review's mends (fk-sfa's centred ratings through
# make_csr(pattern, values) on the GPU ops too; one CSR builder; the CPU transposed plans' 32-bit
# permutation): every test binary on the GPU, and fk-sfa's GPU tests under memcheck.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start $bin/fk-als --version
call_tests
call_memcheck "fk_sfa_tests *Gpu*" 200 fk_sfa_tests \
  '*Gpu*'
true
