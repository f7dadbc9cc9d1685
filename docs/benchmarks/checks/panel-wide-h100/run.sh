#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; mkdir -p $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
f='*SpmmConformance*panel*'
timeout 100 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -3
FK_PANEL_CHUNK_ROWS=7 timeout 60 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -2
FK_PANEL_WIDE=1 FK_PANEL_CHUNK_ROWS=5 timeout 60 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -2
FK_PANEL_WIDE=2 timeout 60 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -2
echo "tests $((SECONDS-s)) s"
FK_PANEL_CHUNK_ROWS=7 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='*SpmmConformance*AwkwardProblems*panel*' 2>&1 | tail -2
echo "memcheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='*SpmmConformance*AwkwardProblems*panel*' 2>&1 | tail -2
echo "racecheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
opts="--device gpu --op n --runs 20 --warmup 3 --k 8,16,32,64"
for m in netflix ml-20m nytimes nips; do
  timeout 150 $b/fk-bench spmm --preset $m $opts --variants cuda.spmm.panel,cuda.spmm.cusparse,cuda.spmm.vdl --csv $out/w0.csv >/dev/null 2>>$out/err.log || echo "fail $m 0"
  for w in 1 2; do FK_PANEL_WIDE=$w timeout 100 $b/fk-bench spmm --preset $m $opts --variants cuda.spmm.panel --csv $out/w$w.csv >/dev/null 2>>$out/err.log || echo "fail $m $w"; done
  echo "$m $((SECONDS-s)) s"
done
FK_PANEL_CHUNK_ROWS=100000000 timeout 100 $b/fk-bench spmm --preset netflix $opts --variants cuda.spmm.panel --csv $out/nochunk.csv >/dev/null 2>>$out/err.log
echo "done $((SECONDS-s)) s"
for f in $out/w0.csv $out/w1.csv $out/w2.csv $out/nochunk.csv; do echo "== $f"; awk -F, 'NR>1 && $1=="spmm"{printf "%-8s %3s %-20s %8.4f %5.2f %s\n",$3,$7,$8,$14,$22,$25}' $f; done
