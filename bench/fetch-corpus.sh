#!/usr/bin/env bash
# Fetches real libtorch builds and extension modules from Debian's archive (suites and packages: README, "Corpus")
# into a folder of our own, without touching the machine's apt configuration.
#   bench/fetch-corpus.sh [DEST]   (default: $ABICHECK_CORPUS or ~/.cache/abicheck-corpus/debian)
# Prints the destination on success; exits 2 when the archive cannot be reached.
set -euo pipefail
dest=${1:-${ABICHECK_CORPUS:-$HOME/.cache/abicheck-corpus/debian}}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian

fetch_suite() {  # suite components packages...
  local suite=$1 comps=$2; shift 2
  local st="$dest/.apt/$suite"
  mkdir -p "$st/lists/partial" "$st/sources" "$st/cache/archives/partial" "$dest/debs/$suite"
  cat > "$st/sources/$suite.sources" <<SRC
Types: deb
URIs: $uri
Suites: $suite
Components: $comps
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  local opts=(-oDir::State::Lists="$st/lists" -oDir::Etc::SourceList=/dev/null
              -oDir::Etc::SourceParts="$st/sources" -oDir::Cache="$st/cache"
              -oAPT::Architecture=amd64 -oDebug::NoLocking=1 -oAPT::Sandbox::User=root -q)
  apt-get "${opts[@]}" update >/dev/null || { echo "fetch-corpus: cannot reach $uri ($suite)" >&2; exit 2; }
  (cd "$dest/debs/$suite" && apt-get "${opts[@]}" download "$@" >/dev/null)
  for deb in "$dest/debs/$suite"/*.deb; do
    local pkg; pkg=$(basename "$deb" | cut -d_ -f1)
    [ -d "$dest/$suite/$pkg" ] || { mkdir -p "$dest/$suite"; dpkg-deb -x "$deb" "$dest/$suite/$pkg"; }
  done
}

fetch_suite bookworm main libtorch1.13 python3-torchvision
fetch_suite trixie main libtorch2.6 python3-torchvision python3-torchaudio python3-torch-scatter
fetch_suite sid "main contrib" libtorch-cuda-2.6 libtorch2.14 python3-torchvision
echo "$dest"
