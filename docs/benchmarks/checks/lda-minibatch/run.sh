#!/usr/bin/env bash
# The kernels on fk-lda's minibatch shape, and fk-lda with forced variants (README.md).
# Here, from the repository root, with the device build of the commit under test:
#   build/device/apps/datagen/fk-datagen lda --preset nytimes --docs 4096 --out /tmp/ny
#   python3 docs/benchmarks/checks/lda-minibatch/make_minibatch.py /tmp/ny/docword.txt /tmp/mb.mtx
#   mkdir -p .carry/bin .carry/lib; cp build/device/apps/{bench/fk-bench,lda/fk-lda} .carry/bin/
#   (plus libboost_program_options in .carry/lib; xz /tmp/mb.mtx into .carry/mb.mtx.xz)
# then on the device machine, from the repository root: bash <this script>  ($OUT: where to write)
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
$B/fk-bench spmm --input /tmp/mb.mtx --name lda-mb --op both --k 256 --runs 20 --warmup 3 --csv $OUT/mb-spmm.csv
$B/fk-bench sddmm --input /tmp/mb.mtx --name lda-mb --form unscaled --k 256 --runs 20 --warmup 3 --csv $OUT/mb-sddmm.csv
run() {
  echo "=== fk-lda --config configs/lda-nytimes.ini --iters 3 --device gpu --eval-every 0 $*"
  $B/fk-lda --config configs/lda-nytimes.ini --iters 3 --device gpu --eval-every 0 --out /tmp/o "$@" 2>&1 |
    grep -E "kernels|pass [0-9]|median" | tail -5
}
{ run; run --sddmm cuda.sddmm.convert; run --spmm cuda.spmm.row_split; run --spmm cuda.spmm.nnz_vsr; run; } | tee $OUT/lda-runs.txt
