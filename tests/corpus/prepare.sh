#!/usr/bin/env bash
# ctest fixture: fetches the Debian corpus and packs wheels into $1 (shared by every build dir).
# When the archive cannot be reached, writes $1/UNAVAILABLE with the reason and exits 0, so the
# corpus tests skip with that reason; any other failure fails.
set -uo pipefail
dest=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9  # both builds' ctest runs may prepare at once
[ -f "$dest/wheels/torch-2.14.1-sid.whl" ] && [ -f "$dest/wheels/torch-2.6.0+cuda-sid.whl" ] && exit 0
rm -f "$dest/UNAVAILABLE"
# About 4 GB when complete; the rest of the run needs about 8 GB more (tests/pypi/make-venvs.sh):
# on a disk without room for both, say so and skip rather than fill the disk half-way.
have=$(du -sk "$dest" 2>/dev/null | cut -f1)
avail=$(df --output=avail -k "$dest" | tail -1)
missing=$(( 4 * 1024 * 1024 - ${have:-0} ))
if [ "$missing" -gt 0 ] && [ "$avail" -lt $(( missing + 8 * 1024 * 1024 )) ]; then
  echo "not enough disk for the Debian corpus: $(( avail / 1048576 )) GB free under $dest, about $(( missing / 1048576 )) GB more needed and 8 GB left for the rest of the run" |
    tee "$dest/UNAVAILABLE"
  exit 0
fi
out=$("$root/bench/fetch-corpus.sh" "$dest" 2>&1)
rc=$?
if [ $rc -eq 2 ]; then
  echo "$out" | tail -3 > "$dest/UNAVAILABLE"
  cat "$dest/UNAVAILABLE"
  exit 0
fi
[ $rc -eq 0 ] || { echo "$out"; exit 1; }
"$root/bench/make-wheels.sh" "$dest" "$dest/wheels"
