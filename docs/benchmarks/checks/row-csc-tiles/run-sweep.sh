# Every variant at K = 512 with the new row_csc (fk-bench in .carry/bin, the working tree of the
# commit that spreads row_csc's K tiles over the grid): S·B and Sᵀ·B on every SuiteSparse file and
# DLMC rn50 layer on file and the nips preset; then nips's Sᵀ·B (row_csc keeps the old path there:
# 12419 transposed rows fill the GPU) three more times with each build, alternating. Rows go to
# $OUT/sweep512.csv.gz and $OUT/nips-t-{before,after}.csv.gz.
set -u
D=.carry/data; mkdir -p /tmp/rs
V=cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense,auto
for f in $D/suitesparse/*.mtx $(find $D/dlmc -name '*.smtx' | sort); do
  rel=${f#$D/dlmc/rn50/magnitude_pruning/}; name=${rel%.smtx}
  case $f in *dlmc*) nm=(--name "$name");; *) nm=();; esac
  timeout 60 .carry/bin/fk-bench spmm --input $f "${nm[@]}" --op both --k 512 --variants $V --runs 15 \
    --warmup 3 --csv /tmp/rs/sweep512.csv > /dev/null 2>&1 || echo "failed $f"
done
timeout 60 .carry/bin/fk-bench spmm --preset nips --op both --k 512 --variants $V --runs 15 --warmup 3 \
  --csv /tmp/rs/sweep512.csv > /dev/null 2>&1 || echo "failed nips"
for i in 1 2 3; do
  for b in fk-bench-old fk-bench; do
    timeout 60 .carry/bin/$b spmm --preset nips --op t --k 300,512 --variants cuda.spmm.row_csc --runs 15 \
      --warmup 3 --csv /tmp/rs/nips-t-$b.csv > /dev/null 2>&1 || echo "failed $b nips"
  done
done
gzip -c /tmp/rs/sweep512.csv > "$OUT/sweep512.csv.gz"
gzip -c /tmp/rs/nips-t-fk-bench-old.csv > "$OUT/nips-t-before.csv.gz"
gzip -c /tmp/rs/nips-t-fk-bench.csv > "$OUT/nips-t-after.csv.gz"
