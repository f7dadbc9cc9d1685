#!/usr/bin/env bash
# Downloads public datasets for users who have the network (nothing here is needed by the tests,
# which use ../shared/data when present and the seeded generators otherwise).
#   bash data/download.sh uci-kos|uci-nips|uci-nytimes|movielens-100k|movielens-20m [DIR]
set -euo pipefail
names="uci-kos uci-nips uci-nytimes movielens-100k movielens-20m"
usage="usage: data/download.sh NAME [DIR] (NAME: ${names// /, }; DIR: data/downloads)"
what=${1:-}
[[ -n $what ]] || { echo "$usage" >&2; exit 2; }
case $what in
  uci-kos|uci-nips|uci-nytimes|movielens-100k|movielens-20m) ;;
  *) echo "unknown dataset '$what'; $usage" >&2; exit 2 ;;
esac
dir=${2:-data/downloads}
mkdir -p "$dir"
uci=https://archive.ics.uci.edu/ml/machine-learning-databases/bag-of-words
case $what in
  uci-kos|uci-nips|uci-nytimes)
    n=${what#uci-}
    curl -fL -o "$dir/docword.$n.txt.gz" "$uci/docword.$n.txt.gz"
    curl -fL -o "$dir/vocab.$n.txt" "$uci/vocab.$n.txt" ;;
  movielens-100k) curl -fL -o "$dir/ml-100k.zip" https://files.grouplens.org/datasets/movielens/ml-100k.zip
    (cd "$dir" && unzip -oq ml-100k.zip) ;;
  movielens-20m) curl -fL -o "$dir/ml-20m.zip" https://files.grouplens.org/datasets/movielens/ml-20m.zip
    (cd "$dir" && unzip -oq ml-20m.zip) ;;
esac
echo "saved under $dir (check the dataset's terms of use before redistributing)"
