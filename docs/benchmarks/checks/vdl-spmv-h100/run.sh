#!/usr/bin/env bash
# S·x (K = 1) with vdl against cuSPARSE on small and medium matrices: the rule in kernels/select.cpp
# (kGpuVdlSpmvEven*). Writes $OUT/in.csv (matrices the rule was fitted on) and $OUT/oos.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
S=.carry/data/suitesparse
in=("--input $S/bcsstk13.mtx" "--input $S/delaunay_n14.mtx" "--input $S/hep-th.mtx" "--preset kos" "--preset ml-100k" "--preset nips"
    "--gen uniform:rows=20000,cols=20000,nnz=100000,seed=11" "--gen powerlaw:rows=30000,cols=30000,nnz=300000,seed=12"
    "--gen banded:rows=50000,cols=50000,nnz=400000,seed=13" "--gen clustered:rows=10000,cols=10000,nnz=200000,seed=14"
    "--gen uniform:rows=4000,cols=4000,nnz=40000,seed=15" "--gen uniform:rows=100000,cols=100000,nnz=300000,seed=16"
    "--gen uniform:rows=500000,cols=500000,nnz=1000000,seed=21" "--gen banded:rows=200000,cols=200000,nnz=800000,seed=22"
    "--gen clustered:rows=50000,cols=50000,nnz=200000,seed=23" "--gen powerlaw:rows=100000,cols=100000,nnz=400000,seed=24"
    "--gen uniform:rows=3000,cols=3000,nnz=9000,seed=25")
oos=("--gen powerlaw:rows=50000,cols=50000,nnz=500000,seed=41,param=0.3" "--gen powerlaw:rows=50000,cols=50000,nnz=500000,seed=41,param=0.5"
     "--gen powerlaw:rows=20000,cols=20000,nnz=200000,seed=42,param=0.4" "--gen powerlaw:rows=100000,cols=100000,nnz=800000,seed=43,param=0.45"
     "--gen uniform:rows=300000,cols=300000,nnz=900000,seed=31" "--gen banded:rows=100000,cols=100000,nnz=1000000,seed=32"
     "--gen clustered:rows=80000,cols=80000,nnz=640000,seed=33" "--gen uniform:rows=30000,cols=30000,nnz=600000,seed=34"
     "--gen clustered:rows=20000,cols=20000,nnz=800000,seed=35" "--gen uniform:rows=8000,cols=50000,nnz=900000,seed=36"
     "--gen clustered:rows=200000,cols=200000,nnz=1000000,seed=39" "--gen uniform:rows=60000,cols=10000,nnz=960000,seed=40"
     "--gen uniform:rows=1000000,cols=1000000,nnz=3000000,seed=37" "--gen banded:rows=300000,cols=300000,nnz=2400000,seed=38")
run() {  # csv, matrices...
  local csv=$1; shift
  for x in "$@"; do
    timeout 120 $B spmm $x --k 1 --op n --variants cuda.spmm.vdl,cuda.spmm.cusparse,auto --runs 20 --warmup 3 \
      --csv $OUT/$csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
  done
}
run in.csv "${in[@]}"
run oos.csv "${oos[@]}"
python3 - <<'PY'
import csv,os,collections
for f in ('in.csv','oos.csv'):
  t=collections.OrderedDict()
  for r in csv.DictReader(open(os.path.join(os.environ['OUT'],f))):
    t.setdefault(r['matrix'],{})[r['variant'].replace('cuda.spmm.','')]=r
  print('==',f)
  for m,d in t.items():
    a=d['auto']
    print(m[:58], d['cusparse']['nnz'], 'cusparse %.1f vdl %.1f (%.2f) auto %s %.1f (%.2f)'%(float(d['cusparse']['median_ms'])*1e3, float(d['vdl']['median_ms'])*1e3, float(d['vdl']['speedup_vs_baseline']), a['chosen'].replace('cuda.spmm.',''), float(a['median_ms'])*1e3, float(a['speedup_vs_baseline'])))
PY
