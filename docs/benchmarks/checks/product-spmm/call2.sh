#!/usr/bin/env bash
# Second call on the warm machine: SFA A/B (GPU), CPU A/B on 16 threads; a summary in $OUT/ab.txt,
# the logs in $OUT/logs.tar.gz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
o=${OUT:-/tmp/out}; mkdir -p $o/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/ab.txt
t0=$SECONDS
ab() {  # ab NAME APP ARGS...: off and auto alternated twice
  local name=$1 app=$2; shift 2
  for r in 1 2; do for m in off auto; do
    timeout 150 $bin/$app "$@" --product-spmm $m --out /tmp/ab-$name-$m > $o/logs/ab-$name-$m-$r.log 2>&1
    echo "$name $m round $r: $(grep -h 'kernels:' $o/logs/ab-$name-$m-$r.log | sed 's/.*kernels: //' | cut -c1-100) | $(grep -h 'median time per' $o/logs/ab-$name-$m-$r.log)" | tee -a $o/ab.txt
  done; done
}
ab sfa-netflix fk-sfa --config configs/sfa-netflix.ini --device gpu --iters 3
ab sfa-netflix-em fk-sfa --config configs/sfa-netflix.ini --mstep em --device gpu --iters 3
echo "GPU done ($((SECONDS-t0)) s)" | tee -a $o/ab.txt
ab cpu16-ml20m-imp64 fk-als --config configs/als-ml20m-implicit.ini --device cpu --threads 16 --iters 2
ab cpu16-netflix fk-als --config configs/als-netflix.ini --device cpu --threads 16 --iters 2
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/ab.txt
tar czf $o/logs.tar.gz -C $o logs && rm -rf $o/logs
