#!/usr/bin/env bash
# Paired A/B of two bench/omp_quick binaries on the DLMC sample at K = 128 and 256, alternating
# A B A B A B on one quiet machine (the 2-core development machine).
#   run.sh A_BINARY B_BINARY OUTDIR
set -euo pipefail
a=$1 b=$2 out=$3
mkdir -p "$out"
for x in A1:$a B1:$b A2:$a B2:$b A3:$a B3:$b; do
  n=${x%%:*}; bin=${x#*:}
  "$bin" --quick --only dlmc --k 128,256 --csv "$out/$n.csv" > "$out/$n.log" 2>&1
  gzip -f "$out/$n.csv"
done
