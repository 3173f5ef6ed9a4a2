#!/usr/bin/env bash
# ctest: the what-if columns of `env --against` against the real loader in the environments pip
# makes (whatif.py); skips (exit 77), saying why, only when make-venvs.sh could not fetch the
# corpus or find a Python 3.12.
set -uo pipefail
abicheck=$1 cache=$2
if [ -f "$cache/UNAVAILABLE" ]; then
  echo "skipped: $(cat "$cache/UNAVAILABLE")"
  exit 77
fi
exec /usr/bin/python3 "$(dirname "$0")/whatif.py" "$abicheck" "$cache"
