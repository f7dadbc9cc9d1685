#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; mkdir -p $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
f='*TeamsOfLanes*:*RowsAcrossChunk*:*SpmmConformance*vdl*:*Misaligned*:*CudaSpmmSpecific.Auto*'
timeout 200 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -3
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*TeamsOfLanes*:*RowsAcrossChunk*' 2>&1 | tail -2
echo "memcheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
d=.carry/data/dlmc/rn50/magnitude_pruning
o="--device gpu --runs 20 --warmup 3 --k 1,2,4"
for round in 1 2 3; do
  for m in 0.9/final_dense 0.9/bottleneck_2_block_group_projection_block_group3 0.5/bottleneck_2_block_group3_1_1 0.9/bottleneck_2_block_group4_2_1; do
    timeout 60 $b/fk-bench spmm --input $d/$m.smtx $o --op n --variants cuda.spmm.vdl,cuda.spmm.cusparse --csv $out/rep-new.csv >/dev/null 2>>$out/err.log || echo "fail $m"
    FK_VDL_TEAM=0 timeout 60 $b/fk-bench spmm --input $d/$m.smtx $o --op n --variants cuda.spmm.vdl --csv $out/rep-old.csv >/dev/null 2>>$out/err.log || echo "fail old $m"
  done
done
echo "repeats $((SECONDS-s)) s"
for g in uniform:rows=3000,cols=50000,nnz=3000000,seed=5 clustered:rows=3000,cols=3000,nnz=300000,seed=7 \
    uniform:rows=2000,cols=100000,nnz=1000000,seed=7 banded:rows=1000,cols=1000,nnz=300000,seed=7 \
    uniform:rows=4000,cols=8000,nnz=280000,seed=7 clustered:rows=800,cols=20000,nnz=400000,seed=7 \
    powerlaw:rows=3000,cols=30000,nnz=900000,seed=7; do
  timeout 60 $b/fk-bench spmm --gen $g $o --op both --csv $out/oos-new.csv >/dev/null 2>>$out/err.log || echo "fail $g"
  FK_VDL_TEAM=0 timeout 60 $b/fk-bench spmm --gen $g $o --op both --variants cuda.spmm.vdl --csv $out/oos-old.csv >/dev/null 2>>$out/err.log || echo "fail old $g"
done
timeout 60 $b/fk-bench spmm --preset nips $o --op both --variants cuda.spmm.vdl,cuda.spmm.cusparse,cuda.spmm.panel --csv $out/oos-new.csv >/dev/null 2>>$out/err.log
echo "oos $((SECONDS-s)) s"
for src in "--preset nytimes" "--preset netflix" "--preset ml-20m" "--gen banded:rows=1000000,cols=1000000,nnz=20000000" "--gen powerlaw:rows=1000000,cols=1000000,nnz=20000000"; do
  timeout 120 $b/fk-bench spmm $src $o --op both --variants cuda.spmm.vdl,cuda.spmm.cusparse,cuda.spmm.panel --csv $out/big-default.csv >/dev/null 2>>$out/err.log || echo "fail $src"
  FK_VDL_TEAM=2 timeout 120 $b/fk-bench spmm $src $o --op both --variants cuda.spmm.vdl --csv $out/big-force.csv >/dev/null 2>>$out/err.log || echo "fail force $src"
  echo "$src $((SECONDS-s)) s"
done
echo "done $((SECONDS-s)) s"
