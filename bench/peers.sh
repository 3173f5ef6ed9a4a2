#!/usr/bin/env bash
# The comparison tools users have that come from PyPI, pinned, in a virtualenv cached outside the
# clone (made once per pin set): LIEF 1.0, pyelftools, torch-abi-audit, kernel-abi-check. Prints
# the virtualenv's bin directory; exit 2 with the reason when PyPI cannot be reached.
#   bench/peers.sh [CACHE]   (default ~/.cache/abicheck-corpus/peers)
set -euo pipefail
cache=${1:-$HOME/.cache/abicheck-corpus/peers}
pins=(lief==1.0.0 pyelftools==0.32 torch-abi-audit==0.3.0 kernel-abi-check==0.14.1)
key=$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-16)
v=$cache/venv-$key
if [ ! -x "$v/bin/python" ] || [ ! -f "$v/.complete" ]; then
  rm -rf "$v"
  mkdir -p "$cache"
  python3 -m venv "$v" > /dev/null
  if ! "$v/bin/pip" install -q --only-binary=:all: "${pins[@]}" > "$cache/install.log" 2>&1; then
    echo "peers: cannot install ${pins[*]} from PyPI: $(tail -1 "$cache/install.log")" >&2
    rm -rf "$v"
    exit 2
  fi
  touch "$v/.complete"
fi
echo "$v/bin"
