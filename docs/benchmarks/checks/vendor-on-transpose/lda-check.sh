#!/usr/bin/env bash
# fk-lda on the nytimes corpus with and without the vendor-on-transpose rules (the "Rule 1 in the
# LDA app" section of README.md). Built here, from the repository root, at f5e89c2:
#   ninja -C build/device fk-lda                       # the rules as committed -> fk-lda
#   (in kernels/select.cpp, choose_gpu_spmm: guard the vendor override with `false &&`)
#   ninja -C build/device fk-lda                       # the rules off -> fk-lda-before
# Both binaries (stripped), libboost_program_options in .carry/lib, xz-tarred as .carry/bin.tar.xz;
# then on the device machine, from the repository root:  bash <this script>
set -uo pipefail
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for b in fk-lda-before fk-lda; do
    echo "=== round $round: $b"
    .carry/bin/$b --config configs/lda-nytimes.ini --iters 3 --device gpu --eval-every 0 2>&1 |
      grep -E "kernels|pass [0-9]|median" | tail -6
  done
done
