// Text for a terminal from bytes of a hostile file: control bytes become \xNN, so no symbol name
// can move the cursor, clear the screen or set a window title.
#ifndef ABICHECK_LIB_REPORT_TEXT_UTIL_H_
#define ABICHECK_LIB_REPORT_TEXT_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace abicheck {

inline std::string Printable(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// Column labels for builds: what tells them apart (wheels without .whl, paths without the
// components they all share).
std::vector<std::string> BuildLabels(const std::vector<std::string>& builds);
struct Matrix;
// Each module row's label: ModuleInfo::label, else the member path or file name; rows that would
// read alike are named in full.
std::vector<std::string> ModuleRowLabels(const Matrix& m);
// "stable ABI: X uses torch only through its stable C shim; loads on torch from B on", per
// stable-ABI row.
std::string StableAbiLines(const Matrix& m);
// "torch==2.9.1" or "pins no torch".
std::string PinText(const std::vector<std::string>& pins);

}  // namespace abicheck

#endif  // ABICHECK_LIB_REPORT_TEXT_UTIL_H_
