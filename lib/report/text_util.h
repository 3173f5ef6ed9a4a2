// Text for a terminal from bytes of a hostile file: control bytes become \xNN, so no symbol name
// can move the cursor, clear the screen or set a window title.
#ifndef ABICHECK_LIB_REPORT_TEXT_UTIL_H_
#define ABICHECK_LIB_REPORT_TEXT_UTIL_H_

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace abicheck {

// Whether `s` holds a control byte (below 0x20, or 0x7f) that Printable escapes. It runs over
// every name of a listing (46,528 of 240 bytes on average for torch's largest library): sixteen
// bytes at a time with SSE2 (x86-64's baseline), then eight with the exact "has a byte less than
// n" and "has a zero byte" word tests (Anderson's "Bit Twiddling Hacks"); a byte-by-byte test was
// 84 % of `abicheck symbols`.
inline bool HasControlByte(absl::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
  const char* p = s.data();
  size_t n = s.size();
#if defined(__SSE2__)
  const __m128i k1f = _mm_set1_epi8(0x1f), k7f = _mm_set1_epi8(0x7f);
  auto any16 = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, k1f), v);  // v <= 0x1f, unsigned
    return _mm_movemask_epi8(_mm_or_si128(low, _mm_cmpeq_epi8(v, k7f))) != 0;
  };
  if (n >= 16) {
    // Sixteen at a time, then the last sixteen (overlapping what was seen) for the tail.
    const char* end = p + n;
    for (; n >= 16; p += 16, n -= 16) {
      if (any16(p)) return true;
    }
    return n > 0 && any16(end - 16);
  }
#endif
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t del = w ^ (kOnes * 0x7f);
    if ((((w - kOnes * 0x20) & ~w) | ((del - kOnes) & ~del)) & kHigh) return true;
  }
  for (; n > 0; ++p, --n) {
    if (static_cast<unsigned char>(*p) < 0x20 || *p == 0x7f) return true;
  }
  return false;
}

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

// A URL in a report's text by its file name (issue 55 item 8): "https://host/p/x.whl!m.so: ..."
// reads "x.whl!m.so: ...". A URL ends at '!', whitespace, a quote, ')' or ','; one whose path
// has no file name stays whole. The URL itself is said once, in the notes and in JSON.
std::string ShortenUrls(absl::string_view text);
// Printable(ShortenUrls(s)): how the text reports show paths and messages.
inline std::string Shown(absl::string_view s) { return Printable(ShortenUrls(s)); }

// A path or ld.so message as the import shows it once the wheel is installed (issue 55 item 9):
// each wheel member "…/x.whl!pkg/m.so" reads "SITE/pkg/m.so" (a URL's too), SITE the
// site-packages of the environment checked against, else "site-packages".
std::string AsInstalled(absl::string_view text, absl::string_view site = "site-packages");
// The site-packages directory a report's load reached torch in (an environment checked against:
// ".venv/lib/python3.12/site-packages"), else "site-packages".
std::string SitePackagesOf(const Report& r);

// "note: OBJECT: MESSAGE" (or the message alone, !with_object), OBJECT a URL's file name —
// except the first note naming that URL, which names it in full.
std::string NoteLine(const Warning& note, bool with_object, std::vector<std::string>* urls_said);

// Column labels for builds: what tells them apart (wheels without .whl, paths without the
// components they all share).
std::vector<std::string> BuildLabels(const std::vector<std::string>& builds);
// The matrix's columns: "torch 2.10.0+cu128" where the build says its version (with the path
// label too where two builds say the same), else BuildLabels(m.builds).
std::vector<std::string> BuildLabels(const Matrix& m);
// Each module row's label: ModuleInfo::label, else the member path or file name; rows that would
// read alike are named in full.
std::vector<std::string> ModuleRowLabels(const Matrix& m);
// "stable ABI: X uses torch only through its stable C shim (its shim functions: from B on, of the
// builds given)", per stable-ABI row: what the shim offers, never a verdict (the cells say that).
std::string StableAbiLines(const Matrix& m);
// "torch==2.9.1" or "pins no torch".
std::string PinText(const std::vector<std::string>& pins);
// Green for what works, red for what does not, yellow for what cannot be told, when color is on.
std::string Paint(bool color, Verdict verdict, const std::string& s);
// An unknown verdict in a table (docs/loader-model.md C2c): "CANNOT TELL (libcudart.so.12 not
// given)", "CANNOT TELL (libnvrtc.so.12 and 10 more not given)".
std::string UnknownVerdictText(const std::vector<std::string>& not_given);

}  // namespace abicheck

#endif  // ABICHECK_LIB_REPORT_TEXT_UTIL_H_
