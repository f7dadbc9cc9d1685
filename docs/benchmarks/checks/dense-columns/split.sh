# split.sh DOCWORD THRESHOLD OUTDIR: S's columns (words) that occur in at least THRESHOLD of the
# documents ("heavy") go to OUTDIR/heavy.txt, renumbered 1..H in column order, with W = H; the
# rest stay in OUTDIR/light.txt with their own ids and W. Both UCI docword files.
set -eu
in=$1 t=$2 out=$3
mkdir -p "$out"
awk -v t="$t" -v out="$out" '
  NR == FNR { if (FNR == 1) D = $1; else if (FNR == 2) W = $1; else if (FNR > 3) n[$2]++; next }
  FNR == 1 {
    for (w = 1; w <= W; ++w) if (n[w] >= t * D) { h[w] = ++H }
  }
  FNR > 3 {
    if ($2 in h) { print $1, h[$2], $3 > (out "/heavy.body"); ++nh } else { print > (out "/light.body"); ++nl }
  }
  END {
    print D > (out "/heavy.head"); print H > (out "/heavy.head"); print nh > (out "/heavy.head")
    print D > (out "/light.head"); print W > (out "/light.head"); print nl > (out "/light.head")
  }' "$in" "$in"
cat "$out/heavy.head" "$out/heavy.body" > "$out/heavy.txt"
cat "$out/light.head" "$out/light.body" > "$out/light.txt"
rm -f "$out"/*.head "$out"/*.body
head -3 "$out/heavy.txt" | tr '\n' ' '; echo "(heavy: D W nnz)"
