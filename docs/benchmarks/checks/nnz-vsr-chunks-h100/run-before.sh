#!/usr/bin/env bash
# The first run (binaries of c746d4a, before chunk_for): S·B at K = 32 and 64 on rows of under 5
# nonzeros -> before-tiny.csv; Sᵀ·B at K = 64 on power-law transposes in the sliced rule's domain ->
# before-sliced64.csv. On the device after `bash scripts/device_pack.sh fk-bench`.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
B=.carry/bin/fk-bench
tiny=("--input .carry/data/suitesparse/hep-th.mtx" "--gen uniform:rows=100000,cols=100000,nnz=300000,seed=16"
      "--gen clustered:rows=60000,cols=60000,nnz=240000,seed=52" "--gen banded:rows=100000,cols=100000,nnz=400000,seed=54"
      "--gen uniform:rows=20000,cols=20000,nnz=80000,seed=55" "--gen uniform:rows=400000,cols=50000,nnz=1600000,seed=53"
      "--gen powerlaw:rows=100000,cols=100000,nnz=400000,seed=51,param=0.3")
for x in "${tiny[@]}"; do
  timeout 120 $B spmm $x --k 32,64 --op n --variants cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.nnz_vsr,cuda.spmm.cusparse,auto \
    --runs 20 --warmup 3 --csv $OUT/before-tiny.csv > $OUT/last.log 2>&1 || echo "fail $x"
done
for x in "powerlaw:rows=500000,cols=20000,nnz=40000000,seed=5,param=0.5" "powerlaw:rows=300000,cols=15000,nnz=30000000,seed=5,param=0.6" \
         "powerlaw:rows=1000000,cols=30000,nnz=50000000,seed=5,param=0.7"; do
  timeout 200 $B spmm --gen $x --k 64 --op t --variants cuda.spmm.nnz_vsr,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.cusparse,auto \
    --runs 10 --warmup 2 --csv $OUT/before-sliced64.csv > $OUT/last.log 2>&1 || echo "fail $x"
done
