#!/usr/bin/env bash
# Session 41, eighth call: panel's short-part bound (Sᵀ·B at K <= 2 refused on parts of S's rows
# under 10 per panel) out of sample: six generated matrices (seed 7) of short even rows, parts of
# 5-20, every GPU variant and `auto`, Sᵀ·B at K = 1 and 2. Run with carry [".carry"]; returns
# oos4.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep oos4 120 "--op t --k 1,2" \
  "--gen uniform:rows=400000,cols=80000,nnz=2000000,seed=7" \
  "--gen uniform:rows=200000,cols=100000,nnz=1200000,seed=7" \
  "--gen clustered:rows=300000,cols=100000,nnz=2400000,seed=7" \
  "--gen uniform:rows=150000,cols=50000,nnz=1350000,seed=7" \
  "--gen uniform:rows=100000,cols=30000,nnz=1200000,seed=7" \
  "--gen uniform:rows=50000,cols=20000,nnz=1000000,seed=7"
true
