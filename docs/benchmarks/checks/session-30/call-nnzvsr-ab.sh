#!/usr/bin/env bash
# nnz_vsr with chunk-crossing rows added from stored pieces by a second kernel (new) against the
# float atomics it replaced (old, a25a619), alternated twice in one call, on problems where nnz_vsr
# runs: netflix S·B and Sᵀ·B, nytimes S·B, a power-law S·B, a medium uniform matrix (short
# chunks: many crossing rows). Run with carry [".carry/ab"] (bins.tar.xz: fk-bench-old,
# fk-bench-new; lib/); returns device.txt and ab.csv.
cd "$(dirname "$0")/../../../.." || exit 1
export LD_LIBRARY_PATH=$PWD/.carry/ab/lib
o=${OUT:-/tmp/out}; mkdir -p "$o"
tar xJf .carry/ab/bins.tar.xz -C .carry/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
v=cuda.spmm.nnz_vsr,auto
for round in 1 2; do
  for build in old new; do
    b=.carry/ab/fk-bench-$build
    $b spmm --preset netflix --op both --k 32,128,512 --variants $v --name "netflix-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    $b spmm --preset nytimes --k 32,128,512 --variants $v --name "nytimes-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    $b spmm --gen powerlaw:rows=200000,cols=200000,nnz=4000000 --k 1,4,32,128 --variants $v \
      --name "powerlaw-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    $b spmm --gen uniform:rows=20000,cols=20000,nnz=300000 --op both --k 1,4,32,128 --variants $v \
      --name "uniform-$build-$round" --csv "$o/ab.csv" > /dev/null 2>>"$o/err.txt"
    echo "round $round $build done ($SECONDS s)" | tee -a "$o/device.txt"
  done
done
grep -c wrong "$o/ab.csv"
tail -2 "$o/err.txt"
