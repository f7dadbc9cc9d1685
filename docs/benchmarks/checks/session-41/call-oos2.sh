#!/usr/bin/env bash
# Session 41, fifth call: the three medium-matrix rules of b46390f out of sample. Twelve more
# generated matrices (seed 5, shapes none of the earlier calls used): power laws of 300K-3.5M
# nonzeros with rows of mean 2-60 (six of them S·B's vendor domain: >= 1M nonzeros, mean >= 20,
# longest >= 6 means), transposes of cv 0.26-2.2 with short parts of S's rows (panel's bound) and
# transposed longest rows of 15-50 means under 400 long (the narrow-transpose bound), a clustered
# and a uniform matrix. Every GPU SpMM variant and `auto`, S·B and Sᵀ·B at K = 1, 2, 4, 16, 32, 64,
# 128. Run with carry [".carry"]; returns oos2.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep oos2 420 "--op both --k 1,2,4,16,32,64,128" \
  "--gen powerlaw:rows=150000,cols=60000,nnz=900000,param=0.45,seed=5" \
  "--gen powerlaw:rows=300000,cols=120000,nnz=600000,param=0.35,seed=5" \
  "--gen powerlaw:rows=40000,cols=40000,nnz=300000,param=0.5,seed=5" \
  "--gen clustered:rows=200000,cols=150000,nnz=2000000,seed=5" \
  "--gen powerlaw:rows=400000,cols=30000,nnz=2000000,param=0.4,seed=5" \
  "--gen uniform:rows=300000,cols=100000,nnz=1500000,seed=5" \
  "--gen powerlaw:rows=60000,cols=30000,nnz=2400000,param=0.45,seed=5" \
  "--gen powerlaw:rows=40000,cols=10000,nnz=1200000,param=0.3,seed=5" \
  "--gen powerlaw:rows=100000,cols=40000,nnz=3500000,param=0.6,seed=5" \
  "--gen powerlaw:rows=30000,cols=60000,nnz=1800000,param=0.4,seed=5" \
  "--gen powerlaw:rows=120000,cols=50000,nnz=3000000,param=0.25,seed=5" \
  "--gen powerlaw:rows=20000,cols=20000,nnz=1000000,param=0.55,seed=5"
call_binaries "fk_kernel_tests 300"
true
