#!/usr/bin/env bash
# The ratio SpMM on a GPU machine (docs/benchmarks/ratio-spmm.md): fused against the pair on the
# LDA shapes, and fk-lda with and without it. Here, from the repository root, first:
#   ninja -C build/device fk-bench fk-lda        (and the tests, for the checks before it)
#   build/device/apps/datagen/fk-datagen lda --preset nytimes --docs 4096 --out /tmp/ny
#   python3 docs/benchmarks/checks/lda-minibatch/make_minibatch.py /tmp/ny/docword.txt /tmp/mb.mtx
#   .carry/: bin.tar.xz (fk-bench, fk-lda), lib/ (libboost_program_options), mb.mtx.xz,
#   data/uci-kos/ (../shared/data/uci-kos)
# Then on the device machine, from the repository root ($OUT: where to write):
#   bash docs/benchmarks/ratio-spmm/run-h100.sh
set -uo pipefail
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
run() {
  local tag=$1
  $B/fk-bench ratio-spmm --input /tmp/mb.mtx --name lda-nytimes-minibatch --k 32,64,100,256 --runs 20 --csv $OUT/$tag.csv
  $B/fk-bench ratio-spmm --input .carry/data/uci-kos/docword.kos.txt.gz --name kos --k 20,50,100 --runs 20 --csv $OUT/$tag.csv
  $B/fk-bench ratio-spmm --preset nips --k 32,64,100,256 --runs 20 --csv $OUT/$tag.csv
  $B/fk-bench ratio-spmm --preset default --k 20,100 --runs 20 --csv $OUT/$tag.csv
  $B/fk-bench ratio-spmm --preset nytimes --k 32,64,256 --runs 10 --csv $OUT/$tag.csv
}
run run1 > /dev/null 2>&1
run run2 > /dev/null 2>&1
lda() { echo "=== $*"; $B/fk-lda --device gpu "$@" 2>&1 | grep -E "kernels|pass [0-9]|median"; }
for r in 1 2; do for x in off auto; do
  lda --config configs/lda-nytimes.ini --iters 3 --eval-every 0 --ratio-spmm $x --out /tmp/o; done; done
for r in 1 2; do for x in off auto; do
  lda --config configs/lda-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --ratio-spmm $x --out /tmp/k; done; done
for x in off auto; do lda --config configs/lda-default.ini --ratio-spmm $x --out /tmp/d; done
