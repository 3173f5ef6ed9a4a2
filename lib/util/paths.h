// Path text helpers shared by the stages (no file system access).
#ifndef ABICHECK_LIB_UTIL_PATHS_H_
#define ABICHECK_LIB_UTIL_PATHS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace abicheck {

// "a/b/libc10.so.2.6" -> "libc10.so.2.6".
inline std::string Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

// The soname stem: "libc10.so.2.6" -> "libc10.so" (what same-stem stand-ins, second copies and
// diff's pairing compare); "" when the name has no ".so".
inline std::string SonameStem(absl::string_view name) {
  const size_t so = name.find(".so");
  return so == absl::string_view::npos ? std::string() : std::string(name.substr(0, so + 3));
}

// auditwheel's vendored libraries: a file under a `<pkg>.libs/` directory
// ("torchvision.libs/libz.cac6d5fc.so.1", "x.whl!torchvision.libs/..."). A package's Python code
// never loads them by name: they load as what its other objects need (docs/loader-model.md E7).
inline bool IsVendoredLibrary(absl::string_view path) {
  for (size_t at = path.find(".libs/"); at != absl::string_view::npos;
       at = path.find(".libs/", at + 1)) {
    if (at > 0 && path[at - 1] != '/' && path[at - 1] != '!') return true;
  }
  return false;
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_UTIL_PATHS_H_
