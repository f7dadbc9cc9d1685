cd /work/main 2>/dev/null; source scripts/device_env.sh; mkdir -p $OUT
for run in "fk-gap gap-nytimes" "fk-lda lda-nytimes"; do
  set -- $run
  timeout 100 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out /tmp/run-$2 > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$?"; grep -E "transposed pattern|fused ratio SpMM:|plan .* holds|peak memory" /tmp/$2.err | grep -v sddmm | head -12
done
