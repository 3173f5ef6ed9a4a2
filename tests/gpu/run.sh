#!/usr/bin/env bash
# `abicheck gpu` against the oracle, cuobjdump --list-elf --list-ptx (PyPI's nvidia-cuda-cuobjdump,
# from the PyPI corpus cache), on fixtures compiled here with nvcc for every GPU rule, on the CUDA
# toolkit's own libraries and on real extension modules of the PyPI corpus; then each rule's
# verdict both ways, and hostile edits of a real fat binary. Skips (77), saying why, only when
# nvcc or the oracle cannot be had.
#   tests/gpu/run.sh ABICHECK CACHE WORKDIR
set -uo pipefail
A=$1 cache=$2 work=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
[ -n "$nvcc" ] || { echo "skipped: no nvcc on this machine"; exit 77; }
whl=$(ls "$cache"/wheels/nvidia_cuda_cuobjdump-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "skipped: the oracle (nvidia-cuda-cuobjdump) is not in $cache/wheels"; exit 77; }
mkdir -p "$work/oracle" "$work/so"
[ -x "$work/oracle/nvidia/cu13/bin/cuobjdump" ] || (cd "$work/oracle" && python3 -m zipfile -e "$whl" . && chmod +x nvidia/cu13/bin/cuobjdump)
CO=$(ls "$work"/oracle/nvidia/*/bin/cuobjdump | head -1)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# name: nvcc -gencode arguments
declare -A variants=(
  [sass_sm90]="-gencode arch=compute_90,code=sm_90"
  [ptx_only_120]="-gencode arch=compute_120,code=compute_120"
  [arch_specific_120a]="-gencode arch=compute_120a,code=[sm_120a,compute_120a]"
  [arch_specific_90a]="-gencode arch=compute_90a,code=sm_90a"
  [family_100f]="-gencode arch=compute_100f,code=sm_100f"
  [family_120f]="-gencode arch=compute_120f,code=[sm_120f,compute_120f]"
  [several_80_90]="-gencode arch=compute_80,code=[sm_80,compute_80] -gencode arch=compute_90,code=sm_90"
  [uncompressed_ptx_75]="-gencode arch=compute_75,code=compute_75 --compress-mode=none"
  [compressed_sass_89]="-gencode arch=compute_89,code=sm_89 --compress-mode=size"
)
for name in "${!variants[@]}"; do
  out=$work/so/$name.so
  [ -f "$out" ] || "$nvcc" -shared -Xcompiler -fPIC ${variants[$name]} "$root/fixtures/gpu/kernel.cu" -o "$out" ||
    { bad "nvcc $name"; continue; }
done
cc -shared -fPIC -x c - -o "$work/so/no_device_code.so" <<< 'int f(void) { return 1; }'
# 1. The listing equals cuobjdump's, line for line.
same() {
  local f=$1 a b
  a=$("$A" gpu "$f" 2>/dev/null); b=$("$CO" --list-elf --list-ptx "$f" 2>/dev/null)
  if [ "$a" = "$b" ]; then ok; else bad "listing of $f differs from cuobjdump's:"; diff <(echo "$b") <(echo "$a") | head -5; fi
}
for f in "$work"/so/*.so; do same "$f"; done
cuda=$(dirname "$(readlink -f "$nvcc")")/../lib64
real=0
for l in libcublasLt.so.13 libcusparse.so.12 libcurand.so.10 libnccl.so.2 libcufft.so.12 libcudnn_engines_precompiled.so.9; do
  [ -f "$cuda/$l" ] && { same "$cuda/$l"; real=$((real + 1)); }
done
site=$cache/venvs/torch-2.10.0/lib/python3.12/site-packages
for m in sgl_kernel/sm90/common_ops.abi3.so sgl_kernel/sm100/common_ops.abi3.so xformers/_C.so torchvision/_C.so torch/lib/libtorch_cuda.so; do
  [ -f "$site/$m" ] && { same "$site/$m"; real=$((real + 1)); }
done
# 2. Each rule both ways: exit 0 runs, 1 no kernel image.
verdict() {  # fixture gpu expected-exit
  "$A" gpu "$work/so/$1.so" --gpu "$2" > "$work/v.txt" 2>&1
  local rc=$?
  if [ "$rc" = "$3" ]; then ok; else bad "$1 on $2: exit $rc, expected $3: $(cat "$work/v.txt")"; fi
}
verdict sass_sm90 sm_90 0;            verdict sass_sm90 sm_120 1;        verdict sass_sm90 8.9 1
verdict ptx_only_120 sm_121 0;        verdict ptx_only_120 sm_100 1
verdict arch_specific_120a sm_120 0;  verdict arch_specific_120a sm_121 1
verdict arch_specific_90a H100 0;     verdict arch_specific_90a sm_100 1
verdict family_100f sm_103 0;         verdict family_100f sm_120 1
verdict family_120f "DGX Spark" 0;    verdict family_120f sm_100 1
verdict several_80_90 sm_86 0;        verdict several_80_90 "RTX PRO 6000 Blackwell" 0
verdict uncompressed_ptx_75 A100 0;   verdict compressed_sass_89 sm_90 1
verdict no_device_code sm_120 0
grep -q "NO kernel image for sm_100: it carries sm_90a; rebuild with TORCH_CUDA_ARCH_LIST=\"10.0\"" <("$A" gpu "$work/so/arch_specific_90a.so" --gpu sm_100) && ok || bad "the no-kernel-image line"
# 3. Hostile edits of a real fat binary: never a crash, never a pass on what could not be read.
python3 - "$work/so/several_80_90.so" "$work" <<'PY'
import struct, subprocess, sys
src, work = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
def sec(i): return struct.unpack_from("<IIQQQQ", b, shoff + i * 64)
names = sec(shstrndx)[4]
fat = next(sec(i)[4] for i in range(shnum) if b[names + sec(i)[0]:].startswith(b".nv_fatbin\0"))
cases = {"no_sections": [(0x28, "<Q", 0)], "payload_past_end": [(fat + 16 + 8, "<Q", 1 << 50)],
         "fatsize_past_section": [(fat + 8, "<Q", 1 << 40)], "entry_kind_unknown": [(fat + 16, "<H", 0x77)]}
for name, edits in cases.items():
    c = bytearray(b)
    for at, fmt, v in edits: struct.pack_into(fmt, c, at, v)
    open(f"{work}/so/hostile_{name}.bin", "wb").write(c)
PY
# What cannot be read of the device code is corrupt input: exit 3 and one line naming the file
# and the structure, never "no device code" (issue 37); an entry of an unknown kind, or no section
# headers at all, is a warning line and the rest of the report.
for h in no_sections entry_kind_unknown; do
  "$A" gpu "$work/so/hostile_$h.bin" > "$work/h.txt" 2>&1
  rc=$?
  if [ $rc -le 1 ] && grep -q '^warning: .*hostile_'"$h"'.bin' "$work/h.txt"; then ok; else bad "hostile $h: exit $rc: $(head -3 "$work/h.txt")"; fi
done
for h in payload_past_end fatsize_past_section; do
  for cmd in "gpu" "gpu --gpu sm_61" "check --host-only --gpu sm_61"; do
    "$A" $cmd "$work/so/hostile_$h.bin" > "$work/h.txt" 2>&1
    rc=$?
    if [ $rc -eq 3 ] && [ "$(wc -l < "$work/h.txt")" -eq 1 ] &&
       grep -q "^abicheck: .*hostile_$h.bin: .nv_fatbin at 0x" "$work/h.txt"; then ok
    else bad "hostile $h ($cmd): exit $rc: $(head -3 "$work/h.txt")"; fi
  done
done
# 4. After loading, in check and env (G5-G7): the same rules as problems of the report, and the
# driver's side: PTX newer than the driver, a CUDA runtime newer than the driver.
[ -f "$work/so/cudart_shared.so" ] || "$nvcc" -shared -Xcompiler -fPIC -cudart shared \
  -gencode arch=compute_90,code=sm_90 "$root/fixtures/gpu/kernel.cu" -o "$work/so/cudart_shared.so" || bad "nvcc cudart_shared"
run() {  # expected-exit expected-text command...
  local want=$1 text=$2; shift 2
  "$@" > "$work/c.txt" 2>&1
  local rc=$?
  if [ "$rc" = "$want" ] && grep -qF -- "$text" "$work/c.txt"; then ok; else bad "$* : exit $rc (want $want, '$text'): $(head -8 "$work/c.txt")"; fi
}
so=$work/so
run 1 "CUDA error: no kernel image is available for execution on the device" "$A" check "$so/sass_sm90.so" --host-only --gpu sm_120
run 0 "device code: runs on sm_90 (sm_90)" "$A" check "$so/sass_sm90.so" --host-only --gpu H100
run 1 "the provided PTX was compiled with an unsupported toolchain" "$A" check "$so/ptx_only_120.so" --host-only --gpu sm_121 --cuda-driver 12.8
run 1 "install a driver that supports CUDA 13.0 or newer" "$A" check "$so/ptx_only_120.so" --host-only --gpu sm_121 --cuda-driver 575.51.03
run 0 "runs on sm_121 (compute_120)" "$A" check "$so/ptx_only_120.so" --host-only --gpu sm_121 --cuda-driver 580.65.06
run 0 "loads" "$A" check "$so/sass_sm90.so" --host-only --gpu sm_90 --cuda-driver 12.0  # SASS needs no JIT
run 1 "libcudart.so.13 needs a CUDA 13.0 driver; it supports CUDA 12.8" "$A" check "$so/cudart_shared.so" "$cuda" --cuda-driver 12.8
run 0 "loads" "$A" check "$so/cudart_shared.so" "$cuda" --cuda-driver 13.0
run 0 "device code: none" "$A" check "$so/no_device_code.so" --host-only --gpu sm_120
run 2 "unknown GPU" "$A" check "$so/sass_sm90.so" --host-only --gpu sm_9x
run 2 "neither a CUDA version" "$A" check "$so/sass_sm90.so" --host-only --cuda-driver twelve
# The host's driver, from the file name libcuda.so.1 resolves to (never loaded).
sr=$work/sysroot
rm -rf "$sr"; mkdir -p "$sr/usr/lib/x86_64-linux-gnu"
cp "$so/no_device_code.so" "$sr/usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06"
ln -s libcuda.so.570.124.06 "$sr/usr/lib/x86_64-linux-gnu/libcuda.so.1"
run 1 "it supports CUDA 12.8" "$A" check "$so/cudart_shared.so" "$cuda" -L /usr/lib/x86_64-linux-gnu --sysroot "$sr" --cuda-driver host
run 3 "no libcuda.so.1" "$A" check "$so/cudart_shared.so" "$cuda" --sysroot "$work/so" --cuda-driver host
"$A" check "$so/cudart_shared.so" "$cuda" -L /usr/lib/x86_64-linux-gnu --sysroot "$sr" --cuda-driver host --format json -o "$work/host.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["device"]; sys.exit(0 if d["driver_cuda"]=="12.8" and d["driver_file"].endswith("libcuda.so.570.124.06") and not d["runs"] else 1)' "$work/host.json" && ok || bad "host driver JSON: $(cat "$work/host.json" | head -c 400)"
# JSON of each kind validates against the report schema.
"$A" check "$so/ptx_only_120.so" --host-only --gpu sm_121 --cuda-driver 12.8 --format json -o "$work/ptx.json"
"$A" check "$so/sass_sm90.so" --host-only --gpu sm_120 --format json -o "$work/sass.json"
"$A" gpu "$so/ptx_only_120.so" "$so/sass_sm90.so" --gpu sm_90 --gpu sm_121 --format json -o "$work/gpu.json" || true
/usr/bin/python3 "$root/tests/cli/validate_json.py" "$root/docs/schema" "report:$work/ptx.json" "report:$work/sass.json" "report:$work/host.json" "gpu:$work/gpu.json" > "$work/v.txt" 2>&1 && ok || bad "schema: $(cat "$work/v.txt")"
# Inside a wheel, a module is read whole when a GPU is to be judged: the matrix cell says it.
(cd "$so" && rm -f gpu_demo-1.0-py3-none-any.whl && python3 -m zipfile -c gpu_demo-1.0-py3-none-any.whl sass_sm90.so ptx_only_120.so > /dev/null)
"$A" check "$so/gpu_demo-1.0-py3-none-any.whl" --against "$so/no_device_code.so" --gpu sm_120 > "$work/w.txt" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qE '^sass_sm90.so +NO sm_120 CODE' "$work/w.txt" && grep -qE '^ptx_only_120.so +loads' "$work/w.txt"; then ok; else bad "wheel matrix with --gpu: exit $rc: $(head -5 "$work/w.txt")"; fi
# A real environment: torch's own kernels, and sgl-kernel's sm_120a-only modules on sm_121.
venv=$cache/venvs/torch-2.9.1
if [ -d "$venv/lib/python3.12/site-packages/sgl_kernel" ]; then
  "$A" env "$venv" -L "$cache/driver-stub" --gpu sm_121 --format json -o "$work/env121.json"
  "$A" env "$venv" -L "$cache/driver-stub" --gpu sm_120 --format json -o "$work/env120.json"
  python3 - "$work/env121.json" "$work/env120.json" <<'PY' && ok || bad "env --gpu on the real sgl-kernel"
import json, sys
def cell(path, suffix):
    d = json.load(open(path))
    m = d["matrix"]
    i = next(i for i, mod in enumerate(m["modules"]) if mod.endswith(suffix))
    return m["cells"][i]["report"]
a, b = cell(sys.argv[1], "sgl_kernel/sm100/common_ops.abi3.so"), cell(sys.argv[2], "sgl_kernel/sm100/common_ops.abi3.so")
assert a["loads"] and [p["kind"] for p in a["problems"]] == ["no_kernel_image"], a["problems"]
assert "sm_120a" in a["device"]["images"] and a["device"]["usable"] == []
assert b["loads"] and b["problems"] == [] and b["device"]["usable"] == ["sm_120a"], b["device"]
PY
fi
echo "gpu: ${#variants[@]} fixtures, $real real libraries and modules compared with $("$CO" --version | tail -1)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
