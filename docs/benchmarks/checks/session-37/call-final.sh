#!/usr/bin/env bash
# Session 37's last GPU call, after the helpers' work was cherry-picked: every test binary; where
# the apps' device memory goes at the four large configs (--verbose: what each GPU plan keeps,
# what data and plans hold at the kernels line, the run's peak); and fk-sfa's CPU time per pass
# before and after the shared ASpT order (CPU-only builds of de0897a and of this commit, carried in
# .carry/ab.tar.xz, alternated on 16 threads: three rounds on a medium shape, two on netflix).
# Run with carry [".carry"]; returns summary.txt, memory.txt, ab.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
[[ -d .carry/ab ]] || tar xJf .carry/ab.tar.xz -C .carry
call_start $bin/fk-als --version
call_tests
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes" "fk-als als-netflix" "fk-sfa sfa-netflix"; do
  set -- $run
  timeout 200 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$?" >> "$o/memory.txt"
  grep -E 'plan .* holds|on the GPU|peak memory' /tmp/$2.err | sort | uniq -c >> "$o/memory.txt"
done
# An implicit exact solve with items that have no training rating (ml-100k's hold-out leaves 40),
# at 64 factors: the CPU solve died of SIGFPE there before 7f0b554; the GPU builds each row's
# system in its own kernel.
timeout 100 $bin/fk-als --input "$FK_SHARED_DATA/movielens-100k/u.data" --implicit \
  --solver cholesky --factors 64 --iters 2 --device gpu --out /tmp/chol > /dev/null 2> /tmp/chol.err
echo "fk-als --implicit --solver cholesky --factors 64 on the GPU: rc=$? $(grep -o 'precision@10 [0-9.]*' /tmp/chol.err | tail -1)" |
  tee -a "$o/summary.txt"
for shape in "gen:netflix:users=240000,items=4443,ratings=25000000 --iters 5" "gen:netflix --iters 3"; do
  rounds="1 2 3"; [[ $shape == "gen:netflix --iters 3" ]] && rounds="1 2"
  for round in $rounds; do
    for build in before after; do
      rm -rf /tmp/ab
      timeout 200 .carry/ab/fk-sfa-$build --input $shape --device cpu --seed 3 --out /tmp/ab \
        > /dev/null 2> /tmp/ab.err
      echo "$build rc=$? round $round $shape median_iter_seconds=$(grep -o '"median_iter_seconds":[0-9.e-]*' /tmp/ab/summary.json | cut -d: -f2) peak_host_mib=$(grep -o '"peak_host_mib":[0-9]*' /tmp/ab/summary.json | cut -d: -f2)" |
        tee -a "$o/ab.txt"
    done
  done
done
true
