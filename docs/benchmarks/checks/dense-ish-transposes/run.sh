# Sᵀ·B on transposes of more than 1024 rows at 40-80% density, every variant that applies to them
# (2026-11-26), three sets of generated matrices:
#   bash run.sh fit    eight (seeds 11-18; 1500-6000 transposed rows of 64-450, 40-60%), K = 32-256:
#                      the rule (choose_many_row_dense_transpose) was fitted on them
#   bash run.sh oos    nine more (seeds 21-29, rows of mean 72-800) about the first version's bounds
#                      (rows of mean 110, 250, 350), K = 64-256; the rule was revised on its miss
#   bash run.sh oos2   ten more (seeds 31-40) about the revised bounds (4500 rows at K = 64; means
#                      110, 250, 350), K = 64-256: the out-of-sample check
# Run on a lent GPU machine from the repository root, with the binaries and data of
# scripts/device_pack.sh unpacked in .carry/; rows go to $OUT/dense-ish{,-oos,-oos2}.csv.gz.
set -u
case ${1:-} in
  fit) tag=dense-ish; ks=32,64,128,256
       set -- uniform:rows=200,cols=5000,nnz=450000,seed=11 uniform:rows=400,cols=1500,nnz=330000,seed=12 \
              uniform:rows=128,cols=6000,nnz=384000,seed=13 uniform:rows=600,cols=1800,nnz=540000,seed=14 \
              uniform:rows=350,cols=2800,nnz=600000,seed=15 uniform:rows=900,cols=2000,nnz=900000,seed=16 \
              clustered:rows=320,cols=2500,nnz=400000,seed=17 uniform:rows=256,cols=4608,nnz=650000,seed=18 ;;
  oos) tag=dense-ish-oos; ks=64,128,256
       set -- uniform:rows=200,cols=3000,nnz=300000,seed=21 uniform:rows=250,cols=3200,nnz=384000,seed=22 \
              uniform:rows=400,cols=2400,nnz=576000,seed=23 uniform:rows=500,cols=1600,nnz=440000,seed=24 \
              uniform:rows=520,cols=1500,nnz=546000,seed=25 uniform:rows=160,cols=7000,nnz=504000,seed=26 \
              uniform:rows=700,cols=1200,nnz=352800,seed=27 clustered:rows=300,cols=3000,nnz=420000,seed=28 \
              uniform:rows=1000,cols=1100,nnz=880000,seed=29 ;;
  oos2) tag=dense-ish-oos2; ks=64,128,256
       set -- uniform:rows=100,cols=4200,nnz=231000,seed=31 uniform:rows=170,cols=5200,nnz=442000,seed=32 \
              uniform:rows=300,cols=3800,nnz=684000,seed=33 uniform:rows=240,cols=4000,nnz=480000,seed=34 \
              uniform:rows=640,cols=1400,nnz=403200,seed=35 uniform:rows=800,cols=1250,nnz=420000,seed=36 \
              uniform:rows=750,cols=1300,nnz=731250,seed=37 clustered:rows=220,cols=4400,nnz=440000,seed=38 \
              uniform:rows=150,cols=6500,nnz=780000,seed=39 banded:rows=1200,cols=1200,nnz=600000,seed=40 ;;
  *) echo "usage: run.sh fit|oos|oos2" >&2; exit 2 ;;
esac
B=.carry/bin/fk-bench
V=auto,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/$tag; rm -f /tmp/$tag/$tag.csv
for g in "$@"; do
  timeout 120 $B spmm --gen $g --op t --k $ks --variants $V --runs 20 --warmup 3 \
    --csv /tmp/$tag/$tag.csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c /tmp/$tag/$tag.csv > "$OUT/$tag.csv.gz"
