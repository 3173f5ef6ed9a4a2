// The source names inside a mangled C++ name, read without demangling: what the diagnosis indexes
// an exported name by, to find the functions that share an undefined function's base name.
#ifndef ABICHECK_LIB_SYMBOLS_SOURCE_NAMES_H_
#define ABICHECK_LIB_SYMBOLS_SOURCE_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lib/demangle/demangle.h"

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

// A source name's hash, as the diagnosis's base-name buckets key it — at run time (lib/diagnose)
// and stored in an index (docs/index-format.md, "Base names"): the stored buckets are only valid
// for this function, so it is part of the index format. Source names are short (most under 24
// bytes) and there are millions of them: a word at a time, multiply and fold. A hash is not a
// name: whoever uses a bucket compares the names it finds.
inline uint32_t SourceNameHash(absl::string_view token) {
  uint64_t h = token.size() * 0x9e3779b97f4a7c15u;
  const char* p = token.data();
  size_t n = token.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9u;
    h ^= h >> 31;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < n; ++i) w |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  h = (h ^ w) * 0xbf58476d1ce4e5b9u;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The scope around a base name, as a key: the hash of the mangled bytes before `token` (one of
// ForEachSourceName(m)'s views), without "_Z", the nested name's N and the function's own
// qualifiers (K, V, r, R, O) — "_ZNK2at6Tensor4sizeEl" and "_ZN2at6Tensor4sizeEv" share
// "2at6Tensor". Itanium mangling writes a prefix the same way whatever follows it, so one scope has
// one key: the diagnosis looks at the functions of the wanted scope first (lib/diagnose), and still
// compares the demangled scopes.
inline uint32_t ContextKey(absl::string_view m, absl::string_view token) {
  absl::string_view head = m.substr(0, static_cast<size_t>(token.data() - m.data()));
  if (head.size() >= 2 && head[0] == '_' && head[1] == 'Z') head.remove_prefix(2);
  if (!head.empty() && head[0] == 'L') head.remove_prefix(1);
  if (!head.empty() && head[0] == 'N') {
    head.remove_prefix(1);
    while (!head.empty() && (head[0] == 'r' || head[0] == 'V' || head[0] == 'K')) {
      head.remove_prefix(1);
    }
    if (!head.empty() && (head[0] == 'R' || head[0] == 'O')) head.remove_prefix(1);
  }
  return SourceNameHash(head);
}

// The source name of a base name as it is spelled in a mangled name: "SetDevice" -> "9SetDevice".
inline std::string SourceName(absl::string_view base) {
  return std::to_string(base.size()) + std::string(base);
}

// A C++ function's base name as its mangled name spells it, ABI tags aside ("9SetDevice" for
// c10::cuda::SetDevice(int)), with the ContextKey of each place it sits as one (MayBeBaseName):
// what the diagnosis buckets a function by, and what an index stores (docs/index-format.md,
// "Base names"). nullopt when `name` is no mangled function; no contexts when its base name sits
// nowhere a base name can (an operator's is no source name); `parts` gets the split.
struct FunctionBaseName {
  std::string token;
  std::vector<uint32_t> contexts;
};
inline std::optional<FunctionBaseName> BaseNameOf(absl::string_view name, FunctionParts* parts) {
  if (!absl::StartsWith(name, "_Z") || !SplitFunction(name, parts) || parts->base.empty()) {
    return std::nullopt;
  }
  FunctionBaseName out;
  out.token = SourceName(StripAbiTags(parts->base));
  ForEachSourceName(name, [&](absl::string_view t) {
    if (t == out.token && MayBeBaseName(name, t)) out.contexts.push_back(ContextKey(name, t));
  });
  return out;
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_SYMBOLS_SOURCE_NAMES_H_
