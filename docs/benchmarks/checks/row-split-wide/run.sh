# S·B at K = 256 and 512: row_split against cuSPARSE (and the other kernels) with row_split's
# fill of one wave (0918fb5), which came after the K > 128 rule of checks/row-split was dropped
# (2026-11-26). Run on the device from the repository root with fk-bench in .carry/bin and the data
# in $FK_SHARED_DATA; `run.sh SET` writes $OUT/SET.csv.gz.
#   fit: every DLMC layer on file, the report's SuiteSparse matrices and nips, and the generated
#        matrices of checks/row-split (its sweep, its two out-of-sample sets)
#   held: fresh generated matrices (seed 13), read only after the rule was written
set -u
set_name=$1
V=auto,cuda.spmm.cusparse,cuda.spmm.row_split,cuda.spmm.row_csc,cuda.spmm.nnz_vsr,cuda.spmm.dense
csv=/tmp/row-split-wide-$set_name.csv
rm -f $csv
bench() {
  timeout 200 .carry/bin/fk-bench spmm "$@" --op n --k 256,512 --variants $V --runs 20 --warmup 3 \
    --csv $csv > /dev/null 2>&1 || echo "failed $*"
}
case $set_name in
  fit)
    for f in $(cd $FK_SHARED_DATA && find dlmc -name '*.smtx' | sort); do
      bench --input $FK_SHARED_DATA/$f --name $(basename $(dirname $f))/$(basename $f .smtx)
    done
    for m in bcsstk13 hep-th delaunay_n14; do bench --input $FK_SHARED_DATA/suitesparse/$m.mtx; done
    bench --preset nips
    for g in uniform:rows=512,cols=8192,nnz=1048576,seed=1 uniform:rows=2048,cols=4096,nnz=819200,seed=1 \
             uniform:rows=768,cols=3000,nnz=230400,seed=1 powerlaw:rows=1024,cols=16384,nnz=524288,seed=1 \
             clustered:rows=4096,cols=4096,nnz=1048576,seed=1 uniform:rows=300,cols=20000,nnz=600000,seed=1 \
             uniform:rows=384,cols=6144,nnz=1179648,seed=5 uniform:rows=700,cols=5000,nnz=350000,seed=5 \
             uniform:rows=3000,cols=1500,nnz=450000,seed=5 clustered:rows=1024,cols=8192,nnz=819200,seed=5 \
             uniform:rows=448,cols=6000,nnz=268800,seed=7 uniform:rows=640,cols=3000,nnz=320000,seed=7 \
             clustered:rows=512,cols=4096,nnz=262144,seed=7 uniform:rows=768,cols=16384,nnz=1572864,seed=7 \
             uniform:rows=320,cols=8192,nnz=327680,seed=7 uniform:rows=1024,cols=4096,nnz=524288,seed=7; do
      bench --gen $g
    done ;;
  held)
    for g in uniform:rows=500,cols=5000,nnz=250000,seed=13 clustered:rows=600,cols=4000,nnz=270000,seed=13 \
             uniform:rows=400,cols=10000,nnz=400000,seed=13 clustered:rows=700,cols=7000,nnz=490000,seed=13 \
             uniform:rows=900,cols=3000,nnz=360000,seed=13 banded:rows=512,cols=4608,nnz=235000,seed=13 \
             uniform:rows=384,cols=2304,nnz=230000,seed=13 clustered:rows=1024,cols=4096,nnz=600000,seed=13 \
             uniform:rows=1536,cols=6000,nnz=900000,seed=13 clustered:rows=448,cols=9000,nnz=300000,seed=13 \
             uniform:rows=256,cols=4608,nnz=150000,seed=13 banded:rows=800,cols=8000,nnz=480000,seed=13; do
      bench --gen $g
    done ;;
  *) echo "unknown set $set_name"; exit 2 ;;
esac
gzip -c $csv > "$OUT/$set_name.csv.gz"
