#!/usr/bin/env bash
# Even transposes of long rows whose B outgrows L2 (Sᵀ·B): sliced nnz_vsr against row_csc and the
# rest. On the device machine, from the repository root, over scripts/device_pack.sh's .carry:
#   bash docs/benchmarks/checks/sliced-even-transposes/run.sh fit        # K = 64-512, before the rule
#   bash docs/benchmarks/checks/sliced-even-transposes/run.sh held-out   # K = 256, 512, with the rule
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin O=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .carry/commit)"
if [[ $1 == fit ]]; then
  ks=64,128,256,512 csv=fit.csv vdl=,cuda.spmm.vdl
  set -- uniform:rows=300000,cols=20000,nnz=24000000,seed=31 uniform:rows=600000,cols=40000,nnz=40000000,seed=32 \
         clustered:rows=400000,cols=20000,nnz=20000000,seed=33 clustered:rows=1000000,cols=10000,nnz=20000000,seed=34 \
         uniform:rows=200000,cols=5000,nnz=10000000,seed=35 powerlaw:rows=400000,cols=30000,nnz=30000000,param=0.5,seed=36
else
  ks=256,512 csv=held-out.csv vdl=
  set -- uniform:rows=500000,cols=15000,nnz=15000000,seed=41 clustered:rows=300000,cols=12000,nnz=12000000,seed=42 \
         uniform:rows=800000,cols=25000,nnz=25000000,seed=43 clustered:rows=250000,cols=50000,nnz=40000000,seed=44 \
         uniform:rows=150000,cols=8000,nnz=12000000,seed=45 clustered:rows=600000,cols=30000,nnz=24000000,seed=46
fi
for g in "$@"; do
  timeout 200 $B/fk-bench spmm --gen $g --op t --k $ks \
    --variants auto,cuda.spmm.cusparse,cuda.spmm.row_csc,cuda.spmm.nnz_vsr,cuda.spmm.row_split$vdl,cuda.spmm.cusparse_on_transpose \
    --csv $O/$csv --runs 20 --warmup 3 > "$O/log-$(echo $g | tr -c 'a-z0-9\n' _).txt" 2>&1 || echo "FAILED $g"
done
