#!/usr/bin/env bash
# Short-row SpMM rules after nnz_vsr's chunk_for (7ab95a8): the candidate rules (S·B rows of mean
# <= 8 from 100K nonzeros; Sᵀ·B even transposed rows of mean <= 8 on nnz_vsr from K = 64 below
# 4.3M nonzeros) on matrices no rule was fitted on, the real files for the next rules, and
# racecheck on nnz_vsr. Rows -> $OUT/*.csv. Run from the repository root after
# scripts/device_pack.sh fk-bench fk_kernel_tests.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
T=.carry/bin/fk_kernel_tests
CS=/usr/local/cuda/bin/compute-sanitizer
# racecheck on nnz_vsr: fk-bench checks every result against the reference; rows cross chunks.
for g in "powerlaw:rows=3000,cols=2000,nnz=60000,seed=3" "uniform:rows=5000,cols=4000,nnz=20000,seed=4"; do
  timeout 150 $CS --tool racecheck --error-exitcode 9 $B spmm --gen "$g" --k 1,4,33 --op both \
    --variants cuda.spmm.nnz_vsr --runs 1 --warmup 0 --csv $OUT/racecheck.csv > $OUT/racecheck.log 2>&1
  echo "racecheck fk-bench $g rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"
done
timeout 150 $CS --tool racecheck --error-exitcode 9 $T --gtest_filter='Registered/SpmmConformance.PlanIsReusableWithNewValues/cuda_spmm_nnz_vsr' \
  --gtest_brief=1 > $OUT/racecheck-test.log 2>&1
echo "racecheck test rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' $OUT/racecheck-test.log | tail -2 | tr '\n' ' ')"
echo "racecheck done $(date +%T)"
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.vdl,cuda.spmm.cusparse,auto
oos=("banded:rows=300000,cols=300000,nnz=1200000,seed=71" "banded:rows=150000,cols=150000,nnz=1050000,seed=72"
     "clustered:rows=150000,cols=150000,nnz=600000,seed=73" "clustered:rows=400000,cols=400000,nnz=2400000,seed=74"
     "uniform:rows=500000,cols=500000,nnz=1500000,seed=75" "uniform:rows=200000,cols=100000,nnz=1400000,seed=76"
     "powerlaw:rows=200000,cols=200000,nnz=800000,param=0.3,seed=77" "uniform:rows=40000,cols=40000,nnz=160000,seed=78"
     "banded:rows=50000,cols=50000,nnz=150000,seed=79" "clustered:rows=1000000,cols=1000000,nnz=4000000,seed=80"
     "banded:rows=1500000,cols=1500000,nnz=6000000,seed=81")
for g in "${oos[@]}"; do
  timeout 150 $B spmm --gen "$g" --k 32,64,128,256 --op both --variants $V --runs 20 --warmup 3 \
    --csv $OUT/oos.csv > $OUT/last.log 2>&1 || { echo "fail $g"; tail -3 $OUT/last.log; }
  echo "oos $g $(date +%T)"
done
W=$V,cuda.spmm.row_split
for x in "--input .carry/data/uci-kos/docword.kos.txt.gz" "--input .carry/data/movielens-100k/u.data" "--preset nips" \
         "--input .carry/data/suitesparse/delaunay_n14.mtx" "--input .carry/data/suitesparse/bcsstk13.mtx" \
         "--input .carry/data/suitesparse/hep-th.mtx"; do
  timeout 150 $B spmm $x --k 32,50,64,128,256 --op both --variants $W --runs 20 --warmup 3 \
    --csv $OUT/real.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
  echo "real $x $(date +%T)"
done
