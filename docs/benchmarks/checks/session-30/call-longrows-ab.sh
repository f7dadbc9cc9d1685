#!/usr/bin/env bash
# LongRows' partial rows added in order by a second kernel (no atomics) against the atomics it
# replaced: fk-bench of 3e6cf02 (old) and of the change (new), alternated twice in one call, on
# the shapes where the row kernels hand rows to LongRows: netflix's and ml-20m's items (Sᵀ·B) and
# a power-law matrix (S·B). Run with carry [".carry/ab"] holding bins.tar.xz (fk-bench-old,
# fk-bench-new) and lib/; returns device.txt and ab.csv.
cd "$(dirname "$0")/../../../.." || exit 1
export LD_LIBRARY_PATH=$PWD/.carry/ab/lib
o=${OUT:-/tmp/out}; mkdir -p "$o"
tar xJf .carry/ab/bins.tar.xz -C .carry/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
v=cuda.spmm.row_split,cuda.spmm.row_csc,cuda.spmm.vdl,auto
for round in 1 2; do
  for build in old new; do
    b=.carry/ab/fk-bench-$build
    $b spmm --preset netflix --op t --k 32,128 --variants $v --name "netflix-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    $b spmm --preset ml-20m --op t --k 32,128 --variants $v --name "ml-20m-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    $b spmm --gen powerlaw:rows=200000,cols=200000,nnz=4000000 --k 1,32,128 --variants $v,cuda.spmm.aspt \
      --name "powerlaw-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    echo "round $round $build done ($SECONDS s)" | tee -a "$o/device.txt"
  done
done
tail -3 "$o/err.txt"
