#!/usr/bin/env bash
# Sᵀ·B: cuda.spmm.cusparse_on_transpose (cuSPARSE's S·B on the cached transpose) against `auto`
# and the other variants. Runs on the device machine over scripts/device_pack.sh's .carry (data
# tarred as .carry/data.tar.xz), from the repository root:
#   bash docs/benchmarks/checks/vendor-on-transpose/run.sh three A|B   # auto, cusparse, the new one; K = 1-512
#   bash docs/benchmarks/checks/vendor-on-transpose/run.sh every A|B   # every variant; K = 32-512
#   bash docs/benchmarks/checks/vendor-on-transpose/run.sh held-out    # set C, every variant; K = 256, 512
#   bash docs/benchmarks/checks/vendor-on-transpose/run.sh held-out-large D  # set D, every variant; K = 32, 64
# CSVs go to $OUT/<set>.csv (A.csv, B.csv, C.csv, D.csv).
set -uo pipefail
mode=$1 set=${2:-C}
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
mkdir -p .carry/data && tar xJf .carry/data.tar.xz -C .carry/data
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
B=.carry/bin D=.carry/data O=$OUT M=.carry/data/dlmc/rn50/magnitude_pruning
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .carry/commit)"
case $mode in
  three) ks=1,4,32,64,128,256,512 variants=(--variants auto,cuda.spmm.cusparse,cuda.spmm.cusparse_on_transpose) ;;
  every) ks=32,64,128,256,512 variants=() ;;
  held-out) ks=256,512 variants=() ;;
  held-out-large) ks=32,64 variants=() ;;
esac
bench() {  # LABEL SOURCE...
  local label=$1; shift
  timeout 300 $B/fk-bench spmm "$@" --op t --k $ks "${variants[@]}" --name "$label" --csv $O/$set.csv \
    --runs 20 --warmup 3 > "$O/log-$set-$(echo "$label" | tr -c 'a-z0-9\n' _).txt" 2>&1 || echo "FAILED $label"
}
if [[ $mode == held-out ]]; then  # set C: shapes the rule was not fitted on, each one the rule takes
  bench lda-default --preset default
  bench kos-uci --input $D/uci-kos/docword.kos.txt.gz
  for g in powerlaw:rows=50000,cols=10000,nnz=1000000,seed=21 powerlaw:rows=200000,cols=40000,nnz=4500000,seed=22 \
           powerlaw:rows=20000,cols=50000,nnz=2000000,seed=23 powerlaw:rows=300000,cols=100000,nnz=3000000,seed=24 \
           powerlaw:rows=10000,cols=5000,nnz=400000,seed=25 uniform:rows=100000,cols=10000,nnz=2000000,seed=27 \
           powerlaw:rows=5000,cols=3000,nnz=250000,seed=28; do bench "$g" --gen $g; done
elif [[ $mode == held-out-large ]]; then  # set D: large transposes the K = 32-64 rule takes
  for g in powerlaw:rows=300000,cols=50000,nnz=10000000,seed=51 clustered:rows=500000,cols=40000,nnz=16000000,seed=52 \
           powerlaw:rows=1000000,cols=100000,nnz=30000000,seed=53 powerlaw:rows=200000,cols=60000,nnz=30000000,seed=54 \
           clustered:rows=300000,cols=30000,nnz=6000000,seed=55 powerlaw:rows=2000000,cols=40000,nnz=40000000,param=0.5,seed=56; do
    bench "$g" --gen $g; done
elif [[ $set == A ]]; then  # the report's twelve matrices (scripts/bench_kernels.sh)
  for m in bcsstk13 delaunay_n14 hep-th; do bench $m --input $D/suitesparse/$m.mtx; done
  bench dlmc-0.9-group4_2_1 --input $M/0.9/bottleneck_2_block_group4_2_1.smtx
  bench dlmc-0.9-final_dense --input $M/0.9/final_dense.smtx
  bench dlmc-0.5-group3_1_1 --input $M/0.5/bottleneck_2_block_group3_1_1.smtx
  for p in nips ml-20m nytimes netflix; do bench $p --preset $p; done
  bench powerlaw --gen powerlaw:rows=1000000,cols=1000000,nnz=20000000
  bench banded --gen banded:rows=1000000,cols=1000000,nnz=20000000
else  # set B: the other carried DLMC layers, kos and MovieLens 100K's shapes, seven generated
  for r in 0.7/bottleneck_2_block_group3_1_1 0.8/bottleneck_2_block_group3_1_1 0.9/bottleneck_2_block_group3_1_1 \
           0.95/bottleneck_2_block_group3_1_1 0.98/bottleneck_2_block_group3_1_1 0.9/bottleneck_2_block_group4_1_1 \
           0.9/bottleneck_1_block_group1_1_1; do bench "dlmc-${r//\//-}" --input $M/$r.smtx; done
  for p in kos ml-100k; do bench $p --preset $p; done
  for g in uniform:rows=3000,cols=3000,nnz=150000,seed=11 clustered:rows=5000,cols=5000,nnz=300000,seed=12 \
           uniform:rows=20000,cols=5000,nnz=1000000,seed=13 banded:rows=50000,cols=50000,nnz=2000000,seed=14 \
           powerlaw:rows=100000,cols=20000,nnz=4000000,seed=15 clustered:rows=200000,cols=50000,nnz=10000000,seed=16 \
           uniform:rows=400000,cols=30000,nnz=40000000,seed=17; do bench "$g" --gen $g; done
fi
