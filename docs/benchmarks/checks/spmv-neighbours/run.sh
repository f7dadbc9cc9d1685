#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; s=$SECONDS; mkdir -p /tmp/o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bd=$(cat .carry/build_dir)
for a in gap/fk-gap sfa/fk-sfa als/fk-als lda/fk-lda datagen/fk-datagen bench/fk-bench; do
  mkdir -p $bd/apps/$(dirname $a) && ln -sfn $PWD/.carry/bin/$(basename $a) $bd/apps/$a
done
for t in fk_kernel_tests fk_app_tests fk_gap_tests fk_sfa_tests fk_core_tests fk_io_tests; do
  timeout 200 $b/$t --gtest_brief=1 > /tmp/o/$t.log 2>&1; echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' /tmp/o/$t.log | tr '\n' ' ') $t $((SECONDS-s)) s"
  grep -E '^\[  FAILED' /tmp/o/$t.log | head -5
done
for f in 'DeviceOps.SampledNeighbourShareMatchesHost' 'CudaSpmmSpecific.SlicedTransposedProduct'; do
  timeout 120 compute-sanitizer --tool memcheck $b/fk_kernel_tests --gtest_filter=$f 2>&1 | grep -E 'ERROR SUMMARY|PASSED|FAILED' | tr '\n' ' '; echo " memcheck $f"
done
timeout 60 compute-sanitizer --tool racecheck $b/fk_kernel_tests --gtest_filter=DeviceOps.SampledNeighbourShareMatchesHost 2>&1 | grep -E 'HAZARD|RACECHECK SUMMARY' | head -3
for m in "uniform:rows=500000,cols=80000,nnz=60000000,seed=13" "clustered:rows=300000,cols=110000,nnz=45000000,param=2,seed=13" "clustered:rows=300000,cols=110000,nnz=45000000,param=4,seed=13" "uniform:rows=100000,cols=100000,nnz=12000000,seed=13" "clustered:rows=400000,cols=90000,nnz=60000000,param=64,seed=13"; do
  timeout 120 $b/fk-bench spmm --gen $m --op n --k 1 --variants cuda.spmm.panel,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.nnz_vsr,auto --runs 20 --warmup 3 --csv /tmp/o/oos.csv > /dev/null 2>&1; echo "oos $m rc=$? $((SECONDS-s)) s"
done
python3 - <<'PY'
import csv
for r in csv.DictReader(open('/tmp/o/oos.csv')):
    print(r['matrix'][:55], r['variant'], r['chosen'], r['median_ms'], r['status'])
PY
bash scripts/report.sh --measure-only --bin .carry/bin --only kernels --commit 22dff74 --matrices bcsstk13,delaunay_n14,hep-th,dlmc-0.9-bottleneck_2_block_group4_2_1,dlmc-0.9-final_dense,dlmc-0.5-bottleneck_2_block_group3_1_1,nips,ml-20m --out /tmp/rep/kernels-1 > /tmp/o/rep1.log 2>&1; echo "report k1 rc=$? $((SECONDS-s)) s"
tail -3 /tmp/o/rep1.log
tar czf $OUT/t1.tar.gz -C /tmp o rep
