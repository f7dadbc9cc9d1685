#!/usr/bin/env bash
# Third run: out of sample for the rules fitted on run.sh's and run2.sh's rows (nnz_vsr for rows
# whose longest is >= 6 means on 100K-4.3M nonzeros, the very-short-row rules, the small uneven
# transposes): matrices no rule saw, with the DLMC layers whose picks the rules change.
# Rows -> $OUT/oos3.csv. DLMC layers are read from .carry/data/dlmc (scripts/device_pack.sh).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
D=.carry/data/dlmc/rn50/magnitude_pruning
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.panel,cuda.spmm.cusparse,auto
L=("--gen powerlaw:rows=50000,cols=30000,nnz=1500000,param=0.5,seed=101" "--gen powerlaw:rows=6000,cols=50000,nnz=600000,param=0.4,seed=102"
   "--gen powerlaw:rows=20000,cols=20000,nnz=200000,seed=103" "--gen powerlaw:rows=100000,cols=10000,nnz=3000000,param=0.6,seed=104"
   "--gen powerlaw:rows=1500,cols=1500,nnz=120000,param=0.7,seed=105" "--gen uniform:rows=1000000,cols=1000000,nnz=4000000,seed=106"
   "--gen banded:rows=2000000,cols=2000000,nnz=8000000,seed=107" "--gen clustered:rows=30000,cols=30000,nnz=600000,seed=108"
   "--input $D/0.9/bottleneck_1_block_group4_2_1.smtx" "--input $D/0.9/bottleneck_2_block_group4_2_1.smtx"
   "--input $D/0.9/bottleneck_3_block_group4_1_1.smtx" "--input $D/0.8/bottleneck_2_block_group3_1_1.smtx")
for x in "${L[@]}"; do
  timeout 150 $B spmm $x --k 4,16,32,64,128,256 --op both --variants $V --runs 20 --warmup 3 \
    --csv $OUT/oos3.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
  echo "oos3 $x $(date +%T)"
done
