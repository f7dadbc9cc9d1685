# row_csc against the build before, alternating matrix by matrix (2026-11-26): every SuiteSparse
# file and DLMC rn50 layer on file, the nips preset and two generated matrices, S·B and Sᵀ·B,
# cuda.spmm.row_csc (cuSPARSE is timed too, as fk-bench always times the baseline).
#   bash run.sh [K,K,...]   K = 300,512,1024 when not given (the tiles across the grid, against
#                           6808e07); the narrow-tile A/B ran `run.sh 160,256,512,1024` (against bf4c77d)
# Run on the device from the repository root with fk-bench-old (before) and fk-bench (after) in
# .carry/bin and ../shared/data's dlmc and suitesparse folders in .carry/data; rows go to
# $OUT/before.csv.gz and $OUT/after.csv.gz.
set -u
ks=${1:-300,512,1024}
D=.carry/data; mkdir -p /tmp/rc; rm -f /tmp/rc/*.csv
run() {  # run BUILD SOURCE-ARGS...
  local bin=$1; shift
  timeout 60 .carry/bin/$bin spmm "$@" --op both --k "$ks" --variants cuda.spmm.row_csc \
    --runs 15 --warmup 3 --csv /tmp/rc/$bin.csv > /dev/null 2>&1 || echo "failed $bin $*"
}
for f in $D/suitesparse/*.mtx $(find $D/dlmc -name '*.smtx' | sort); do
  rel=${f#$D/dlmc/rn50/magnitude_pruning/}; name=${rel%.smtx}
  case $f in *dlmc*) nm=(--name "$name");; *) nm=();; esac
  for b in fk-bench-old fk-bench; do run $b --input $f "${nm[@]}"; done
done
for src in "--preset nips" "--gen uniform:rows=4000,cols=300,nnz=240000,seed=61" \
           "--gen powerlaw:rows=6000,cols=5000,nnz=300000,seed=62"; do
  for b in fk-bench-old fk-bench; do run $b $src; done
done
gzip -c /tmp/rc/fk-bench-old.csv > "$OUT/before.csv.gz"
gzip -c /tmp/rc/fk-bench.csv > "$OUT/after.csv.gz"
