#!/usr/bin/env bash
# Session 40: every GPU SpMM variant on small matrices, for the `auto` rules' within-10% misses of
# the bf43c74 report (S·B hep-th K = 32: vdl 1.13x faster than the cuSPARSE pick; Sᵀ·B final_dense
# K = 32: nnz_vsr 1.12x faster than vdl; Sᵀ·B group4_2_1 K = 4: vdl 1.14x faster than nnz_vsr).
# Part 1: all 59 DLMC rn50 magnitude-pruning layers (packed here as .carry/dlmc.tar.xz, unpacked into
# .carry/data/dlmc there: the working tree that travels is limited to 64 MiB),
# S·B and Sᵀ·B at K = 1, 4, 32, 64, 128. Part 2: generated matrices of short rows (means 2-8, under
# 100K nonzeros) and the SuiteSparse files, S·B and Sᵀ·B at K = 16, 32, 64. fk-bench's defaults
# (median of 20 after 3 warm-ups, L2 flushed before each run). Replay the rules on the CSVs with
# scripts/replay_rules.sh --data .carry/data (here, without a GPU).
# Run with carry [".carry"]; returns dlmc.csv, small.csv and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
rm -rf .carry/data/dlmc && tar xJf .carry/dlmc.tar.xz -C .carry/data
SECONDS=0
n=0
for f in .carry/data/dlmc/rn50/magnitude_pruning/*/*.smtx; do
  ((SECONDS > 330)) && { echo "part 1 stopped before $f" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 1,4,32,64,128 --input "$f" --device gpu --csv "$o/dlmc.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "part 1: $n layers in ${SECONDS}s" | tee -a "$o/summary.txt"
SECONDS=0
n=0
for g in uniform:rows=4000,cols=4000,nnz=16000 uniform:rows=8000,cols=8000,nnz=30000 \
         uniform:rows=20000,cols=20000,nnz=80000 uniform:rows=30000,cols=30000,nnz=60000 \
         uniform:rows=45000,cols=45000,nnz=99000 uniform:rows=15000,cols=15000,nnz=90000 \
         uniform:rows=12000,cols=12000,nnz=96000 powerlaw:rows=20000,cols=20000,nnz=90000 \
         powerlaw:rows=8000,cols=8000,nnz=30000 banded:rows=25000,cols=25000,nnz=99000 \
         clustered:rows=16000,cols=16000,nnz=64000 clustered:rows=6000,cols=6000,nnz=24000; do
  ((SECONDS > 150)) && { echo "part 2 stopped before $g" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 16,32,64 --gen "$g" --device gpu --csv "$o/small.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
for f in .carry/data/suitesparse/*.mtx; do
  $bin/fk-bench spmm --op both --k 16,32,64 --input "$f" --device gpu --csv "$o/small.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "part 2: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
true
