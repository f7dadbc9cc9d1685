#!/usr/bin/env bash
# The bf16-B experiment (bf16-b-experiment.patch applied to 47def00; FK_EXP_BF16 = 0: fp32 B,
# 1: B rounded to bf16 every run, 2: rounded once, the timing of the kernel alone), as run on one
# H100 from the repository root with fk-bench, fk-lda and fk-datagen in .carry/bin, $R the output
# folder, B=.carry/bin, /tmp/mb.mtx the 4096-document minibatch.
for r in 1 2; do for m in 0 2 1; do
  FK_EXP_BF16=$m timeout 60 $B/fk-bench ratio-spmm --input /tmp/mb.mtx --name mb4096 --op both --k 64,128,256 --runs 20 --variants cuda.ratio_spmm.fused --csv $R/bf16-m$m-r$r.csv > $R/bf16-m$m-r$r.log 2>&1 || echo "failed $m"
done; done
for r in 1 2; do for m in 0 1; do
  FK_EXP_BF16=$m timeout 90 $B/fk-lda --config configs/lda-nytimes.ini --iters 3 --eval-every 0 --device gpu > $R/lda-m$m-r$r.log 2>&1; echo "lda m$m: $(grep 'median time' $R/lda-m$m-r$r.log)"
done; done
for m in 0 1; do FK_EXP_BF16=$m timeout 60 $B/fk-lda --config configs/lda-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --iters 10 --eval-every 0 --device gpu > $R/kos-m$m.log 2>&1; echo "kos m$m: $(grep 'median time' $R/kos-m$m.log)"; done
echo "total $(( $(date +%s)-t0 ))s"
