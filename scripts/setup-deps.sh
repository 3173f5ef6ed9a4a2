#!/usr/bin/env bash
# Installs abicheck's build and test dependencies from Debian 12's archive (idempotent; needs root or sudo).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev lld
      libabsl-dev llvm-14-dev libiberty-dev libgtest-dev libgmock-dev libbenchmark-dev
      libzip-dev zipcmp zipmerge ziptool libisal-dev liblz4-dev nlohmann-json3-dev libcli11-dev
      libcurl4-openssl-dev nasm binutils-aarch64-linux-gnu qemu-user-static libc6-arm64-cross
      python3 python3-jsonschema python3-yaml
      binutils file clang-format clang-tidy abigail-tools patchelf ccache)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
