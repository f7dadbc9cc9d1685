#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; mkdir -p $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
for n in 4 8; do FK_ROW_SPLIT_NNZ=$n timeout 100 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*SpmmConformance*row_split*:*CudaSpmmSpecific.RowsAcross*:*Misaligned*:*GiantRow*' 2>&1 | tail -1; done
echo "tests $((SECONDS-s)) s"
o="--device gpu --runs 20 --warmup 3 --k 32,64,128,256,512"
run() {
  timeout 90 $b/fk-bench spmm $1 $o --op n --variants cuda.spmm.row_split,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.dense --csv $out/rs32.csv >/dev/null 2>>$out/err.log || echo "fail $1"
  for n in 16 8 4; do FK_ROW_SPLIT_NNZ=$n timeout 60 $b/fk-bench spmm $1 $o --op n --variants cuda.spmm.row_split --csv $out/rs$n.csv >/dev/null 2>>$out/err.log || echo "fail $n $1"; done
}
for f in .carry/data/dlmc/rn50/magnitude_pruning/*/*.smtx .carry/data/suitesparse/*.mtx; do run "--input $f"; done
echo "dlmc $((SECONDS-s)) s"
for g in "--preset nips" "--gen uniform:rows=1000,cols=10000,nnz=300000,seed=5" "--gen uniform:rows=3000,cols=50000,nnz=3000000,seed=5" \
   "--gen banded:rows=1000,cols=1000,nnz=300000,seed=7" "--gen clustered:rows=3000,cols=3000,nnz=300000,seed=7" \
   "--gen uniform:rows=2000,cols=100000,nnz=1000000,seed=7" "--gen clustered:rows=800,cols=20000,nnz=400000,seed=7"; do run "$g"; done
echo "gens $((SECONDS-s)) s"
for n in 32 4; do FK_ROW_SPLIT_NNZ=$n timeout 120 $b/fk-bench spmm --preset ml-20m --device gpu --runs 10 --warmup 2 --k 32,128,512 --op t --variants cuda.spmm.row_split --csv $out/ml$n.csv >/dev/null 2>>$out/err.log; done
echo "done $((SECONDS-s)) s"
