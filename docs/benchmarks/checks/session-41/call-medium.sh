#!/usr/bin/env bash
# Session 41, fourth call: a held-out look at medium matrices (150K-3M nonzeros; uniform, power-law,
# banded and clustered generators, seed 4, shapes no sweep used), every GPU SpMM variant and
# `auto` (binaries of 5316b4f), S·B and Sᵀ·B at K = 1, 4, 16, 32, 64, 128, 256: where else do the
# rules fall short? Run with carry [".carry"]; returns medium.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_sweep medium 400 "--op both --k 1,4,16,32,64,128,256" \
  "--gen uniform:rows=200000,cols=50000,nnz=1000000,seed=4" \
  "--gen uniform:rows=20000,cols=100000,nnz=800000,seed=4" \
  "--gen powerlaw:rows=100000,cols=100000,nnz=500000,param=0.4,seed=4" \
  "--gen powerlaw:rows=50000,cols=20000,nnz=1500000,param=0.5,seed=4" \
  "--gen powerlaw:rows=300000,cols=100000,nnz=3000000,param=0.6,seed=4" \
  "--gen powerlaw:rows=200000,cols=200000,nnz=400000,param=0.3,seed=4" \
  "--gen banded:rows=300000,cols=300000,nnz=2400000,seed=4" \
  "--gen clustered:rows=100000,cols=100000,nnz=1200000,seed=4" \
  "--gen clustered:rows=20000,cols=50000,nnz=600000,seed=4" \
  "--gen powerlaw:rows=10000,cols=50000,nnz=400000,param=0.5,seed=4" \
  "--gen uniform:rows=5000,cols=20000,nnz=300000,seed=4" \
  "--gen powerlaw:rows=80000,cols=5000,nnz=2000000,param=0.2,seed=4" \
  "--gen banded:rows=50000,cols=50000,nnz=150000,seed=4" \
  "--gen powerlaw:rows=500000,cols=50000,nnz=2500000,param=0.35,seed=4"
true
