# The committed version (two kernel instantiations, tiles in the grid or not) against the build
# before: nips (Sᵀ·B takes the old path, S·B the new), bcsstk13, delaunay_n14 (both ops old path:
# 16384 rows), hep-th and a DLMC layer, K = 300 and 512, cuda.spmm.row_csc, three alternating
# rounds. fk-bench-old and fk-bench in .carry/bin; rows go to $OUT/ab2-{before,after}.csv.gz.
set -u
D=.carry/data; mkdir -p /tmp/ab2
for i in 1 2 3; do
  for b in fk-bench-old fk-bench; do
    for src in "--preset nips" "--input $D/suitesparse/bcsstk13.mtx" "--input $D/suitesparse/delaunay_n14.mtx" \
               "--input $D/suitesparse/hep-th.mtx" \
               "--input $D/dlmc/rn50/magnitude_pruning/0.9/final_dense.smtx --name 0.9/final_dense"; do
      timeout 60 .carry/bin/$b spmm $src --op both --k 300,512 --variants cuda.spmm.row_csc --runs 15 \
        --warmup 3 --csv /tmp/ab2/$b.csv > /dev/null 2>&1 || echo "failed $b $src"
    done
  done
done
gzip -c /tmp/ab2/fk-bench-old.csv > "$OUT/ab2-before.csv.gz"
gzip -c /tmp/ab2/fk-bench.csv > "$OUT/ab2-after.csv.gz"
