#!/usr/bin/env bash
# The comparison table of the README: abicheck against the tools users have (nm, readelf,
# pyelftools, LIEF 0.9, libabigail's abicompat, unzip), on the same real files — the CUDA 13
# toolkit and Debian's torch builds (bench/fetch-corpus.sh, bench/make-wheels.sh). Medians of
# repeated runs (hyperfine), peak memory from /usr/bin/time. Prints every issue-5 target with its
# measured ratio.
#   bench/compare.sh [CORPUS_DIR]        (installs the comparison tools from Debian if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$HOME/.cache/abicheck-corpus/debian}" && pwd)
runs=${ABICHECK_BENCH_RUNS:-5}
fast_runs=${ABICHECK_BENCH_FAST_RUNS:-40}
need=()
for p in hyperfine python3-pyelftools abigail-tools liblief-dev binutils unzip time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" > /dev/null
fi
"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF \
  -DABICHECK_BUILD_BENCH=ON > /dev/null
cmake --build "$root/build-bench" > /dev/null
A=$root/build-bench/tools/abicheck/abicheck
B=$root/build-bench/bench
[ -d "$corpus/sid/libtorch-cuda-2.6" ] || "$root/bench/fetch-corpus.sh" "$corpus" > /dev/null
[ -f "$corpus/wheels/torch-2.6.0+cuda-sid.whl" ] || "$root/bench/make-wheels.sh" "$corpus" "$corpus/wheels" > /dev/null

lib=$corpus/sid/libtorch-cuda-2.6/usr/lib/x86_64-linux-gnu
big=$lib/libtorch_cuda.so.2.6.0
tv=$corpus/trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision/_C.cpython-313-x86_64-linux-gnu.so
whl=$corpus/wheels/torch-2.6.0+cuda-sid.whl
tvwhl=$corpus/wheels/torchvision-0.21.0-trixie.whl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
echo "| target | abicheck | baseline | ratio | goal | |"
echo "|---|---|---|---|---|---|"
t_sym=$(median "$A symbols $big")
t_nm=$(median "nm -D $big")
row "symbols with versions vs \`nm -D\` (1.18 GB libtorch_cuda.so)" "$t_sym" "$t_nm" 3
t_symc=$(median "$A symbols -C $big")
t_nmc=$(median "nm -DC $big")
row "demangled vs \`nm -DC\`" "$t_symc" "$t_nmc" 2
t_chk=$(median_fast "$A $tv $lib -q")
t_nmall=$(median "nm -D $libs")
row "torchvision \`_C.so\` vs the whole 2.6.0 CUDA build dir, vs \`nm -D\` over it" "$t_chk" "$t_nmall" 20
t_whl=$(median "$A check $tvwhl --against $whl -q")
t_infl=$(median "$B/inflate_members $whl")
python3 - "$t_whl" "$t_infl" <<'PY'
import sys
a, b = map(float, sys.argv[1:])
print(f"| reading the 870 MB CUDA wheel (check torchvision.whl against it) vs ISA-L inflating its .so members in one thread | {a*1000:.0f} ms | {b*1000:.0f} ms | {a/b:.2f}x the inflate time | <= 1.2x | {'met' if a/b <= 1.2 else 'NOT met'} |")
PY
t_unzipnm=$(median_sh "for m in \$(unzip -Z1 $whl | grep '\\.so'); do unzip -p $whl \$m > $work/m.so; nm -D $work/m.so > /dev/null; done")
row "the same wheel vs \`unzip -p | nm -D\` of its members" "$t_whl" "$t_unzipnm" 3
t_index=$(median "$A index $whl -o $work/cuda.abix -q")
python3 - "$t_index" "$t_infl" <<'PY'
import sys
a, b = map(float, sys.argv[1:])
print(f"| indexing the CUDA wheel (\`abicheck index\`) vs ISA-L inflating its .so members in one thread | {a*1000:.0f} ms | {b*1000:.0f} ms | {a/b:.2f}x the inflate time | <= 1.2x | {'met' if a/b <= 1.2 else 'NOT met'} |")
PY
"$A" index "$whl" -o "$work/cuda.abix" -q
t_idxchk=$(median_fast "$A $tv $work/cuda.abix -q")
python3 - "$t_idxchk" <<'PY'
import sys
a = float(sys.argv[1])
print(f"| torchvision \`_C.so\` against the CUDA build's index, loading included | {a*1000:.1f} ms | | | < 5 ms | {'met' if a < 0.005 else 'NOT met'} |")
PY
names=0
for f in $(find "$lib" -maxdepth 1 -type f -name '*.so*'); do
  n=$(nm -D --defined-only "$f" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//' | wc -c); names=$((names + n))
done
one=$(stat -c %s "$work/cuda.abix")
python3 - "$one" "$names" <<'PY'
import sys
idx, names = map(int, sys.argv[1:])
print(f"| index size vs the raw bytes of the exported names it holds | {idx/1048576:.1f} MB | {names/1048576:.1f} MB | {idx/names:.0%} | <= 30% | {'met' if idx/names <= 0.30 else 'NOT met'} |")
PY
all4=()
for w in torch-1.13.1-bookworm torch-2.6.0-trixie torch-2.6.0+cuda-sid torch-2.14.1-sid; do all4+=("$corpus/wheels/$w.whl"); done
"$A" index "${all4[@]}" -o "$work/all4.abix" -q
largest=$one
for w in torch-1.13.1-bookworm torch-2.6.0-trixie torch-2.14.1-sid; do
  "$A" index "$corpus/wheels/$w.whl" -o "$work/one.abix" -q
  s1=$(stat -c %s "$work/one.abix"); [ "$s1" -gt "$largest" ] && largest=$s1
done
python3 - "$(stat -c %s "$work/all4.abix")" "$largest" <<'PY'
import sys
four, one = map(int, sys.argv[1:])
print(f"| index of the four Debian builds vs the largest single-build index | {four/1048576:.1f} MB | {one/1048576:.1f} MB | {four/one:.2f}x | <= 1.6x | {'met' if four/one <= 1.6 else 'NOT met'} |")
PY
mods=(); for w in torchvision-0.14.1-bookworm torchvision-0.21.0-trixie torchvision-0.27.0-sid torchaudio-2.6.0-trixie torch_scatter-2.1.2-trixie; do mods+=("$corpus/wheels/$w.whl"); done
against=(); for w in "${all4[@]}"; do against+=(--against "$w"); done
t_plain=$(median "$A check ${mods[*]} ${against[*]} -q --no-diagnose")
t_diag=$(median "$A check ${mods[*]} ${against[*]} -q")
python3 - "$t_diag" "$t_plain" <<'PY'
import sys
a, b = map(float, sys.argv[1:])
print(f"| diagnosing every corpus module wheel against every torch build wheel vs the plain check | {a:.2f} s | {b:.2f} s | {a/b:.2f}x the plain time | <= 2x | {'met' if a/b <= 2 else 'NOT met'} |")
PY
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
echo "| pyelftools 0.29 | $(median "python3 $work/pyelf.py $big")s | $(peak python3 "$work/pyelf.py" "$big") MB |"
if [ -x "$B/lief_symbols" ]; then
  echo "| LIEF 0.9 ($("$B/lief_symbols" "$big" 2>/dev/null | head -1)) | $(ABICHECK_BENCH_RUNS=1 runs=1 median "$B/lief_symbols $big")s | $(peak "$B/lief_symbols" "$big") MB |"
fi
cpu=$corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.2.14.1
cpu26=$corpus/trixie/libtorch2.6/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.2.6.0
echo "| abicompat _C.so vs libtorch_cpu 2.6 -> 2.14 | $(runs=1 median "timeout 300 abicompat $tv $cpu26 $cpu")s | $(peak timeout 300 abicompat "$tv" "$cpu26" "$cpu") MB |"
echo "| abicheck _C.so against the 2.14 build dir (diagnosis on) | $(median "$A $tv $corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu -q")s | $(peak "$A" "$tv" "$corpus/sid/libtorch2.14/usr/lib/x86_64-linux-gnu" -q) MB |"
echo
echo "Peak memory: check against the CUDA build dir $(peak "$A" "$tv" "$lib" -q) MB; against the CUDA wheel $(peak "$A" check "$tvwhl" --against "$whl" -q) MB (goal < 100 MB for a check, < 512 MB for wheels)."
echo
echo "Micro benchmarks (bench/micro_bench):"
"$B/micro_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E 'median|^BM' | sed 's/^/    /'
