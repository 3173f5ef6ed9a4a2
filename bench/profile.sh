#!/usr/bin/env bash
# What each row of bench/compare.sh is made of, measured the way these noisy VMs allow: the
# instructions it executes (valgrind's callgrind: the same count on every run), where they go
# (the functions with the most instructions of their own, and the phases of a check), the page
# faults (each costs about a microsecond here: /usr/bin/time's minor faults) and the system calls
# (strace -c). A profile is not a timing: bench/compare.sh gives the times.
#   bench/profile.sh [CORPUS_DIR] > bench/PROFILE.md   (installs valgrind and strace if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/setup.sh
. "$root/bench/setup.sh"
bench_setup "${1:-$HOME/.cache/abicheck-corpus/debian}" valgrind strace time binutils
"$A" index "$whl" -o "$work/cuda.abix" -q

# callgrind_annotate's lines as list items: the count, its share, the function without its
# parameters, file or object.
cat > "$work/fmt.py" <<'PY'
import re, sys
for line in sys.stdin:
    m = re.match(r"\s*([0-9,]+) \(\s*([0-9.]+)%\)\s+(?:[^:]*:)?(.*?)(?: \[[^\]]*\])?\s*$", line)
    if not m:
        continue
    name = m.group(3).replace("(anonymous namespace)", "{anon}")
    depth = 0
    for i, c in enumerate(name):  # cut at the parameter list: the first '(' outside <...>
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0:
            name = name[:i]
            break
    print(f"  - {m.group(1)} ({m.group(2)} %) {name[:110]}")
PY

# The phases of a check, by the function that does each (their instructions include their callees').
phases=':(abicheck::cli::RunCheck|abicheck::ExpandInput|abicheck::ReadIndex|abicheck::PrepareWorld|abicheck::Loader::MapDeps|abicheck::LoadModule|abicheck::CheckInWorld|abicheck::DiagnoseProblems|abicheck::NameBlocks::ForEachNamed|abicheck::Loader::Lookup|abicheck::WriteSymbolListing|abicheck::DemangleView|abicheck::DemangleLikeNm|cplus_demangle_v3_callback|abicheck::ZipArchive::Inflate|abicheck::DecodeDeflateTail|CLI::App::add_option)\('

profile() (  # title, command... (a subshell: `head` closes the pipes it reads early)
  set +o pipefail
  local title=$1
  shift
  echo "### $title"
  echo
  echo "\`abicheck ${*:2}\`" | sed "s|$corpus|CORPUS|g; s|$work|WORK|g"
  echo
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$@" > /dev/null 2> "$work/vg" || true
  local total
  total=$(grep -o 'Collected : [0-9]*' "$work/vg" | awk '{print $3}')
  local faults
  /usr/bin/time -f '%R' -o "$work/t" "$@" > /dev/null 2>&1 || true
  faults=$(tail -1 "$work/t")
  strace -f -c -o "$work/st" "$@" > /dev/null 2>&1 || true
  local calls
  calls=$(awk '/^[ -]+$/ {n++} n == 1 && NF >= 5 && $NF != "syscall" {c += $4; e += ($5 ~ /^[0-9]+$/ ? $5 : 0)} END {printf "%d system calls (%d failed)", c, e}' "$work/st")
  printf -- '- %s instructions (callgrind), %s minor page faults, %s\n' \
    "$(python3 -c "print(f'{int($total):,}')")" "$faults" "$calls"
  echo "- phases (instructions including their callees):"
  callgrind_annotate --threshold=100 --inclusive=yes "$work/cg" 2> /dev/null |
    grep -E "^ *[0-9,]+ .*($phases)" | head -12 | python3 "$work/fmt.py"
  echo "- own instructions, the ten largest:"
  callgrind_annotate --threshold=100 "$work/cg" 2> /dev/null |
    grep -E "^ *[0-9,]+ \( *[0-9.]+%\) " | grep -v 'PROGRAM TOTALS' | head -10 | python3 "$work/fmt.py"
  echo
)

echo "## Profiles of the bench/compare.sh rows ($(date -u +%F), $(git -C "$root" rev-parse --short HEAD))"
echo
echo "Release build, warm page cache, the Debian corpus. Instruction counts repeat from run to run;"
echo "a page fault costs about 1 µs on these VMs, a failed open about 0.3 µs."
echo
profile "The floor: starting the process" "$A" --version
profile "symbols on the 1.18 GB libtorch_cuda.so" "$A" symbols "$big"
profile "symbols -C on the same library" "$A" symbols -C "$big"
profile "torchvision _C.so against the whole CUDA build directory" "$A" "$tv" "$lib" -q
profile "the same check against the build's index" "$A" "$tv" "$work/cuda.abix" -q
profile "the same check against the CUDA wheel, --fast" "$A" check "$tvwhl" --against "$whl" -q --fast
