# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --only kernels --matrices netflix\,banded --bin .carry/bin --commit 1075e8b --out /tmp/k2
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /tmp/k2/kernels.csv --data /work/main/.carry/data --device gpu --only netflix\,banded -- --runs 20 --warmup 3)
