set -u
name=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$name"
tar xJf .carry/bin.tar.xz -C .carry; mkdir -p .carry/data; tar xJf .carry/data.tar.xz -C .carry/data
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin/fk-bench; D=.carry/data; mkdir -p /tmp/r
V=cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.panel,cuda.spmm.dense,auto
run() { timeout 90 $B spmm "$@" --op t --k 1,2,4 --variants $V --runs 15 --warmup 3 --csv /tmp/r/oos.csv > /dev/null 2>&1 || echo "failed $*"; }
run --input $D/uci-kos/docword.kos.txt.gz
run --input $D/movielens-100k/u.data --name u.data
for g in uniform:rows=20000,cols=3000,nnz=600000 uniform:rows=4000,cols=800,nnz=400000 uniform:rows=4096,cols=102660,nnz=942000 \
         powerlaw:rows=50000,cols=20000,nnz=800000 powerlaw:rows=5000,cols=5000,nnz=100000 banded:rows=100000,cols=100000,nnz=900000 \
         clustered:rows=60000,cols=60000,nnz=900000 uniform:rows=300,cols=30000,nnz=240000 uniform:rows=1000,cols=1000,nnz=50000 \
         clustered:rows=8000,cols=8000,nnz=120000 banded:rows=20000,cols=20000,nnz=200000; do
  run --gen $g
done
gzip -c /tmp/r/oos.csv > $OUT/oos.csv.gz
