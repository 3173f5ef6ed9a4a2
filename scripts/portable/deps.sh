#!/usr/bin/env bash
# Builds the portable build's dependencies from Debian 12's source packages with the Zig toolchain
# (PyPI `ziglang`), for glibc 2.28 and static linking: docs/portable.md says why and what.
#   scripts/portable/deps.sh [x86_64|aarch64]   -> prints the prefix (bin/ wrappers, include/, lib/)
# Exit 77 when PyPI or Debian's archive cannot be reached (and nothing is cached).
# Everything lands under $ABICHECK_PORTABLE_CACHE (default ~/.cache/abicheck-portable), outside the
# clone, keyed by this script's contents: a second run with the same script prints the prefix at once.
set -euo pipefail
arch=${1:-x86_64}
case "$arch" in x86_64|aarch64) ;; *) echo "deps.sh: no portable build for '$arch'" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
cache=${ABICHECK_PORTABLE_CACHE:-$HOME/.cache/abicheck-portable}
glibc=2.28   # the manylinux_2_28 floor CUDA 13's wheels use
key=$(cat "$0" "$here/versions.txt" | sha256sum | cut -c1-12)
prefix=$cache/deps-$arch-$key
if [ -f "$prefix/.complete" ]; then echo "$prefix"; exit 0; fi
log() { echo "deps.sh: $*" >&2; }

# The toolchain: pinned PyPI packages in a virtualenv of the cache (scripts/portable/versions.txt).
tools=$cache/tools
if ! "$tools/bin/python" -c 'import ziglang' 2>/dev/null ||
   ! cmp -s "$here/versions.txt" "$tools/versions.txt"; then
  log "toolchain venv $tools"
  python3 -m venv --clear "$tools" >&2
  "$tools/bin/pip" install -q --disable-pip-version-check -r "$here/versions.txt" >&2 ||
    { log "cannot install the toolchain from PyPI"; exit 77; }
  cp "$here/versions.txt" "$tools/versions.txt"
fi
zig=$("$tools/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
export ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache

# Debian's source packages, fetched as CORPUS.md fetches binaries: a private apt state, the
# mirror of the system's debian.sources, `apt-get source --download-only` (apt checks the signed
# index and each file's checksum). nasm (Debian) assembles ISA-L's x86 kernels.
src=$cache/src
packages=(abseil lz4 libisal libiberty libzip zlib nlohmann-json3 cli11 curl llvm-toolchain-14)
if [ ! -f "$src/.complete" ]; then
  apt=$cache/apt
  mkdir -p "$apt/lists/partial" "$apt/sources" "$apt/cache/archives/partial" "$src"
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: %s\n' \
    "$uri" /usr/share/keyrings/debian-archive-keyring.gpg > "$apt/sources/src.sources"
  opts=(-oDir::State::Lists="$apt/lists" -oDir::Etc::SourceList=/dev/null
        -oDir::Etc::SourceParts="$apt/sources" -oDir::Cache="$apt/cache" -q)
  log "fetching Debian source packages: ${packages[*]}"
  # Exit 77 (a test's "skipped") when Debian's archive cannot be reached.
  apt-get "${opts[@]}" update >&2 || { log "cannot reach Debian's archive"; exit 77; }
  (cd "$src" && apt-get "${opts[@]}" source --download-only "${packages[@]}" >&2) ||
    { log "cannot fetch the source packages"; exit 77; }
  touch "$src/.complete"
fi
orig() { ls "$src/$1"_*.orig.tar.* | grep -v '\.asc$' | head -1; }

# Builds of an older deps.sh (another key) are not used again: only this one is kept.
rm -rf "$prefix" "$prefix.work" "$cache"/deps-"$arch"-*
work=$prefix.work
mkdir -p "$prefix/bin" "$prefix/include" "$prefix/lib/pkgconfig" "$work"
# Compiler wrappers: CMake, make and configure scripts take a compiler as one path.
target=$arch-linux-gnu.$glibc
for t in cc c++; do
  printf '#!/bin/sh\nexec "%s" %s -target %s "$@"\n' "$zig" "$t" "$target" > "$prefix/bin/z$t"
done
for t in ar ranlib; do printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$t" > "$prefix/bin/z$t"; done
chmod +x "$prefix"/bin/z*
CC=$prefix/bin/zcc CXX=$prefix/bin/zc++ AR=$prefix/bin/zar RANLIB=$prefix/bin/zranlib
export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR
cflags="-O2 -fPIC -g0"
unpack() {  # unpack PKG DIR [tar patterns...]
  local pkg=$1 dir=$work/$2; shift 2
  mkdir -p "$dir" && tar -xf "$(orig "$pkg")" -C "$dir" --strip-components=1 "$@"
}
cmake_dep() {  # cmake_dep DIR cmake-args...
  local dir=$work/$1; shift
  cmake -S "$dir" -B "$dir/_build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$here/../../cmake/zig-toolchain.cmake" \
    -DABICHECK_PORTABLE_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON "$@" >&2
  cmake --build "$dir/_build" -j"$(nproc)" >&2
  cmake --install "$dir/_build" >&2
}

log "zlib"
unpack zlib zlib
(cd "$work/zlib" && CC=$CC AR=$AR RANLIB=$RANLIB CFLAGS=$cflags ./configure --static --prefix="$prefix" \
   --libdir="$prefix/lib" >&2 && make -j"$(nproc)" libz.a >&2 && make install >&2)

log "libzip"
unpack libzip libzip
cmake_dep libzip -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF -DENABLE_ZSTD=OFF -DENABLE_GNUTLS=OFF \
  -DENABLE_OPENSSL=OFF -DENABLE_MBEDTLS=OFF -DENABLE_COMMONCRYPTO=OFF -DENABLE_WINDOWS_CRYPTO=OFF \
  -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF

log "lz4"
unpack lz4 lz4
make -C "$work/lz4/lib" -j"$(nproc)" liblz4.a CC="$CC" AR="$AR" CFLAGS="$cflags" >&2
cp "$work"/lz4/lib/liblz4.a "$prefix/lib/"
cp "$work"/lz4/lib/lz4.h "$work"/lz4/lib/lz4hc.h "$work"/lz4/lib/lz4frame.h "$prefix/include/"
printf 'prefix=%s\nName: lz4\nDescription: lz4\nVersion: 1.9.4\nLibs: -L${prefix}/lib -llz4\nCflags: -I${prefix}/include\n' \
  "$prefix" > "$prefix/lib/pkgconfig/liblz4.pc"

log "ISA-L"
unpack libisal isal
if [ "$arch" = x86_64 ]; then
  isal_arch=(host_cpu=x86_64 arch=)  # nasm (Debian) assembles the x86 kernels
else
  # ISA-L 2.30's aarch64 kernels are written for GNU as (clang's assembler rejects some operand
  # forms): Zig's clang preprocesses them, Debian's binutils-aarch64-linux-gnu assembles.
  cat > "$prefix/bin/zas" <<ZAS
#!/bin/sh
out= in= flags=
while [ \$# -gt 0 ]; do
  case "\$1" in -o) out=\$2; shift ;; -c) ;; *.S) in=\$1 ;; *) flags="\$flags \$1" ;; esac
  shift
done
"$CC" -E -D__ASSEMBLY__ \$flags "\$in" | aarch64-linux-gnu-as -o "\$out"
ZAS
  chmod +x "$prefix/bin/zas"
  isal_arch=(host_cpu=aarch64 arch=aarch64 AS="$prefix/bin/zas")
fi
make -C "$work/isal" -f Makefile.unx -j"$(nproc)" bin/isa-l.a CC="$CC" AR="$AR" "${isal_arch[@]}" \
  CFLAGS_="$cflags" CFLAGS_aarch64="$cflags" DEBUG= DEBUG_nasm= >&2
cp "$work/isal/bin/isa-l.a" "$prefix/lib/libisal.a"
mkdir -p "$prefix/include/isa-l" && cp "$work"/isal/include/*.h "$prefix/include/isa-l/"
printf 'prefix=%s\nName: libisal\nDescription: ISA-L\nVersion: 2.30.0\nLibs: -L${prefix}/lib -lisal\nCflags: -I${prefix}/include\n' \
  "$prefix" > "$prefix/lib/pkgconfig/libisal.pc"

log "libiberty (binutils' demangler)"
unpack libiberty libiberty
mkdir -p "$work/libiberty/_build"
(cd "$work/libiberty/_build" && CC=$CC AR=$AR RANLIB=$RANLIB CFLAGS=$cflags \
   ../libiberty/configure --host="$arch-linux-gnu" --disable-multilib >&2 && make -j"$(nproc)" libiberty.a >&2)
cp "$work/libiberty/_build/libiberty.a" "$prefix/lib/"
mkdir -p "$prefix/include/libiberty" && cp "$work"/libiberty/include/*.h "$prefix/include/libiberty/"

log "LLVM's demangler (llvm/lib/Demangle of LLVM 14)"
unpack llvm-toolchain-14 llvm --wildcards '*/llvm/lib/Demangle/*' '*/llvm/include/llvm/Demangle/*'
mkdir -p "$work/llvm/_build" "$prefix/include/llvm"
for f in "$work"/llvm/llvm/lib/Demangle/*.cpp; do
  "$CXX" -std=c++17 $cflags -I"$work/llvm/llvm/include" -c "$f" -o "$work/llvm/_build/$(basename "$f" .cpp).o" &
done
wait
"$AR" rcs "$prefix/lib/libLLVMDemangle.a" "$work"/llvm/_build/*.o
cp -r "$work/llvm/llvm/include/llvm/Demangle" "$prefix/include/llvm/"

log "curl's headers (libcurl itself is the host's, loaded on first use)"
unpack curl curl --wildcards '*/include/curl/*'
cp -r "$work/curl/include/curl" "$prefix/include/"

log "nlohmann-json, CLI11 (headers)"
unpack nlohmann-json3 json
cmake_dep json -DJSON_BuildTests=OFF -DJSON_Install=ON
unpack cli11 cli11
cmake_dep cli11 -DCLI11_BUILD_TESTS=OFF -DCLI11_BUILD_EXAMPLES=OFF -DCLI11_BUILD_DOCS=OFF

log "abseil"
unpack abseil absl
# Zig reads -march as a CPU name: say abseil's AES flags for aarch64 in its own words.
sed -i 's/-march=armv8-a+crypto/-mcpu=generic+aes/' "$work/absl/absl/copts/GENERATED_AbseilCopts.cmake"
cmake_dep absl -DCMAKE_CXX_STANDARD=20 -DABSL_PROPAGATE_CXX_STD=ON -DBUILD_TESTING=OFF

rm -rf "$work"
touch "$prefix/.complete"
echo "$prefix"
