# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --bin .carry/bin --only kernels --commit 22dff74 --matrices nytimes\,netflix --out /tmp/rep/kernels-2
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /tmp/rep/kernels-2/kernels.csv --data /work/main/.carry/data --device gpu --only nytimes\,netflix -- --runs 20 --warmup 3)
