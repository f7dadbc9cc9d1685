#!/usr/bin/env bash
# Session 41, first call: every GPU SpMM variant (S·B and Sᵀ·B, K = 1, 4, 16, 32, 64, 128, 256)
# on small matrices of uneven short rows (generated power-law, under 100K nonzeros, row cv
# 0.5-2.8 so that the skewed rule (cv > 4) does not take them, longest row 17-200 means), seed 2:
# none of them was in session 40's sweeps, whose 99K-nonzero matrix of longest 100 means ran
# nnz_vsr 2-2.6x faster than the pick. Plus hep-th (longest 13 means), which wants cuSPARSE. Then
# fk_app_tests on the GPU (fk-lda's E-step observer). Run with carry [".carry"]; returns
# uneven.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep uneven 240 "--op both --k 1,4,16,32,64,128,256" \
  "--gen powerlaw:rows=40000,cols=40000,nnz=99000,param=0.5,seed=2" \
  "--gen powerlaw:rows=30000,cols=30000,nnz=90000,param=0.4,seed=2" \
  "--gen powerlaw:rows=30000,cols=30000,nnz=90000,param=0.6,seed=2" \
  "--gen powerlaw:rows=20000,cols=20000,nnz=60000,param=0.5,seed=2" \
  "--gen powerlaw:rows=10000,cols=10000,nnz=50000,param=0.5,seed=2" \
  "--gen powerlaw:rows=15000,cols=15000,nnz=80000,param=0.45,seed=2" \
  "--gen powerlaw:rows=50000,cols=30000,nnz=95000,param=0.35,seed=2" \
  "--gen powerlaw:rows=8000,cols=8000,nnz=40000,param=0.6,seed=2" \
  "--gen powerlaw:rows=25000,cols=25000,nnz=70000,param=0.4,seed=2" \
  "--gen powerlaw:rows=40000,cols=40000,nnz=99000,param=0.3,seed=2" \
  "--gen powerlaw:rows=6000,cols=6000,nnz=60000,param=0.5,seed=2" \
  "--gen powerlaw:rows=12000,cols=12000,nnz=90000,param=0.6,seed=2" \
  "--gen powerlaw:rows=4000,cols=8000,nnz=50000,param=0.7,seed=2" \
  "--gen powerlaw:rows=60000,cols=30000,nnz=99000,param=0.6,seed=2" \
  "--input .carry/data/suitesparse/hep-th.mtx"
call_binaries "fk_app_tests 240"
true
