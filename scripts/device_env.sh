# Sourced at the top of a script that runs on a lent GPU machine over what scripts/device_pack.sh
# gathered in .carry/ (scripts/device_run.sh, and one-off call scripts kept under
# docs/benchmarks/checks/):
#   cd "$(dirname "$0")/.." && source scripts/device_env.sh
# From the repository root: sets LD_LIBRARY_PATH (the carried Boost/GoogleTest) and
# FK_SHARED_DATA (the carried data), unpacks the binaries once into $bin (.carry/bin), and points
# the build paths compiled into the CLI tests (BUILD/apps/NAME/fk-NAME, BUILD as device_pack.sh
# recorded it) at the carried apps.
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
bin=.carry/bin
[[ -d $bin ]] || tar xJf .carry/bin.tar.xz -C .carry  # device_pack.sh compresses the binaries
if [[ -f .carry/build_dir ]]; then
  fk_build_dir=$(cat .carry/build_dir)
  for fk_exe in "$bin"/fk-*; do
    fk_name=$(basename "$fk_exe")
    mkdir -p "$fk_build_dir/apps/${fk_name#fk-}" &&
      ln -sf "$PWD/$fk_exe" "$fk_build_dir/apps/${fk_name#fk-}/$fk_name"
  done
fi
