// The source names inside a mangled C++ name, read without demangling: what the diagnosis indexes
// an exported name by, to find the functions that share an undefined function's base name.
#ifndef ABICHECK_LIB_DIAGNOSE_SOURCE_NAMES_H_
#define ABICHECK_LIB_DIAGNOSE_SOURCE_NAMES_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace abicheck {

// The source names (<length><identifier>) inside a mangled name: "_ZN3c104cuda9SetDeviceEi" ->
// "3c10", "4cuda", "9SetDevice", each a view into `m`. Linear, no demangling.
template <typename F>
void ForEachSourceName(absl::string_view m, F&& f) {
  // It runs over every exported name of torch's libraries: bytes compared as unsigned ranges.
  const char* const p = m.data();
  const size_t size = m.size();
  auto digit = [](char c) { return static_cast<unsigned char>(c - '0') <= 9; };
  for (size_t i = 2; i < size;) {
    if (static_cast<unsigned char>(p[i] - '1') > 8) {  // not 1-9: no length starts here
      ++i;
      continue;
    }
    size_t j = i, n = 0;
    while (j < size && digit(p[j]) && n < 100000) n = n * 10 + static_cast<size_t>(p[j++] - '0');
    if (n > size - j) {
      i = j;
      continue;
    }
    f(m.substr(i, j - i + n));
    i = j + n;
  }
}

// Whether `token`, one of ForEachSourceName(m)'s views, sits where a function's base name can
// (SplitFunction's `base`, ABI tags aside). In the Itanium grammar the base name is the last
// <unqualified-name> of a <nested-name> — followed by the nested name's end (E), its template
// arguments (I), an ABI tag (B), or, for a constructor or destructor, whose base is its class,
// by C or D — or the one name of an <unscoped-name> right after _Z, _ZL or _ZSt. The namespaces,
// classes and parameter types around it (most of a name's source names) cannot be; the
// diagnosis indexes only these, and tests/pypi checks, on every exported function of torch's
// builds, that no base name is left out.
inline bool MayBeBaseName(absl::string_view m, absl::string_view token) {
  const size_t begin = static_cast<size_t>(token.data() - m.data());
  const size_t end = begin + token.size();
  if (end < m.size()) {
    switch (m[end]) {
      case 'E':
      case 'I':
      case 'B':
      case 'C':
      case 'D':
        return true;
      default:
        break;
    }
  }
  const absl::string_view head = m.substr(0, begin);
  return head == "_Z" || head == "_ZL" || head == "_ZSt";
}

// The source name of a base name as it is spelled in a mangled name: "SetDevice" -> "9SetDevice".
inline std::string SourceName(absl::string_view base) {
  return std::to_string(base.size()) + std::string(base);
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_DIAGNOSE_SOURCE_NAMES_H_
