// The public InputLimits as the reading stages take them (lib/io/read_limits.h): the one place
// that knows both layouts (issue 34).
#ifndef ABICHECK_LIB_API_LIMITS_H_
#define ABICHECK_LIB_API_LIMITS_H_

#include <string>
#include <string_view>

#include "abicheck/abicheck.h"
#include "lib/io/read_limits.h"

namespace abicheck {

inline ReadLimits ToReadLimits(const InputLimits& l) {
  ReadLimits r;
  r.max_member_bytes = l.max_member_bytes;
  r.max_total_inflated = l.max_total_inflated;
  r.max_members = l.max_members;
  r.max_files = l.max_files;
  r.max_depth = l.max_depth;
  r.threads = l.threads;
  r.whole_members = l.whole_members;
  r.verify_crc = l.verify_crc;
  r.verify_remote = l.verify_remote;
  r.offline = l.offline;
  r.progress = l.progress;
  return r;
}

// InputLimits::input_progress, if set: input `i` (from 0) of `n`, given as `path`, begins.
inline void SayInputBegins(const InputLimits& l, const char* what, size_t i, size_t n,
                           const std::string& path) {
  if (!l.input_progress) return;
  InputProgress p;
  p.what = what;
  p.begun = static_cast<int>(i + 1);
  p.total = static_cast<int>(n);
  std::string_view name = path;
  while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
  if (const size_t slash = name.rfind('/');
      slash != std::string_view::npos && slash + 1 < name.size())
    name.remove_prefix(slash + 1);
  p.name = std::string(name);
  l.input_progress(p);
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_LIMITS_H_
