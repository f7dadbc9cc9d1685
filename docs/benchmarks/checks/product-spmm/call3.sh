#!/usr/bin/env bash
# fk-bench ratio-spmm --form product on the apps' shapes: fused against the pair, with the floor.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin/fk-bench
o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/device.txt
common="--form product --runs 20 --warmup 3 --variants pair,cuda.ratio_spmm.fused,auto"
t0=$SECONDS
timeout 200 $b ratio-spmm --preset netflix --k 16,104,260 $common --csv $o/netflix.csv > $o/netflix.txt 2>&1; echo "netflix rc=$? $((SECONDS-t0)) s"
timeout 150 $b ratio-spmm --preset netflix --transpose --k 16 $common --csv $o/netflix-t.csv > $o/netflix-t.txt 2>&1; echo "netflix^T rc=$? $((SECONDS-t0)) s"
timeout 150 $b ratio-spmm --preset ml-20m --k 64,104,256 $common --csv $o/ml20m.csv > $o/ml20m.txt 2>&1; echo "ml-20m rc=$? $((SECONDS-t0)) s"
grep -hE "^ *(pair|cuda|auto)|K = " $o/*.txt | head -60
