#!/usr/bin/env bash
# The PyPI rows of the README's performance table: `abicheck env` on a real virtualenv (warm and
# cold page cache) beside what it replaces — Python importing torch and loading every shared
# object abicheck checks — and the index of the corpus's torch builds against the largest
# single-build index. Needs the PyPI corpus (tests/pypi/make-venvs.sh; run as root for the cold
# rows, which drop the page cache).
#   bench/compare-pypi.sh [CACHE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}}
runs=${ABICHECK_BENCH_RUNS:-10}
command -v hyperfine > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q hyperfine > /dev/null
"$root/tests/pypi/make-venvs.sh" "$cache" > /dev/null
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF > /dev/null
cmake --build "$root/build-bench" --target abicheck > /dev/null
A=$root/build-bench/tools/abicheck/abicheck
v=$cache/venvs/torch-2.9.1
stub=$cache/driver-stub
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() {  # hyperfine args... -> median seconds
  hyperfine --style none -i --export-json "$work/h.json" "$@" > /dev/null 2>&1
  python3 -c "import json;print('%.4f' % json.load(open('$work/h.json'))['results'][0]['median'])"
}
# The baseline: what finding out by importing costs — import torch, then every shared object of
# every other package loaded in a fork of its own (tests/pypi/differential.py's judge).
"$A" env "$v" -L "$stub" --format json -o "$work/env.json" || true
python3 - "$work/env.json" > "$work/objects.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["packages"]:
    for i in p["modules"]:
        print(d["matrix"]["modules"][i])
PY
cat > "$work/import.py" <<'PY'
import ctypes, os, sys
import torch  # noqa: F401
for p in open(sys.argv[1]).read().split():
    pid = os.fork()
    if pid == 0:
        try:
            ctypes.CDLL(p, mode=os.RTLD_LOCAL)
        except OSError:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
PY
py=$v/bin/python
drop='sync; echo 3 > /proc/sys/vm/drop_caches'
t_env=$(median -N --warmup 2 --runs "$runs" "$A env $v -L $stub -q")
t_env_nd=$(median -N --warmup 2 --runs "$runs" "$A env $v -L $stub -q --no-diagnose")
t_imp=$(median --warmup 1 --runs "$runs" "LD_LIBRARY_PATH=$stub $py $work/import.py $work/objects.txt")
t_env_cold=$(median --runs 5 --prepare "$drop" "$A env $v -L $stub -q")
t_imp_cold=$(median --runs 3 --prepare "$drop" "LD_LIBRARY_PATH=$stub $py $work/import.py $work/objects.txt")
n=$(wc -l < "$work/objects.txt")
python3 - "$t_env" "$t_env_nd" "$t_imp" "$t_env_cold" "$t_imp_cold" "$n" <<'PY'
import sys
env, nd, imp, envc, impc = map(float, sys.argv[1:6]); n = sys.argv[6]
print(f"| `abicheck env` on the torch 2.9.1 venv ({n} shared objects of 9 packages), warm | {env*1000:.0f} ms | {imp*1000:.0f} ms | {imp/env:.1f}x | >= 20x, < 300 ms | {'met' if imp/env >= 20 and env < 0.3 else 'NOT met'} |")
print(f"| the same, `--no-diagnose` | {nd*1000:.0f} ms | {imp*1000:.0f} ms | {imp/nd:.1f}x | | |")
print(f"| the same, cold page cache | {envc*1000:.0f} ms | {impc*1000:.0f} ms | {impc/envc:.1f}x | (reported) | |")
PY
# The cost of the GPU check (docs/gpu-model.md G5-G7) on top of the plain env check.
t_env_gpu=$(median -N --warmup 2 --runs "$runs" "$A env $v -L $stub -q --gpu sm_120 --cuda-driver 12.8")
python3 - "$t_env" "$t_env_gpu" <<'PY'
import sys
plain, gpu = map(float, sys.argv[1:3])
print(f"| `abicheck env` with `--gpu sm_120 --cuda-driver 12.8` vs without | {gpu*1000:.0f} ms | {plain*1000:.0f} ms | +{(gpu/plain-1)*100:.0f} % | < +10 % | {'met' if gpu/plain < 1.10 else 'NOT met'} |")
PY
# abicheck gpu's listing against cuobjdump's (the oracle of tests/gpu), on the largest toolkit
# library there is.
co=$(ls "$cache"/gpu-oracle/nvidia/*/bin/cuobjdump 2>/dev/null | head -1 || true)  # none yet: unpacked below
if [ -z "$co" ] && whl=$(ls "$cache"/wheels/nvidia_cuda_cuobjdump-*.whl 2>/dev/null | head -1); then
  mkdir -p "$cache/gpu-oracle" && (cd "$cache/gpu-oracle" && python3 -m zipfile -e "$whl" .)
  co=$(ls "$cache"/gpu-oracle/nvidia/*/bin/cuobjdump | head -1) && chmod +x "$co"
fi
lt=$(ls /usr/local/cuda/lib64/libcublasLt.so.* 2>/dev/null | head -1 || true)
if [ -n "$co" ] && [ -n "$lt" ]; then
  t_gpu=$(median -N --warmup 2 --runs "$runs" "$A gpu $lt")
  t_co=$(median -N --warmup 1 --runs "$runs" "$co --list-elf --list-ptx $lt")
  python3 - "$t_gpu" "$t_co" "$(basename "$lt")" "$("$A" gpu "$lt" | wc -l)" <<'PY'
import sys
a, b = map(float, sys.argv[1:3])
print(f"| `abicheck gpu` vs `cuobjdump --list-elf --list-ptx`, {sys.argv[3]} ({sys.argv[4]} entries) | {a*1000:.0f} ms | {b*1000:.0f} ms | {b/a:.1f}x | | |")
PY
fi
# The four corpus torch builds in one index, against the largest single-build index.
builds=()
for t in 2.9.1 2.10.0 2.12.1 2.15.0; do builds+=("$(ls "$cache"/wheels/torch-$t-*.whl | head -1)"); done
"$A" index "${builds[@]}" -o "$work/all.abix" -q
largest=0
for b in "${builds[@]}"; do
  "$A" index "$b" -o "$work/one.abix" -q
  s=$(stat -c %s "$work/one.abix"); [ "$s" -gt "$largest" ] && largest=$s
done
python3 - "$(stat -c %s "$work/all.abix")" "$largest" <<'PY'
import sys
four, one = map(int, sys.argv[1:])
print(f"| index of the four PyPI torch builds vs the largest single-build index | {four/1048576:.1f} MB | {one/1048576:.1f} MB | {four/one:.2f}x | <= 1.6x | {'met' if four/one <= 1.6 else 'NOT met'} |")
PY
