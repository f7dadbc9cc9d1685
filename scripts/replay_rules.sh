#!/usr/bin/env bash
# Replays the current build's `auto` rules against measured fk-bench CSVs, without a GPU: asks
# `fk-bench --explain-auto` what auto now picks on every matrix and K those CSVs hold, then
# prints how the picks would have fared (bench/report/replay_rules.py). Use it to check a rule
# change against every measurement on record before spending device time. It needs an fk-bench
# built with the GPU code (nvcc at configure time; a CPU-only build has no GPU rules to explain and
# fails), not a GPU: e.g. --bin build/device/apps/bench/fk-bench after scripts/device_pack.sh.
#   scripts/replay_rules.sh [--bin FK_BENCH] [--data DIR] [--misses] MEASURED.csv[.gz]...
# Matrix labels map back to sources as fk-bench made them: 'S/NAME' -> DIR/dlmc/rn50/
# magnitude_pruning/S/NAME.smtx, NAME -> DIR/suitesparse/NAME.mtx, or a file DIR/*/NAME or
# DIR/*/NAME.txt.gz (UCI docword, MovieLens u.data), labels with ':' -> --gen,
# anything else -> --preset (generated here: the large presets take a minute and ~3 GB).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/release/apps/bench/fk-bench"
data="${FK_SHARED_DATA:-$root/../shared/data}"
misses=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --misses) misses=(--misses); shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "replay_rules.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || { echo "replay_rules.sh: give at least one measured CSV" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "replay_rules.sh: no fk-bench at $bin (build it, or pass --bin)" >&2; exit 2; }
picks=$(mktemp /tmp/fk-picks.XXXXXX.csv)
trap 'rm -f "$picks"' EXIT
rm -f "$picks"
# matrix label, op, and the K values measured for it, one line per (matrix, op).
/usr/bin/env python3 - "$@" <<'PY' | while IFS=$'\t' read -r label op ks; do
import csv, gzip, sys, collections
ks = collections.defaultdict(set)
for path in sys.argv[1:]:
    f = gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")
    for r in csv.DictReader(f):
        if r.get("device") == "gpu":
            ks[(r["matrix"], r["op"])].add(int(r["k"]))
for (m, op), k in sorted(ks.items()):
    print(f"{m}\t{op}\t{','.join(map(str, sorted(k)))}")
PY
  if [[ "$label" == *:* ]]; then source=(--gen "$label")
  elif [[ -f "$data/dlmc/rn50/magnitude_pruning/$label.smtx" ]]; then source=(--input "$data/dlmc/rn50/magnitude_pruning/$label.smtx")
  elif [[ -f "$data/suitesparse/$label.mtx" ]]; then source=(--input "$data/suitesparse/$label.mtx")
  elif file=$(find "$data" -maxdepth 2 -type f \( -name "$label" -o -name "$label.txt.gz" \) | head -1) &&
       [[ -n "$file" ]]; then source=(--input "$file")
  else source=(--preset "$label"); fi
  extra=(); [[ $op == spmm ]] && extra=(--op both)
  "$bin" "$op" "${source[@]}" --k "$ks" "${extra[@]}" --device gpu --explain-auto --csv "$picks" >/dev/null
done
/usr/bin/env python3 "$root/bench/report/replay_rules.py" --picks "$picks" "${misses[@]}" "$@"
