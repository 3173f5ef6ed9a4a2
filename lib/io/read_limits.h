// What input may make the reading stages (io, inputs) do: the public ReadLimits
// (include/abicheck/abicheck.h) as they take it. api/ converts one into the other
// (lib/api/limits.h), so that no stage below the API depends on a public struct's layout
// (issue 34); the defaults are the public ones, which a unit test holds them to.
#ifndef ABICHECK_LIB_IO_READ_LIMITS_H_
#define ABICHECK_LIB_IO_READ_LIMITS_H_

#include <cstdint>
#include <functional>

namespace abicheck {

struct ReadLimits {
  uint64_t max_member_bytes = uint64_t{16} << 30;    // one inflated archive member
  uint64_t max_total_inflated = uint64_t{64} << 30;  // all members of one archive
  uint64_t max_members = 1u << 20;                   // entries in one archive
  uint64_t max_files = 1u << 20;                     // files under one directory
  int max_depth = 64;                                // directory nesting
  int threads = 0;                                   // archive members in parallel; 0 = all cores
  bool whole_members = false;                        // device code too (ReadLimits::whole_members)
  bool verify_crc = true;      // every member inflated to its end, its CRC-32 checked
  bool verify_remote = false;  // a URL's members too
  bool offline = false;        // nothing from the network: the cache or an error
  // Called from worker threads as archive members inflate: bytes done and bytes to do in all.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_READ_LIMITS_H_
