#!/usr/bin/env bash
# Session 41, second call: the small-uneven rule (longest row >= 15 means under 100K nonzeros ->
# nnz_vsr) out of sample. Ten more generated power-law matrices (seed 3, shapes none of the first
# call's; longest row 9-174 means, three of them under or near the bound: 10.3, 14.7 and a
# transpose of 14.9), every GPU SpMM variant and the new `auto`, S·B and Sᵀ·B, K = 1-256. Then
# fk_kernel_tests on the GPU. Run with carry [".carry"]; returns oos.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep oos 240 "--op both --k 1,4,16,32,64,128,256" \
  "--gen powerlaw:rows=30000,cols=30000,nnz=80000,param=0.3,seed=3" \
  "--gen powerlaw:rows=20000,cols=10000,nnz=70000,param=0.35,seed=3" \
  "--gen powerlaw:rows=15000,cols=15000,nnz=45000,param=0.45,seed=3" \
  "--gen powerlaw:rows=50000,cols=50000,nnz=98000,param=0.55,seed=3" \
  "--gen powerlaw:rows=5000,cols=5000,nnz=30000,param=0.4,seed=3" \
  "--gen powerlaw:rows=35000,cols=20000,nnz=85000,param=0.25,seed=3" \
  "--gen powerlaw:rows=9000,cols=12000,nnz=70000,param=0.65,seed=3" \
  "--gen powerlaw:rows=25000,cols=25000,nnz=95000,param=0.3,seed=3" \
  "--gen powerlaw:rows=2000,cols=4000,nnz=20000,param=0.5,seed=3" \
  "--gen powerlaw:rows=70000,cols=40000,nnz=99000,param=0.45,seed=3"
call_binaries "fk_kernel_tests 300"
true
