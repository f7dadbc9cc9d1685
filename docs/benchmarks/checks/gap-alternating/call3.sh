#!/usr/bin/env bash
# Review follow-up: the joint order fused (auto) against --ratio-spmm off on the small corpora,
# where launches rather than bytes set the time (gap-kos K = 50, gap-default K = 20), alternated
# three times in one call.
set -u
cd "$(dirname "$0")/.."
source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
kos="--config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --eval-every 0"
dflt="--config configs/gap-default.ini --eval-every 0"
for r in 1 2 3; do
  for f in off auto; do
    for c in kos dflt; do
      args=${!c}
      $bin/fk-gap $args --device gpu --ratio-spmm $f --out /tmp/g-$c-$f > /dev/null 2>&1
      # The median iteration in microseconds (the summary line prints 4 decimals of a second).
      med=$(grep -o '"seconds":[0-9.e-]*' /tmp/g-$c-$f/metrics.jsonl | cut -d: -f2 | sort -g |
            awk '{v[NR] = $1} END {printf "%.1f", 1e6 * v[int((NR + 1) / 2)]}')
      obj=$(tail -1 /tmp/g-$c-$f/metrics.jsonl | grep -o '"objective":[-0-9.e]*')
      echo "$c $f round $r: median iteration $med us, $obj" | tee -a $o/summary.txt
    done
  done
done
