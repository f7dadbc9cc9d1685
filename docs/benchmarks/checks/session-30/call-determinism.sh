#!/usr/bin/env bash
# Does the same --seed give the same model on the GPU, run after run (the promise of --seed's
# help)? Every app twice on the GPU, on a small input and on the large configs (where the kernels
# with atomics or vendor algorithms run), then cmp of every .npy the two runs wrote.
# Run with carry [".carry"]; returns device.txt and determinism.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
check() {  # check NAME APP ARGS...: two GPU runs, then cmp
  local name=$1 app=$2; shift 2
  for r in 1 2; do
    timeout 150 $bin/$app "$@" --device gpu --out /tmp/det/$name-$r -q > /tmp/det-$name-$r.log 2>&1 ||
      { echo "$name: run $r failed: $(tail -2 /tmp/det-$name-$r.log)" | tee -a "$o/determinism.txt"; return; }
  done
  local differ=()
  for f in /tmp/det/$name-1/*.npy; do
    cmp -s "$f" "/tmp/det/$name-2/$(basename "$f")" || differ+=("$(basename "$f")")
  done
  echo "$name: ${#differ[@]} of $(ls /tmp/det/$name-1/*.npy | wc -l) arrays differ ${differ[*]}" | tee -a "$o/determinism.txt"
}
mkdir -p /tmp/det
check lda-default fk-lda --config configs/lda-default.ini
check lda-nytimes fk-lda --config configs/lda-nytimes.ini --iters 2
check gap-kos fk-gap --config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz
check gap-nytimes fk-gap --config configs/gap-nytimes.ini --iters 2
check als-ml100k fk-als --config configs/als-ml100k.ini --input .carry/data/movielens-100k/u.data
check als-netflix fk-als --config configs/als-netflix.ini --iters 2
check sfa-ml100k fk-sfa --config configs/sfa-ml100k.ini --input .carry/data/movielens-100k/u.data
check sfa-netflix fk-sfa --config configs/sfa-netflix.ini --iters 2
