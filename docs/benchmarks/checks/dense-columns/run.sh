# Would a dense-column split pay for S·B on word-count matrices? S = heavy columns (words in at
# least a share T of the documents) + the rest; time S·B on the rest with the sparse kernels and
# on the heavy part with cuBLAS's SGEMM (cuda.spmm.dense, S's heavy columns as a dense matrix),
# against the whole matrix, in one call (2026-11-26). Run on the device from the repository root
# with fk-bench and fk-datagen in .carry/bin; rows go to $OUT/dense-columns.csv.gz.
set -u
S=docs/benchmarks/checks/dense-columns/split.sh
V=auto,cuda.spmm.cusparse,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.vdl
csv=/tmp/dense-columns.csv
rm -f $csv
bench() {  # bench NAME FILE VARIANTS K
  timeout 300 .carry/bin/fk-bench spmm --input "$2" --name "$1" --op n --k "$4" --variants "$3" --runs 20 \
    --warmup 3 --csv $csv > /dev/null 2>&1 || echo "failed $1"
}
.carry/bin/fk-datagen lda --preset nips --out /tmp/nips --quiet
.carry/bin/fk-datagen lda --preset nytimes --out /tmp/nyt --quiet
echo "generated ($SECONDS s)"
bench nips /tmp/nips/docword.txt $V 32,64,128,256,512
for t in 0.2 0.1; do
  bash $S /tmp/nips/docword.txt $t /tmp/nips-$t
  bench nips-light-$t /tmp/nips-$t/light.txt $V 32,64,128,256,512
  bench nips-heavy-$t /tmp/nips-$t/heavy.txt cuda.spmm.dense,cuda.spmm.cusparse 32,64,128,256,512
done
echo "nips ($SECONDS s)"
bench nytimes /tmp/nyt/docword.txt $V 32,64,128,256
for t in 0.3 0.2; do
  bash $S /tmp/nyt/docword.txt $t /tmp/nyt-$t
  echo "split $t ($SECONDS s)"
  bench nytimes-light-$t /tmp/nyt-$t/light.txt $V 32,64,128,256
  bench nytimes-heavy-$t /tmp/nyt-$t/heavy.txt cuda.spmm.dense,cuda.spmm.cusparse 32,64,128,256
done
echo "nytimes ($SECONDS s)"
gzip -c $csv > "$OUT/dense-columns.csv.gz"
