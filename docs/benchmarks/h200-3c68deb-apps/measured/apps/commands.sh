# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --bin .carry/bin --only apps --commit 3c68deb --out /tmp/apps
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-lda --config configs/lda-default.ini --compare --out /tmp/apps/apps/lda-default/run)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-lda --config configs/lda-nytimes.ini --compare --out /tmp/apps/apps/lda-nytimes/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-als --config configs/als-ml100k.ini --compare --out /tmp/apps/apps/als-ml100k/run --input /work/main/.carry/data/movielens-100k/u.data)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-als --config configs/als-netflix.ini --compare --out /tmp/apps/apps/als-netflix/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-gap --config configs/gap-kos.ini --compare --out /tmp/apps/apps/gap-kos/run --input /work/main/.carry/data/uci-kos/docword.kos.txt.gz)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-gap --config configs/gap-nytimes.ini --compare --out /tmp/apps/apps/gap-nytimes/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-sfa --config configs/sfa-ml100k.ini --compare --out /tmp/apps/apps/sfa-ml100k/run --input /work/main/.carry/data/movielens-100k/u.data)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-sfa --config configs/sfa-netflix.ini --compare --out /tmp/apps/apps/sfa-netflix/run --iters 3)
