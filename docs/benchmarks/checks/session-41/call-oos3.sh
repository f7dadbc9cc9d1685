#!/usr/bin/env bash
# Session 41, sixth call: the medium-transpose vendor rule (Sᵀ·B at K = 32-64, 500K-4M nonzeros,
# >= 10000 transposed rows of mean >= 12, cv >= 0.15 -> cuSPARSE on the cached transpose) out of
# sample: ten generated matrices (seed 6) none of the earlier calls used, and two banded ones (cv
# 0.13 and 0.16, the bound's weak side). Every GPU variant and `auto` (binaries of the rule's
# commit), Sᵀ·B at K = 16, 32, 64, 128. Run with carry [".carry"]; returns oos3.csv.gz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep oos3 300 "--op t --k 16,32,64,128" \
  "--gen powerlaw:rows=200000,cols=80000,nnz=1600000,param=0.4,seed=6" \
  "--gen powerlaw:rows=50000,cols=25000,nnz=750000,param=0.5,seed=6" \
  "--gen clustered:rows=150000,cols=120000,nnz=1800000,seed=6" \
  "--gen uniform:rows=400000,cols=60000,nnz=2400000,seed=6" \
  "--gen powerlaw:rows=250000,cols=40000,nnz=3800000,param=0.3,seed=6" \
  "--gen powerlaw:rows=80000,cols=15000,nnz=900000,param=0.55,seed=6" \
  "--gen clustered:rows=60000,cols=30000,nnz=1000000,seed=6" \
  "--gen powerlaw:rows=600000,cols=200000,nnz=3000000,param=0.5,seed=6" \
  "--gen uniform:rows=100000,cols=20000,nnz=600000,seed=6" \
  "--gen powerlaw:rows=30000,cols=12000,nnz=1500000,param=0.35,seed=6" \
  "--gen banded:rows=80000,cols=80000,nnz=2400000,seed=6" \
  "--gen banded:rows=40000,cols=40000,nnz=800000,seed=6"
true
