// The public InputLimits as the reading stages take them (lib/io/read_limits.h): the one place
// that knows both layouts (issue 34).
#ifndef ABICHECK_LIB_API_LIMITS_H_
#define ABICHECK_LIB_API_LIMITS_H_

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

}  // namespace abicheck

#endif  // ABICHECK_LIB_API_LIMITS_H_
