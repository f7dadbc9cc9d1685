# Out of sample for row_csc's 128-column tiles on very few rows, two sets (2026-11-26):
#   bash run-narrow-oos.sh 1   seven generated matrices (seeds 91-97), for narrow tiles on at most
#                              a quarter of the GPU's threads in the rows' warps (about 2112 rows on
#                              an H100); its rows added the condition of rows of mean >= 64
#   bash run-narrow-oos.sh 2   eight more (seeds 101-108, rows of mean 30-2000), held out for that
# S·B and Sᵀ·B, K = 160, 256, 512, cuda.spmm.row_csc, the build before (fk-bench-old: bf4c77d,
# 256-column tiles across the grid below 8448 rows) and after, alternating, two rounds. Rows go to
# $OUT/narrow-oos{,2}-{before,after}.csv.gz.
set -u
case ${1:-} in
  1) tag=narrow-oos
     set -- uniform:rows=800,cols=3000,nnz=80000,seed=91 banded:rows=1500,cols=1500,nnz=60000,seed=92 \
            clustered:rows=2000,cols=2000,nnz=100000,seed=93 powerlaw:rows=1800,cols=4000,nnz=150000,seed=94 \
            uniform:rows=400,cols=20000,nnz=400000,seed=95 uniform:rows=2100,cols=900,nnz=126000,seed=96 \
            uniform:rows=3000,cols=500,nnz=150000,seed=97 ;;
  2) tag=narrow-oos2
     set -- uniform:rows=1000,cols=5000,nnz=100000,seed=101 banded:rows=1200,cols=1200,nnz=96000,seed=102 \
            clustered:rows=1600,cols=3000,nnz=160000,seed=103 uniform:rows=2000,cols=2000,nnz=60000,seed=104 \
            powerlaw:rows=1000,cols=6000,nnz=120000,seed=105 banded:rows=700,cols=700,nnz=35000,seed=106 \
            uniform:rows=300,cols=8000,nnz=600000,seed=107 clustered:rows=1800,cols=1800,nnz=126000,seed=108 ;;
  *) echo "usage: run-narrow-oos.sh 1|2" >&2; exit 2 ;;
esac
mkdir -p /tmp/$tag; rm -f /tmp/$tag/*.csv
for i in 1 2; do
  for g in "$@"; do
    for b in fk-bench-old fk-bench; do
      timeout 60 .carry/bin/$b spmm --gen $g --op both --k 160,256,512 --variants cuda.spmm.row_csc \
        --runs 15 --warmup 3 --csv /tmp/$tag/$b.csv > /dev/null 2>&1 || echo "failed $b $g"
    done
  done
done
gzip -c /tmp/$tag/fk-bench-old.csv > "$OUT/$tag-before.csv.gz"
gzip -c /tmp/$tag/fk-bench.csv > "$OUT/$tag-after.csv.gz"
