#!/usr/bin/env bash
# The comparison table of the README: abicheck against the tools users have (nm, readelf,
# pyelftools and LIEF 1.0 from PyPI, libabigail's abicompat, torch-abi-audit, kernel-abi-check,
# unzip) and against two measured floors — the start of the abicheck process itself
# (`abicheck --version`) and ISA-L inflating a wheel's largest member alone — on the same real
# files: Debian's torch builds (bench/fetch-corpus.sh, bench/make-wheels.sh) and the PyPI corpus
# (bench/fetch-pypi-corpus.sh) when it is there. Medians of repeated runs (hyperfine), peak memory
# from /usr/bin/time. Prints every issue-16 goal with its measured ratio, then the scale rows.
#   bench/compare.sh [CORPUS_DIR]        (installs the comparison tools from Debian if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${ABICHECK_BENCH_RUNS:-5}
fast_runs=${ABICHECK_BENCH_FAST_RUNS:-200}
# shellcheck source=bench/setup.sh
. "$root/bench/setup.sh"
bench_setup "${1:-$HOME/.cache/abicheck-corpus/debian}" hyperfine python3-pyelftools abigail-tools liblief-dev binutils unzip time bc xz-utils
# One copy of each library of the build (symlinks resolved away), for the nm baseline.
libs=$(find "$lib" -maxdepth 1 -type f -name '*.so*' | sort | tr '\n' ' ')

median() {  # command -> median seconds (no shell in the way; median_sh for pipelines)
  hyperfine --style none --warmup 1 --runs "$runs" -i -N --export-json "$work/h.json" "$@" > /dev/null 2>&1
  python3 -c "import json;print('%.4f' % json.load(open('$work/h.json'))['results'][0]['median'])"
}
median_fast() {  # the same for commands of a few milliseconds, whose medians need more runs
  hyperfine --style none --warmup 5 --runs "$fast_runs" -i -N --export-json "$work/h.json" "$@" > /dev/null 2>&1
  python3 -c "import json;print('%.4f' % json.load(open('$work/h.json'))['results'][0]['median'])"
}
# A check's median and the process floor's, from one hyperfine call: on these VMs the speed drifts
# over minutes, and a floor measured at the start of the run skews a ratio taken later.
paired_fast() {  # command -> "floor_seconds check_seconds"
  hyperfine --style none --warmup 5 --runs "$fast_runs" -i -N --export-json "$work/h.json" \
    "$A --version" "$@" > /dev/null 2>&1
  python3 -c "import json;r=json.load(open('$work/h.json'))['results'];print('%.4f %.4f' % (r[0]['median'], r[1]['median']))"
}
median_sh() {
  hyperfine --style none --warmup 1 --runs "$runs" -i --export-json "$work/h.json" "$@" > /dev/null 2>&1
  python3 -c "import json;print('%.4f' % json.load(open('$work/h.json'))['results'][0]['median'])"
}
peak() {  # command... -> peak RSS in MB
  /usr/bin/time -f '%M' -o "$work/t" "$@" > /dev/null 2>&1 || true
  echo $(( $(tail -1 "$work/t") / 1024 ))
}
row() {  # what, abicheck s, baseline s, goal ratio
  python3 - "$@" <<'PY'
import sys
what, a, b, goal = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ratio = b / a if a > 0 else float("inf")
print(f"| {what} | {a*1000:.1f} ms | {b*1000:.1f} ms | {ratio:.1f}x | >= {goal:g}x | {'met' if ratio >= goal else 'NOT met'} |")
PY
}

echo "## abicheck vs the tools users have ($(nproc) cores; medians of $runs runs, $fast_runs for the millisecond checks; $(date -u +%F))"
echo
echo "libtorch_cuda.so: $(( $(stat -c %s "$big") / 1048576 )) MB, $(nm -D "$big" | wc -l) dynamic symbols"
echo
floor=$(median_fast "$A --version")
echo "Floors: the abicheck process itself (\`abicheck --version\`) $(python3 -c "print('%.1f' % ($floor*1000))") ms at the start of the run; each row against it measures it again beside the check (one hyperfine call)."
echo
echo "| target | abicheck | baseline | ratio | goal | |"
echo "|---|---|---|---|---|---|"
# A listing takes a few milliseconds now: its median, and nm's beside it, from $fast_runs runs too.
t_sym=$(median_fast "$A symbols $big")
t_nm=$(median_fast "nm -D $big")
row "symbols with versions vs \`nm -D\` (1.18 GB libtorch_cuda.so)" "$t_sym" "$t_nm" 8
t_symc=$(median "$A symbols -C $big")
t_nmc=$(median "nm -DC $big")
row "demangled vs \`nm -DC\`" "$t_symc" "$t_nmc" 3
read -r f_chk t_chk <<< "$(paired_fast "$A $tv $lib -q")"
floor_row() {  # what, abicheck s, floor s (measured beside it), goal (times the floor)
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import sys
what, a, f, goal = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f"| {what} | {a*1000:.1f} ms | {f*1000:.1f} ms (the process) | {a/f:.2f}x the floor | <= {goal:g}x | {'met' if a/f <= goal else 'NOT met'} |")
PY
}
floor_row "torchvision \`_C.so\` against the whole 2.6.0 CUDA build directory (1.45 GB)" "$t_chk" "$f_chk" 2.5
"$A" index "$whl" -o "$work/cuda.abix" -q
read -r f_idxchk t_idxchk <<< "$(paired_fast "$A $tv $work/cuda.abix -q")"
floor_row "the same check against the build's index" "$t_idxchk" "$f_idxchk" 1.5
t_nmall=$(median "nm -D $libs")
row "the directory check vs \`nm -D\` over the directory (kept from issue 5)" "$t_chk" "$t_nmall" 20
# The tool users reach for: the real loader binding every reference of every object it maps, with
# the directory on LD_LIBRARY_PATH (ldd runs no code of the module; it is a shell script).
t_ldd=$(median_sh "LD_LIBRARY_PATH=$lib ldd -r $tv")
python3 - "$t_chk" "$t_ldd" <<'PY'
import sys
a, b = map(float, sys.argv[1:])
print(f"| the directory check vs `ldd -r` with the directory on LD_LIBRARY_PATH (context: the real loader binding every object's references) | {a*1000:.1f} ms | {b*1000:.1f} ms | {b/a:.1f}x | | |")
PY
all4=()
for w in torch-1.13.1-bookworm torch-2.6.0-trixie torch-2.6.0+cuda-sid torch-2.14.1-sid; do all4+=("$corpus/wheels/$w.whl"); done
"$A" index "${all4[@]}" -o "$work/all4.abix" -q
mods=(); for w in torchvision-0.14.1-bookworm torchvision-0.21.0-trixie torchvision-0.27.0-sid torchaudio-2.6.0-trixie torch_scatter-2.1.2-trixie; do mods+=("$corpus/wheels/$w.whl"); done
t_plain=$(median "$A check ${mods[*]} --against $work/all4.abix -q --no-diagnose")
t_diag=$(median "$A check ${mods[*]} --against $work/all4.abix -q")
python3 - "$t_diag" "$t_plain" <<'PY'
import sys
a, b = map(float, sys.argv[1:])
print(f"| every corpus module wheel against the index of the 4 builds, diagnosed vs `--no-diagnose` | {a*1000:.0f} ms | {b*1000:.0f} ms | {a/b:.2f}x the plain time | <= 2x | {'met' if a/b <= 2 else 'NOT met'} |")
PY
one=$(stat -c %s "$work/cuda.abix")
largest=$one largest_whl=$whl
for w in torch-1.13.1-bookworm torch-2.6.0-trixie torch-2.14.1-sid; do
  "$A" index "$corpus/wheels/$w.whl" -o "$work/one.abix" -q
  s1=$(stat -c %s "$work/one.abix")
  if [ "$s1" -gt "$largest" ]; then largest=$s1 largest_whl=$corpus/wheels/$w.whl; fi
done
# The floor of this row: an exact index holds every name its builds export, so the four builds'
# names against the largest build's bound the ratio from below — counted, and as xz -9e packs the
# sorted names (close to the information they carry).
names_of() {  # wheel... -> the distinct defined dynamic names of their shared objects, sorted
  local d=$work/names
  for w in "$@"; do
    rm -rf "$d" && mkdir -p "$d" && unzip -q -o "$w" '*.so*' -d "$d"
    find "$d" -type f -name '*.so*' -exec nm -D --defined-only {} + 2> /dev/null |
      awk 'NF >= 3 { sub(/@.*/, "", $NF); print $NF }'
  done | LC_ALL=C sort -u
  rm -rf "$d"
}
names_of "$largest_whl" > "$work/one.names"
names_of "${all4[@]}" > "$work/all4.names"
python3 - "$(stat -c %s "$work/all4.abix")" "$largest" "$(wc -l < "$work/all4.names")" \
  "$(wc -l < "$work/one.names")" "$(xz -9e -T1 -c "$work/all4.names" | wc -c)" \
  "$(xz -9e -T1 -c "$work/one.names" | wc -c)" <<'PY'
import sys
four, one, n4, n1, x4, x1 = map(int, sys.argv[1:])
print(f"| index of the four Debian builds vs the largest single-build index | {four/1048576:.2f} MB | {one/1048576:.2f} MB | {four/one:.2f}x | <= 1.3x | {'met' if four/one <= 1.3 else 'NOT met'}: the names alone are {n4/n1:.2f}x as many ({n4} vs {n1}) and {x4/x1:.2f}x as large under xz -9e |")
PY
t_largest=$(median "$B/inflate_members $whl --largest")
t_whl=$(median "$A check $tvwhl --against $whl -q")
t_whl_fast=$(median "$A check $tvwhl --against $whl -q --fast")
python3 - "$t_whl_fast" "$t_whl" "$t_largest" <<'PY'
import sys
fast, full, b = map(float, sys.argv[1:])
print(f"| reading the 870 MB CUDA wheel (check torchvision.whl against it, `--fast`: loader tables only) vs ISA-L inflating its largest member alone | {fast*1000:.0f} ms | {b*1000:.0f} ms | {b/fast:.2f}x faster | >= 3x faster | {'met' if b/fast >= 3 else 'NOT met'} |")
print(f"| the same with every member's CRC-32 checked (the default since issue 17: every member inflated) | {full*1000:.0f} ms | {b*1000:.0f} ms | {b/full:.2f}x | | |")
PY
t_unzipnm=$(median_sh "for m in \$(unzip -Z1 $whl | grep '\\.so'); do unzip -p $whl \$m > $work/m.so; nm -D $work/m.so > /dev/null; done")
row "the same wheel (CRCs checked) vs \`unzip -p \\| nm -D\` of its members (kept from issue 5)" "$t_whl" "$t_unzipnm" 3
pk=$(peak "$A" check "$tvwhl" --against "$whl" -q)
echo "| peak memory, check against the CUDA wheel | $pk MB | | | < 128 MB | $([ "$pk" -lt 128 ] && echo met || echo NOT met) |"
echo
echo "Scale: modules × builds (\`abicheck check M... --against B...\`, \`--no-diagnose\` and diagnosed):"
echo
echo "| modules × builds | plain | diagnosed |"
echo "|---|---|---|"
echo "| 1 × 1 (torchvision \`_C.so\` against the CUDA build's index) | $(python3 -c "print('%.1f ms' % ($(median_fast "$A $tv $work/cuda.abix -q --no-diagnose")*1000))") | $(python3 -c "print('%.1f ms' % ($t_idxchk*1000))") |"
echo "| $(for m in "${mods[@]}"; do unzip -Z1 "$m" | grep -c '\.so' ; done | paste -sd+ | bc) objects of 5 wheels × 4 (the 4-build index) | $(python3 -c "print('%.0f ms' % ($t_plain*1000))") | $(python3 -c "print('%.0f ms' % ($t_diag*1000))") |"
pypi=${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}
if ls "$pypi"/wheels/torch-2.9.1-*.whl > /dev/null 2>&1; then
  pwh=(); for t in 2.9.1 2.10.0 2.12.1 2.15.0; do pwh+=("$(ls "$pypi"/wheels/torch-$t-*.whl | head -1)"); done
  "$A" index "${all4[@]}" "${pwh[@]}" -o "$work/all8.abix" -q
  exts=(); for e in sgl_kernel torchvision torchaudio xformers torchao vllm torchcodec; do exts+=("$(ls "$pypi"/wheels/$e-*.whl | head -1)"); done
  n=$(for m in "${exts[@]}"; do unzip -Z1 "$m" | grep -c '\.so' ; done | paste -sd+ | bc)
  p8=$(median "$A check ${exts[*]} --against $work/all8.abix -q --no-diagnose -L $pypi/driver-stub")
  d8=$(median "$A check ${exts[*]} --against $work/all8.abix -q -L $pypi/driver-stub")
  echo "| $n objects of the 7 PyPI extension wheels × 8 (an index of the 4 Debian and 4 PyPI torch builds, $(( $(stat -c %s "$work/all8.abix") / 1048576 )) MB) | $(python3 -c "print('%.0f ms' % ($p8*1000))") | $(python3 -c "print('%.0f ms' % ($d8*1000))") |"
  v=$pypi/venvs/torch-2.9.1
  if [ -d "$v" ]; then
    echo "| \`abicheck env\` on the torch 2.9.1 venv (its objects × its torch) | $(python3 -c "print('%.0f ms' % ($(median "$A env $v -L $pypi/driver-stub -q --no-diagnose")*1000))") | $(python3 -c "print('%.0f ms' % ($(median "$A env $v -L $pypi/driver-stub -q")*1000))") |"
  fi
else
  echo "(the PyPI rows: no PyPI corpus under $pypi — tests/pypi/make-venvs.sh fetches it)"
fi
echo
echo "Peak memory: indexing the CUDA wheel $(peak "$A" index "$whl" -o "$work/cuda.abix" -q) MB (goal < 512 MB)."
echo
echo "Other tools on libtorch_cuda.so (context):"
echo
echo "| tool | time | peak memory |"
echo "|---|---|---|"
echo "| abicheck symbols | ${t_sym}s | $(peak "$A" symbols "$big") MB |"
echo "| nm -D | ${t_nm}s | $(peak nm -D "$big") MB |"
echo "| readelf -W --dyn-syms | $(median "readelf -W --dyn-syms $big")s | $(peak readelf -W --dyn-syms "$big") MB |"
cat > "$work/pyelf.py" <<'PY'
import sys
from elftools.elf.elffile import ELFFile
with open(sys.argv[1], "rb") as f:
    print(sum(1 for _ in ELFFile(f).get_section_by_name(".dynsym").iter_symbols()))
PY
# Debian's pyelftools is installed for Debian's Python (the python3 on PATH may be another one).
echo "| pyelftools $(/usr/bin/python3 -c 'import elftools; print(elftools.__version__)') (Debian) | $(median "/usr/bin/python3 $work/pyelf.py $big")s | $(peak /usr/bin/python3 "$work/pyelf.py" "$big") MB |"
if [ -x "$B/lief_symbols" ]; then
  echo "| LIEF 0.9 (Debian; $("$B/lief_symbols" "$big" 2>/dev/null | head -1)) | $(ABICHECK_BENCH_RUNS=1 runs=1 median "$B/lief_symbols $big")s | $(peak "$B/lief_symbols" "$big") MB |"
fi
if peers=$("$root/bench/peers.sh" 2> "$work/peers.err"); then
  cat > "$work/lief_dynsyms.py" <<'PY'
import sys
import lief
b = lief.ELF.parse(sys.argv[1])
print(sum(1 for _ in b.dynamic_symbols))
PY
  echo "| LIEF $("$peers/python" -c 'import lief; print(lief.__version__.split("-")[0])') (PyPI; $("$peers/python" "$work/lief_dynsyms.py" "$big") symbols) | $(runs=1 median "$peers/python $work/lief_dynsyms.py $big")s | $(peak "$peers/python" "$work/lief_dynsyms.py" "$big") MB |"
  echo "| pyelftools $("$peers/python" -c 'import elftools; print(elftools.__version__)') (PyPI) | $(median "$peers/python $work/pyelf.py $big")s | $(peak "$peers/python" "$work/pyelf.py" "$big") MB |"
else
  echo "| LIEF 1.0, pyelftools (PyPI) | $(cat "$work/peers.err") | |"
fi
cpu=$corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.2.14.1
cpu26=$corpus/trixie/libtorch2.6/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.2.6.0
if timeout 300 abicompat "$tv" "$cpu26" "$cpu" > /dev/null 2> "$work/abicompat.err"; rc=$?; [ $rc -le 1 ] || [ $rc -eq 4 ] || [ $rc -eq 12 ]; then
  echo "| abicompat _C.so vs libtorch_cpu 2.6 -> 2.14 | $(runs=1 median "timeout 300 abicompat $tv $cpu26 $cpu")s | $(peak timeout 300 abicompat "$tv" "$cpu26" "$cpu") MB |"
else
  echo "| abicompat $(abicompat --version | awk '{print $2}') _C.so vs libtorch_cpu 2.6 -> 2.14 | fails: exit $rc, $(tail -1 "$work/abicompat.err" | tr -d '|') | |"
fi
echo "| abicheck _C.so against the 2.14 build dir (diagnosis on) | $(median "$A $tv $corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu -q")s | $(peak "$A" "$tv" "$corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu" -q) MB |"
if [ -n "${peers:-}" ] && [ -d "$pypi/venvs/torch-2.9.1" ]; then
  v=$pypi/venvs/torch-2.9.1
  site=$v/lib/python3.12/site-packages
  echo "| torch-abi-audit 0.3 --site-packages (the torch 2.9.1 venv: stable ABI or not, per package) | $(runs=3 median_sh "$peers/torch-abi-audit --site-packages $site > /dev/null")s | $(peak "$peers/torch-abi-audit" --site-packages "$site") MB |"
  echo "| abicheck env on the same venv (loads or not, why, stable ABI, per object) | $(median "$A env $v -L $pypi/driver-stub -q")s | $(peak "$A" env "$v" -L "$pypi/driver-stub" -q) MB |"
  cat > "$work/kac.py" <<'PY'
import sys
from kernel_abi_check import ObjectFile
for p in sys.argv[1:]:
    ObjectFile(p).check_manylinux("manylinux_2_28")
PY
  sk=$(ls "$site"/sgl_kernel/sm100/common_ops*.so | head -1)
  echo "| kernel-abi-check 0.14 (manylinux_2_28 symbol versions of sgl-kernel's common_ops) | $(median "$peers/python $work/kac.py $sk")s | $(peak "$peers/python" "$work/kac.py" "$sk") MB |"
  echo "| abicheck check of the same module in its venv (every reference, versions included) | $(median_sh "$A check $sk --against $site/torch -L $pypi/driver-stub -q")s | $(peak "$A" check "$sk" --against "$site/torch" -L "$pypi/driver-stub" -q) MB |"
fi
echo
echo "Peak memory: check against the CUDA build dir $(peak "$A" "$tv" "$lib" -q) MB; against the CUDA wheel $(peak "$A" check "$tvwhl" --against "$whl" -q) MB (goal < 100 MB for a check, < 512 MB for wheels)."
echo
echo "The demanglers on libtorch_cuda.so's names (bench/demangle_compare: one thread, best of five):"
"$A" symbols "$big" | awk '{print $NF}' | sed 's/@.*//' > "$work/names"
echo "    $("$B/demangle_compare" "$work/names")"
echo
echo "Micro benchmarks (bench/micro_bench):"
"$B/micro_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E 'median|^BM' | sed 's/^/    /'
