#!/usr/bin/env bash
# Installs what factorkit needs to build and test, from Debian's packages, when it is missing.
# The CUDA toolkit is not installed here: with nvcc on the PATH (or in /usr/local/cuda/bin) the GPU
# code is built, otherwise the build is CPU-only.
set -euo pipefail
packages=(cmake ninja-build g++ libeigen3-dev libboost-program-options-dev libgtest-dev zlib1g-dev python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "factorkit: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# nvcc is often installed outside the PATH.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "factorkit: using /usr/local/cuda/bin/nvcc"
fi
