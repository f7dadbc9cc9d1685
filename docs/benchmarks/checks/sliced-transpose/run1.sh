#!/usr/bin/env bash
# Run 1 (H200, binaries of 754edb0 plus the sliced plan with a temporary FK_NO_SLICE switch that
# turned slicing off; slicing then applied to every inner variant where B outgrew L2).
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; w=/tmp/sl; mkdir -p $w
o="--device gpu --runs 10 --warmup 2 --k 32,64,128,256,512 --op t --variants auto,cuda.spmm.row_split,cuda.spmm.nnz_vsr"
for m in netflix nytimes ml-20m; do
  $b/fk-bench spmm --preset $m $o --csv $w/new.csv > /dev/null
  FK_NO_SLICE=1 $b/fk-bench spmm --preset $m $o --csv $w/old.csv > /dev/null
done
