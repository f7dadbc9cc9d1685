# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --bin .carry/bin --only kernels --commit 22dff74 --matrices powerlaw\,banded --out /tmp/rep/kernels-3
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /tmp/rep/kernels-3/kernels.csv --data /work/main/.carry/data --device gpu --only powerlaw\,banded -- --runs 20 --warmup 3)
