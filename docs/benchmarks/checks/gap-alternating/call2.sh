#!/usr/bin/env bash
# fk-gap at 432ed49: the joint order fused under auto on the GPU. Tests and memcheck, then on nytimes
# the joint order with --ratio-spmm off (the code before) and auto (fused), and the alternating
# order (auto), alternated twice at 20 iterations and once at 40, metrics every iteration; kos at
# K = 50 and 128 in both orders. metrics.jsonl of each come back.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o/logs $o/runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/logs/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE 'PASSED|FAILED|ERROR SUMMARY' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
step gap-tests 120 $bin/fk_gap_tests --gtest_brief=1
step memcheck-gap 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='GapMath.GpuAgreesWithCpu'
run() {  # run NAME ARGS...
  local name=$1; shift
  timeout 150 $bin/fk-gap "$@" --device gpu --eval-every 1 --out /tmp/gap-$name > $o/logs/$name.log 2>&1
  echo "$name rc=$?: $(grep -h 'median time per\|kernels:' $o/logs/$name.log | sed 's/.*kernels: //' | tr '\n' ' ')" | tee -a $o/summary.txt
  mkdir -p $o/runs/$name && cp /tmp/gap-$name/metrics.jsonl $o/runs/$name/
}
nyt="--config configs/gap-nytimes.ini"
for r in 1 2; do
  run nyt-joint-off-$r $nyt --iters 20 --ratio-spmm off
  run nyt-joint-auto-$r $nyt --iters 20
  run nyt-alt-$r $nyt --iters 20 --update alternating
done
run nyt40-joint-auto $nyt --iters 40
run nyt40-alt $nyt --iters 40 --update alternating
kos="--config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz"
for k in 50 128; do
  run kos$k-joint $kos --factors $k
  run kos$k-alt $kos --factors $k --update alternating
done
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs runs && rm -rf $o/logs $o/runs
