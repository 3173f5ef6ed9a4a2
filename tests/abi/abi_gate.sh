#!/usr/bin/env bash
# The ABI gate on libabicheck.so itself (issue 34; docs/API.md "Stability"), against the baseline
# committed in tests/abi/baseline/:
#   exports.txt   the SOVERSION, the C++ node, every exported name@@node (abicheck symbols);
#   abicheck_c.h  the C API's header as released;
#   layout.abi    libabigail's abidw XML of every public C++ type: a probe object with one
#                 exported function per type of include/abicheck/abicheck.h, made here, so that
#                 abidw describes each layout (and all it holds) from a small object's DWARF.
# It fails when
#   - the C API lost or moved a symbol, or added one to a released node, under the same SOVERSION;
#     and, the judge of our own product: a consumer compiled against the baseline header and
#     linked against a stand-in built from the baseline's exports does not load (`abicheck
#     check`) against the new library;
#   - the C++ API lost a symbol or changed a layout (abidiff) under the same C++ node;
#   - the baseline is for another SOVERSION or C++ node than the build (run with --update, which
#     writes the baseline only when the C API checks above pass or the SOVERSION changed).
# Usage: abi_gate.sh BUILD_DIR [--update]
set -euo pipefail
build=$(cd "$1" && pwd)
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
base=$here/baseline
abicheck=$build/tools/abicheck/abicheck
lib=$(readlink -f "$build/lib/libabicheck.so")
command -v abidw > /dev/null || { echo "FAIL: abidw not found (Debian's abigail-tools: scripts/setup-deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
soversion=${soname##*.so.}
"$abicheck" symbols --defined-only "$lib" | awk '$2 != "A" {print $3}' | sort > "$work/exports.txt"
cxx_node=$(sed -n 's/.*@@\(ABICHECK_CXX_.*\)$/\1/p' "$work/exports.txt" | sort -u)
[ "$(echo "$cxx_node" | wc -l)" -eq 1 ] || { echo "FAIL: C++ nodes: $cxx_node"; exit 1; }
header=$here/../../include/abicheck/abicheck.h
{
  echo '#include "abicheck/abicheck.h"'
  echo 'namespace abicheck {'
  sed -n 's/^\(struct\|class ABICHECK_EXPORT\|enum class\) \([A-Za-z]*\).*/\2/p' "$header" | sort -u |
    while read -r t; do
      echo "extern \"C\" __attribute__((visibility(\"default\"))) void abicheck_layout_$t($t*) {}"
    done
  echo '}'
} > "$work/probe.cc"
[ "$(grep -c abicheck_layout_ "$work/probe.cc")" -ge 30 ] || { echo "FAIL: the probe found few public types"; cat "$work/probe.cc"; exit 1; }
c++ -std=c++20 -g -fPIC -shared -I"$here/../../include" -o "$work/probe.so" "$work/probe.cc"
abidw --headers-dir "$here/../../include/abicheck" --drop-private-types --no-corpus-path \
  --out-file "$work/layout.abi" "$work/probe.so"

fail=0
if [ ! -f "$base/exports.txt" ] && [ "$update" = "--update" ]; then  # the first baseline
  { echo "soversion $soversion"; echo "cxx-node $cxx_node"; cat "$work/exports.txt"; } > "$base/exports.txt"
  cp "$here/../../include/abicheck/abicheck_c.h" "$base/abicheck_c.h"
  cp "$work/layout.abi" "$base/layout.abi"
  echo "abi_gate: first baseline written for SOVERSION $soversion, $cxx_node"
  exit 0
fi
base_soversion=$(sed -n 's/^soversion //p' "$base/exports.txt")
base_cxx_node=$(sed -n 's/^cxx-node //p' "$base/exports.txt")
grep '@@' "$base/exports.txt" | sort > "$work/base_exports.txt"

# The C API.
grep '@@ABICHECK_C_' "$work/base_exports.txt" > "$work/base_c.txt" || true
grep '@@ABICHECK_C_' "$work/exports.txt" > "$work/c.txt" || true
if [ "$soversion" = "$base_soversion" ]; then
  lost=$(comm -23 "$work/base_c.txt" "$work/c.txt")
  [ -z "$lost" ] || { echo "FAIL: the C API lost or moved, under SOVERSION $soversion:"; echo "$lost"; fail=1; }
  released_nodes=$(sed 's/.*@@//' "$work/base_c.txt" | sort -u)
  added=
  for n in $released_nodes; do
    added+=$(comm -13 "$work/base_c.txt" "$work/c.txt" | grep "@@$n\$" || true)
  done
  [ -z "$added" ] || { echo "FAIL: added to a released node (add a new node to lib/abicheck.map.in):"; echo "$added"; fail=1; }
  # The consumer: the baseline header, a stand-in library with the baseline's nodes, then our own
  # verdict on it against the new library.
  names=$(sed 's/@@.*//' "$work/base_c.txt")
  {
    echo '#include "abicheck/abicheck_c.h"'
    echo 'void* abicheck_abi_consumer[] = {'
    for n in $names; do echo "  (void*)&$n,"; done
    echo '};'
  } > "$work/consumer.c"
  mkdir -p "$work/baseline_include/abicheck"
  cp "$base/abicheck_c.h" "$work/baseline_include/abicheck/"
  {
    for n in $names; do echo "void $n(void) {}"; done
  } > "$work/stand_in.c"
  {
    prev=
    for node in $(sed 's/.*@@//' "$work/base_c.txt" | sort -u -V); do
      echo "$node { global:"; grep "@@$node\$" "$work/base_c.txt" | sed 's/@@.*/;/'; echo "}${prev:+ $prev};"
      prev=$node
    done
  } > "$work/stand_in.map"
  cc -shared -fPIC -fno-builtin -o "$work/libabicheck.so.$base_soversion" -Wl,-soname,"libabicheck.so.$base_soversion" \
    -Wl,--version-script="$work/stand_in.map" "$work/stand_in.c"
  ln -sf "libabicheck.so.$base_soversion" "$work/libabicheck.so"
  cc -std=c11 -Wall -Werror -shared -fPIC -I"$work/baseline_include" -o "$work/consumer.so" "$work/consumer.c" \
    -L"$work" -labicheck
  if ! "$abicheck" check "$work/consumer.so" "$lib" > "$work/verdict.txt"; then
    echo "FAIL: a consumer of the baseline C API does not load against the new library:"
    cat "$work/verdict.txt"
    fail=1
  else
    echo "abi_gate: a consumer of the baseline C API ($(wc -l < "$work/base_c.txt") functions) loads against $(basename "$lib"): $(head -1 "$work/verdict.txt")"
  fi
elif [ "$update" != "--update" ]; then
  echo "FAIL: the baseline is for SOVERSION $base_soversion, the build is $soversion: tests/abi/abi_gate.sh BUILD --update"
  fail=1
fi

# The C++ API: unstable across minor releases (its node renamed), kept within one.
if [ "$cxx_node" = "$base_cxx_node" ]; then
  lost=$(comm -23 <(grep -v '@@ABICHECK_C_' "$work/base_exports.txt") <(grep -v '@@ABICHECK_C_' "$work/exports.txt"))
  [ -z "$lost" ] || { echo "FAIL: the C++ API lost, under $cxx_node (bump the minor version):"; echo "$lost"; fail=1; }
  set +e
  abidiff --no-added-syms "$base/layout.abi" "$work/layout.abi" > "$work/abidiff.txt"
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: the C++ API's types changed under $cxx_node (abidiff exit $rc): bump the minor version (CMakeLists.txt), then --update"
    head -40 "$work/abidiff.txt"
    fail=1
  else
    echo "abi_gate: the C++ API's layouts are the baseline's (abidiff), under $cxx_node"
  fi
elif [ "$update" != "--update" ]; then
  echo "FAIL: the baseline is for $base_cxx_node, the build is $cxx_node: tests/abi/abi_gate.sh BUILD --update"
  fail=1
fi

if [ "$update" = "--update" ]; then
  if [ "$fail" -ne 0 ]; then
    echo "abi_gate: not updating the baseline: the C API broke under the same SOVERSION"
    exit 1
  fi
  { echo "soversion $soversion"; echo "cxx-node $cxx_node"; cat "$work/exports.txt"; } > "$base/exports.txt"
  cp "$here/../../include/abicheck/abicheck_c.h" "$base/abicheck_c.h"
  cp "$work/layout.abi" "$base/layout.abi"
  echo "abi_gate: baseline written for SOVERSION $soversion, $cxx_node"
  exit 0
fi
[ "$fail" -eq 0 ] && echo "abi_gate: ok (SOVERSION $soversion, $cxx_node)"
exit "$fail"
