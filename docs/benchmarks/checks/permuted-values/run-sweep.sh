# The sweep of sweep-h100.csv.gz, run on the device with fk-bench (774479a) in .carry/bin and the
# data (../shared/data's dlmc and suitesparse folders) unpacked into .carry/data.
set -u
B=.carry/bin/fk-bench; D=.carry/data; mkdir -p /tmp/r
V=cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.panel,cuda.spmm.dense
for f in $D/suitesparse/*.mtx $(find $D/dlmc -name '*.smtx' | sort); do
  rel=${f#$D/dlmc/rn50/magnitude_pruning/}; name=${rel%.smtx}
  case $f in *dlmc*) nm=(--name "$name");; *) nm=();; esac
  timeout 60 $B spmm --input $f "${nm[@]}" --op t --k 1,4,32,64,128,256,512 --variants $V --runs 15 --warmup 3 --csv /tmp/r/sweep.csv > /dev/null 2>&1 || echo "failed $f"
done
timeout 60 $B spmm --preset nips --op t --k 1,4,32,64,128,256,512 --variants $V --runs 15 --warmup 3 --csv /tmp/r/sweep.csv > /dev/null 2>&1 || echo "failed nips"
