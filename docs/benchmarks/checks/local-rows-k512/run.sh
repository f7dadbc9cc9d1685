# S·B at K = 300, 512, 1024 on generated matrices of up to 8000 rows whose consecutive rows share
# columns (banded, clustered; a uniform one of each set as a control), 2026-11-26. Two sets in one
# call: set A to fit a rule on, set B held out (read only after the rule was written). Run on the
# device from the repository root with fk-bench in .carry/bin; rows go to $OUT/set-{a,b}.csv.gz.
set -u
V=auto,cuda.spmm.cusparse,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/lr
run() {  # run SET GEN...
  local set=$1; shift
  for g in "$@"; do
    timeout 120 .carry/bin/fk-bench spmm --gen $g --op n --k 300,512,1024 --variants $V --runs 20 \
      --warmup 3 --csv /tmp/lr/set-$set.csv > /dev/null 2>&1 || echo "failed $g"
  done
}
run a banded:rows=3000,cols=3000,nnz=120000,seed=71 banded:rows=6000,cols=6000,nnz=300000,seed=72 \
      clustered:rows=4000,cols=4000,nnz=200000,seed=73 clustered:rows=1500,cols=1500,nnz=60000,seed=74 \
      uniform:rows=3000,cols=3000,nnz=120000,seed=75 banded:rows=1000,cols=1000,nnz=100000,seed=76 \
      clustered:rows=7000,cols=7000,nnz=350000,seed=77
run b banded:rows=2000,cols=2000,nnz=60000,seed=81 banded:rows=5000,cols=5000,nnz=400000,seed=82 \
      clustered:rows=2500,cols=2500,nnz=150000,seed=83 clustered:rows=6000,cols=6000,nnz=180000,seed=84 \
      uniform:rows=4000,cols=4000,nnz=200000,seed=85 banded:rows=8000,cols=8000,nnz=240000,seed=86
gzip -c /tmp/lr/set-a.csv > "$OUT/set-a.csv.gz"
gzip -c /tmp/lr/set-b.csv > "$OUT/set-b.csv.gz"
