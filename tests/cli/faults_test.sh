#!/usr/bin/env bash
# The file system and the output side as a CI job meets them (issue 17): FIFOs, a full disk, a
# closed stdout, an output that is an input, control bytes in file names, an output that is a
# directory, a device or a symlink. Each case: the exit code and the one line that says why.
#   tests/cli/faults_test.sh ABICHECK WORKDIR
set -uo pipefail
A=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
budget=20  # seconds a case may take before it counts as a hang
expect() {  # exit text command... (stderr and stdout together; a hang is a failure)
  local want=$1 text=$2; shift 2
  timeout "$budget" "$@" > out.txt 2>&1
  local rc=$?
  if [ "$rc" = "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" out.txt; }; then ok; else bad "$*: exit $rc (want $want, '$text'): $(head -3 out.txt | cat -v)"; fi
}
cc -shared -fPIC -x c - -o m.so <<< 'int f(void) { return 1; }' || exit 1
cp m.so lib.so
# FIFOs are refused at once, never opened for reading (open would wait for a writer).
mkfifo ff x.whl
expect 3 "ff: not a regular file (a FIFO)" "$A" symbols ff
expect 3 "ff: not a regular file (a FIFO)" "$A" check m.so ff
expect 3 "ff: not a regular file (a FIFO)" "$A" index ff -o ff.abix
expect 3 "x.whl: not a regular file (a FIFO)" "$A" check m.so --against x.whl
mkdir withfifo && cp m.so withfifo/ && mkfifo withfifo/libz.so
expect 0 "loads" "$A" check m.so withfifo
# Every write to stdout counts: a full disk or a closed stdout is exit 3, not success.
expect 3 "stdout" sh -c "'$A' check m.so lib.so > /dev/full"
expect 3 "stdout" sh -c "'$A' symbols m.so > /dev/full"
expect 3 "stdout" sh -c "'$A' diff m.so lib.so > /dev/full"
expect 3 "stdout" sh -c "'$A' index m.so -o i.abix > /dev/full"
expect 3 "stdout" sh -c "'$A' check m.so lib.so >&-"
expect 3 "/dev/full" "$A" check m.so lib.so -o /dev/full
# An output that is one of the inputs is refused before anything is written.
size=$(stat -c %s m.so)
expect 2 "is an input" "$A" symbols m.so -o m.so
ln -sf m.so link.so
expect 2 "is an input" "$A" check m.so lib.so -o link.so
expect 2 "is an input" "$A" index m.so -o ./m.so
expect 2 "is an input" "$A" diff m.so lib.so -o lib.so
[ "$(stat -c %s m.so)" = "$size" ] && [ "$(stat -c %s lib.so)" = "$size" ] && ok || bad "an input was changed"
# Outputs: a directory is an error that leaves nothing behind; a device is written in place; a
# symlink keeps pointing at the file it names; no temporary file survives.
mkdir adir
expect 3 "adir: Is a directory" "$A" index m.so -o adir -q
[ -z "$(ls -A adir)" ] && ok || bad "index -o adir left $(ls -A adir)"
expect 0 "" "$A" index m.so -o /dev/null -q
[ -c /dev/null ] && ok || bad "/dev/null replaced"
"$A" index m.so -o real.abix -q && ln -s real.abix l.abix && "$A" index m.so lib.so -o l.abix -q
[ -L l.abix ] && [ "$("$A" check m.so --against l.abix -q; echo $?)" = 0 ] && ok || bad "index -o SYMLINK"
[ -z "$(ls -A | grep '^\.')" ] && ok || bad "temporary files left: $(ls -A | grep '^\.')"
# Wording a new user meets (issue 15): help on no command, an empty path.
expect 2 "help: no command 'nonexist'" "$A" help nonexist
expect 3 "'' (an empty path): No such file" "$A" check "" lib.so
# Control bytes of file names are escaped in messages, as in reports.
expect 3 'no\x1b[31m.so: No such file' "$A" check "$(printf 'no\033[31m.so')" lib.so
cp m.so "$(printf 'b\033]0;x\007.so')"
expect 2 'b\x1b]0;x\x07.so' "$A" check "$(printf 'b\033]0;x\007.so')"
if grep -q $'\033' out.txt; then bad "a raw ESC reached the terminal"; else ok; fi
# Caps name the option that raises them, and the option works.
python3 -c 'import sys, zipfile
with zipfile.ZipFile("three.whl", "w") as z:
    for n in ("a", "b", "c"): z.write("m.so", f"pkg/lib{n}.so")'
expect 3 "more than the cap of 2 (raise it with --max-members)" "$A" check three.whl --against lib.so --max-members 2
expect 0 "loads" "$A" check three.whl --against lib.so --max-members 3
mkdir -p deep/a/b/c && cp m.so deep/a/b/c/
expect 3 "(raise it with --max-depth)" "$A" check m.so deep --max-depth 2 --against lib.so
# The demangled listing of a real library uses worker threads (one per 2,048 symbols): under the
# sanitizers, LeakSanitizer fails the run if a thread's demangle buffer outlives it.
expect 0 "" sh -c "'$A' symbols -C /usr/lib/x86_64-linux-gnu/libstdc++.so.6 > /dev/null"
# 70,000 libraries in one directory: past vm.max_map_count (65,530) if each stayed mapped.
cc -shared -fPIC -nostdlib -s -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 -x c - -o tiny.so <<< 'int f(void) { return 1; }'
mkdir many && python3 - tiny.so many <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
for i in range(70000):
    b = bytearray(data)
    b[-4:] = i.to_bytes(4, "little")  # distinct files (identical ones are one inode-deduped read)
    open(f"{sys.argv[2]}/lib{i}.so", "wb").write(b)
PY
# 70,000 opens and reads: about 2.5 s optimized, ten times that under ASan in a Debug build (it
# grows linearly: 35,000 take half as long), so this one case has a longer budget.
budget=180 expect 0 "loads" "$A" check m.so --against many --no-diagnose
rm -rf many
# A central-directory entry whose local header names another file (Python's zipfile refuses it:
# "File name in directory ... and header ... differ"), and one whose local header declares other
# sizes: both refused, never read as some member.
python3 - m.so <<'PY'
import struct, sys, zipfile
with zipfile.ZipFile("renamed.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[1], "pkg/_a.so")
    z.write(sys.argv[1], "pkg/_b.so")
data = bytearray(open("renamed.whl", "rb").read())
second = data.index(b"PK\x03\x04", 4)       # the second member's local header
name_at = second + 30
data[name_at + len("pkg/_")] = ord("c")        # its local name now pkg/_c.so
open("renamed.whl", "wb").write(data)
sizes = bytearray(open("renamed.whl", "rb").read().replace(b"pkg/_c.so", b"pkg/_b.so"))
struct.pack_into("<I", sizes, second + 22, struct.unpack_from("<I", sizes, second + 22)[0] + 1)
open("resized.whl", "wb").write(sizes)
try:  # the oracle: Python refuses the renamed one (it reads sizes from the central directory
    with zipfile.ZipFile("renamed.whl") as z:  # only; such a wheel is refused, not guessed at)
        for n in z.namelist(): z.read(n)
    print("python reads renamed.whl"); sys.exit(1)
except zipfile.BadZipFile:
    pass
PY
[ $? -eq 0 ] && ok || bad "Python's zipfile read a wheel it should refuse"
expect 3 "disagrees with the central directory" "$A" check renamed.whl --against lib.so
expect 3 "disagrees with the central directory" "$A" check resized.whl --against lib.so
# An end-of-central-directory record that claims more entries than its central directory holds
# (65,535; through a Zip64 record, 2^32) is said as such, not blamed on a local header.
python3 - m.so <<'PY'
import struct, sys, zipfile
with zipfile.ZipFile("eocd.whl", "w") as z:
    z.write(sys.argv[1], "pkg/_a.so")
with zipfile.ZipFile("eocd64.whl", "w") as z:
    with z.open("pkg/_a.so", "w", force_zip64=True) as f:
        f.write(open(sys.argv[1], "rb").read())
data = bytearray(open("eocd.whl", "rb").read())
at = data.rindex(b"PK\x05\x06")
struct.pack_into("<HH", data, at + 8, 0xFFFF, 0xFFFF)
open("eocd.whl", "wb").write(data)
data = bytearray(open("eocd64.whl", "rb").read())
at = data.rindex(b"PK\x05\x06")
zip64 = len(data) - 22 - 20 - 56  # Python writes the Zip64 record, its locator, then the record
if data[zip64:zip64 + 4] != b"PK\x06\x06":  # no Zip64 record for one small member: make one
    cd_size, cd_offset = struct.unpack_from("<II", data, at + 12)
    rec = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 2**32, 2**32, cd_size, cd_offset)
    loc = struct.pack("<IIQI", 0x07064B50, 0, at, 1)
    data = data[:at] + rec + loc + data[at:]
else:
    struct.pack_into("<QQ", data, zip64 + 24, 2**32, 2**32)
open("eocd64.whl", "wb").write(data)
PY
expect 3 "the end-of-central-directory record claims 65535 entries; its central directory of" \
  "$A" check eocd.whl --against lib.so
expect 3 "the end-of-central-directory record claims 4294967296 entries" "$A" check eocd64.whl --against lib.so
# pip changing an environment while env reads it: a directory listed, then gone when opened (an
# LD_PRELOAD shim, built here, plays pip) is named, with the likely cause (issue 37 item 14).
cat > vanish.c <<'C'
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
static int vanishing(const char* p) {
  const char* s = strrchr(p, '/');
  return strcmp(s ? s + 1 : p, "vanishing") == 0;
}
DIR* opendir(const char* p) {
  if (vanishing(p)) { errno = ENOENT; return NULL; }
  DIR* (*real)(const char*) = (DIR * (*)(const char*)) dlsym(RTLD_NEXT, "opendir");
  return real(p);
}
int openat(int fd, const char* p, int flags, ...) {
  va_list a;
  va_start(a, flags);
  int mode = va_arg(a, int);
  va_end(a);
  if ((flags & O_DIRECTORY) && vanishing(p)) { errno = ENOENT; return -1; }
  int (*real)(int, const char*, int, ...) = (int (*)(int, const char*, int, ...))dlsym(RTLD_NEXT, "openat");
  return real(fd, p, flags, mode);
}
C
cc -shared -fPIC -o vanish.so vanish.c -ldl || exit 1
mkdir -p churn/lib/python3.12/site-packages/vanishing churn/lib/python3.12/site-packages/torch-2.10.0.dist-info
echo "version_info = 3.12.1" > churn/pyvenv.cfg
printf 'Name: torch\nVersion: 2.10.0\n' > churn/lib/python3.12/site-packages/torch-2.10.0.dist-info/METADATA
: > churn/lib/python3.12/site-packages/torch-2.10.0.dist-info/RECORD
expect 3 "site-packages/vanishing: No such file or directory (it vanished while the environment was read: is pip changing it? Check again)" \
  env LD_PRELOAD="$PWD/vanish.so" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$A" env churn
# Unreadable files and directories are input errors naming them, in a directory given as
# providers, to index, to diff, and in an environment — never left out without a word. As root
# (which reads everything) the cases run as nobody, from a scratch directory nobody can reach.
perm=$(mktemp -d) && chmod 755 "$perm" && cp "$A" "$perm/abicheck" && cp m.so lib.so "$perm/" &&
  mkdir -p "$perm/prov" "$perm/out" "$perm/venv/lib/python3.12/site-packages/pkg" &&
  cp lib.so "$perm/prov/libok.so" && cp lib.so "$perm/prov/liblocked.so" && chmod 777 "$perm/out" &&
  cp lib.so "$perm/venv/lib/python3.12/site-packages/pkg/_locked.so" && chmod -R a+rX "$perm" &&
  chmod 000 "$perm/prov/liblocked.so" "$perm/venv/lib/python3.12/site-packages/pkg/_locked.so"
as=(); [ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
P="$perm/abicheck"
expect 3 "liblocked.so: Permission denied" "${as[@]}" "$P" check "$perm/m.so" --against "$perm/prov"
expect 3 "liblocked.so: Permission denied" "${as[@]}" "$P" index "$perm/prov" -o "$perm/out/x.abix"
[ ! -e "$perm/out/x.abix" ] && ok || bad "index left a file behind after the error"
expect 3 "liblocked.so: Permission denied" "${as[@]}" "$P" diff "$perm/prov" "$perm/prov"
expect 3 "_locked.so: Permission denied" "${as[@]}" "$P" env "$perm/venv"
chmod 644 "$perm/prov/liblocked.so" && mkdir "$perm/prov/sub" && chmod 000 "$perm/prov/sub"
expect 3 "sub: Permission denied" "${as[@]}" "$P" check "$perm/m.so" --against "$perm/prov"
chmod 755 "$perm/prov/sub" && expect 0 "loads" "${as[@]}" "$P" check "$perm/m.so" --against "$perm/prov"
# A path longer than PATH_MAX (4,096) inside a directory given as input: an input error, not a
# library left out.
long=$(printf 'd%.0s' $(seq 1 250))
(cd "$perm/prov/sub" && for i in $(seq 1 18); do mkdir "$long" && cd "$long" || exit 1; done &&
  cp "$perm/lib.so" libdeep.so) && chmod -R a+rX "$perm/prov"
expect 3 "File name too long" "${as[@]}" "$P" check "$perm/m.so" --against "$perm/prov" --max-depth 40
# An environment whose site-packages (mode 000) or lib/ (mode 111: entered, not listed) cannot be
# listed is said so, not "no torch installed here" or "not a Python environment" (issue 37 item 15).
site=$perm/venv/lib/python3.12/site-packages
chmod 000 "$site"
expect 3 "site-packages: cannot be listed: Permission denied" "${as[@]}" "$P" env "$perm/venv"
chmod 755 "$site" && chmod 111 "$perm/venv/lib"
expect 3 "venv/lib: cannot be listed: Permission denied" "${as[@]}" "$P" env "$perm/venv"
chmod 755 "$perm/venv/lib"
rm -rf "$perm"
# A wheel member with device code too large to keep whole (issue 37 item 9: an 18 MB wheel with a
# 4 GiB member took 4.2 GB under gpu and check --gpu): its .nv_fatbin is walked as it inflates.
# 256 MiB of padding around a fat binary: the answers equal the loose file's, in well under the
# member's size of memory more than the same command on a small member (peak RSS of the process,
# from the kernel's accounting; relative, as a sanitizer build has its own overhead).
python3 - <<'PY' || bad "making the large device-code member"
import struct, zipfile
entry = struct.pack("<HHIQQHHIQQ", 2, 0x0101, 64, 8, 0, 8, 1, 90, 0, 0x11).ljust(64, b"\0") + b"\0" * 8
fat = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry
open("fat.bin", "wb").write(fat)
with open("pad.bin", "wb") as f: f.truncate(128 << 20)
PY
if objcopy --add-section .pad1=pad.bin --add-section .nv_fatbin=fat.bin --add-section .pad2=pad.bin m.so big.so 2>objcopy.txt; then
  python3 -c 'import zipfile,sys; z=zipfile.ZipFile("big-1.0-py3-none-any.whl","w",zipfile.ZIP_DEFLATED,compresslevel=1); z.write("big.so","big/big.so"); z.close()'
  peak() {  # the peak RSS, in MiB, of a command; its stdout in peak.txt
    python3 -c 'import resource,subprocess,sys; r=subprocess.run(sys.argv[1:],stdout=open("peak.txt","w"),stderr=subprocess.STDOUT); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024, r.returncode)' "$@"
  }
  objcopy --add-section .nv_fatbin=fat.bin m.so small.so
  python3 -c 'import zipfile,sys; z=zipfile.ZipFile("small-1.0-py3-none-any.whl","w",zipfile.ZIP_DEFLATED); z.write("small.so","big/big.so"); z.close()'
  read -r base _ < <(peak "$A" gpu small-1.0-py3-none-any.whl --gpu sm_90)
  for args in "gpu --gpu sm_90" "gpu --gpu sm_120" "gpu"; do
    "$A" $args big.so > loose.txt 2>&1
    read -r mib rc < <(peak "$A" $args big-1.0-py3-none-any.whl)
    mib=$((mib - base))
    if [ "$mib" -lt 128 ] && diff -q <(sed 's#big-1.0-py3-none-any.whl!big/##' peak.txt) loose.txt > /dev/null; then ok
    else bad "$args on a 256 MiB member: peak ${mib} MiB over a small member's (exit $rc), or an answer unlike the loose file's: $(diff <(sed 's#big-1.0-py3-none-any.whl!big/##' peak.txt) loose.txt | head -4)"; fi
  done
  read -r mib rc < <(peak "$A" check big-1.0-py3-none-any.whl --against m.so --gpu sm_120)
  mib=$((mib - base))
  if [ "$mib" -lt 128 ] && [ "$rc" = 1 ] && grep -qE '^big/big.so +NO sm_120 CODE' peak.txt; then ok
  else bad "check --gpu sm_120 on a 256 MiB member: peak ${mib} MiB over a small member's, exit $rc: $(head -3 peak.txt)"; fi
  rm -f big.so big-1.0-py3-none-any.whl small.so small-1.0-py3-none-any.whl pad.bin
else
  bad "objcopy: $(cat objcopy.txt)"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
