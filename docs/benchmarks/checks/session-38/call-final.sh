#!/usr/bin/env bash
# Session 38's last GPU call, on the session's final code: every test binary; memcheck on the plan
# memory test (every CUDA plan prepared and run once); and the device memory each plan of the
# lda-nytimes and gap-nytimes configs keeps (--verbose's "plan ... holds" lines) with the runs'
# peaks. Run with carry [".carry"]; returns summary.txt, plans.txt.gz and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 330
call_memcheck "CudaPlanMemory" 120 fk_kernel_tests \
  'CudaPlanMemory.*'
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes"; do
  set -- $run
  timeout 100 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" | tee -a "$o/summary.txt"
  { echo "== $2"; grep -E "plan .* holds|nonzeros|documents" /tmp/$2.err | head -400; } >> /tmp/plans.txt
done
gzip -9c /tmp/plans.txt > "$o/plans.txt.gz"
true
