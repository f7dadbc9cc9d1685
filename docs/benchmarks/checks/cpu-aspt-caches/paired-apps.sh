#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
s=$SECONDS; mkdir -p /tmp/ab
lscpu | grep -E "Model name|^CPU\(s\)|L2"
run() {  # side app config iters
  local side=$1 app=$2 cfg=$3 it=$4 out=/tmp/ab/$3-$1-$5
  timeout 150 .carry/ab/$side/fk-$app --config configs/$cfg.ini --device cpu --iters $it --out $out > $out.log 2>&1
  echo "$cfg $side rc=$? $(python3 -c "import json,statistics;r=[json.loads(l)['seconds'] for l in open('$out/metrics.jsonl')];print('median %.4f all %s'%(statistics.median(r),' '.join('%.3f'%x for x in r)))") t=$((SECONDS-s))"
}
for cfg in als-netflix sfa-netflix gap-nytimes; do
  app=${cfg%%-*}
  run old $app $cfg 3 1; run new $app $cfg 3 1; run new $app $cfg 3 2; run old $app $cfg 3 2
done
run old lda lda-nytimes 2 1; run new lda lda-nytimes 2 1
tar czf $OUT/ab.tar.gz -C /tmp ab --exclude='*.npy'
