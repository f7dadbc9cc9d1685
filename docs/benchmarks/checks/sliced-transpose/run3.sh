#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; w=/tmp/o3; rm -rf $w; mkdir -p $w $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
o="--device gpu --runs 10 --warmup 2 --k 128,256 --op t --variants auto,cuda.spmm.row_split,cuda.spmm.row_csc"
for g in uniform:rows=2000000,cols=20000,nnz=60000000,seed=3 clustered:rows=1000000,cols=10000,nnz=30000000,seed=3 powerlaw:rows=1000000,cols=20000,nnz=20000000,seed=3; do
  timeout 120 $b/fk-bench spmm --gen $g $o --csv $w/oos.csv > /dev/null 2>>$w/err.log || echo "fail $g"
  echo "$g $((SECONDS-s)) s"; tar czf $out/oos3.tar.gz -C $w .
done
