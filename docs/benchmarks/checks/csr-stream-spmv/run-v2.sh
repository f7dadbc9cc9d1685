#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
mkdir -p .carry/data && tar xJf .carry/data.tar.xz -C .carry/data
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
B=.carry/bin D=.carry/data O=$OUT M=.carry/data/dlmc/rn50/magnitude_pruning
mkdir -p $O/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $(cat .carry/commit)"
F='*csr_stream*:CudaSpmmSpecific.*'
timeout 200 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter="$F" > $O/logs/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|Failure" -A8 $O/logs/tests.log | head -40; tail -3 $O/logs/tests.log
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter='*csr_stream*:*CsrStream*' > $O/logs/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -2 $O/logs/memcheck.log
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter='*csr_stream*:*CsrStream*' > $O/logs/racecheck.log 2>&1; echo "racecheck rc=$?"; tail -2 $O/logs/racecheck.log
V=auto,cuda.spmm.cusparse,cuda.spmm.csr_stream,cuda.spmm.csr_stream4k,cuda.spmm.vdl,cuda.spmm.nnz_vsr
bench() { local label=$1; shift
  timeout 200 $B/fk-bench spmm "$@" --op n --k 1 --variants $V --name "$label" --csv $O/k1.csv --runs 30 --warmup 5 > "$O/logs/$(echo $label | tr -c 'a-z0-9\n' _).txt" 2>&1 || echo "FAILED $label"; }
SECONDS=0
for p in nips ml-20m nytimes netflix kos; do bench $p --preset $p; done
bench powerlaw --gen powerlaw:rows=1000000,cols=1000000,nnz=20000000
bench banded --gen banded:rows=1000000,cols=1000000,nnz=20000000
for g in uniform:rows=2000000,cols=500000,nnz=40000000,seed=61 powerlaw:rows=500000,cols=40000,nnz=50000000,seed=62 \
         clustered:rows=300000,cols=30000,nnz=30000000,seed=63 powerlaw:rows=2000000,cols=20000,nnz=40000000,seed=64 \
         banded:rows=3000000,cols=3000000,nnz=30000000,seed=66; do bench "$g" --gen $g; done
echo "bench done at $SECONDS s"
tar czf $O/logs.tar.gz -C $O logs && rm -rf $O/logs
