#!/usr/bin/env bash
# The apps' other configs and common option variations, each twice on the GPU: do the arrays
# repeat bit for bit, and does the kernel line name an unrepeatable kernel? (call-determinism.sh
# ran the report's configs.) Run with carry [".carry"]; returns device.txt and determinism.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/det
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
check() {  # check NAME APP ARGS...
  local name=$1 app=$2; shift 2
  for r in 1 2; do
    timeout 120 $bin/$app "$@" --device gpu --out /tmp/det/$name-$r > /tmp/det-$name-$r.log 2>&1 ||
      { echo "$name: run $r failed: $(tail -2 /tmp/det-$name-$r.log)" | tee -a "$o/determinism.txt"; return; }
  done
  local differ=()
  for f in /tmp/det/$name-1/*.npy; do
    cmp -s "$f" "/tmp/det/$name-2/$(basename "$f")" || differ+=("$(basename "$f")")
  done
  local note; note=$(grep -o "not bitwise repeatable: [^)]*" /tmp/det-$name-1.log | head -1)
  echo "$name: ${#differ[@]} of $(ls /tmp/det/$name-1/*.npy | wc -l) arrays differ ${differ[*]} ${note:+($note)}" | tee -a "$o/determinism.txt"
}
check als-ml20m fk-als --config configs/als-ml20m.ini --iters 2
check als-ml20m-implicit fk-als --config configs/als-ml20m-implicit.ini --iters 2
check als-ml100k-chol fk-als --config configs/als-ml100k.ini --input .carry/data/movielens-100k/u.data --solver cholesky
check lda-kos fk-lda --config configs/lda-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz
check lda-nips fk-lda --config configs/lda-nips.ini --iters 2
check lda-nytimes-bf16 fk-lda --config configs/lda-nytimes.ini --iters 2 --precision bf16
check lda-nytimes-unfused fk-lda --config configs/lda-nytimes.ini --iters 2 --ratio-spmm off
check gap-kos-alt fk-gap --config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --update alternating
check gap-nytimes-unfused fk-gap --config configs/gap-nytimes.ini --iters 2 --ratio-spmm off
check sfa-ml100k fk-sfa --config configs/sfa-ml100k.ini --input .carry/data/movielens-100k/u.data
