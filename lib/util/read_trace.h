// Counts of the reads that must happen once per input (issue 13: a matrix of M modules x B builds
// opens each build once; merging an index of K builds reads it once). Tests read them; the cost
// is one relaxed increment per expansion.
#ifndef ABICHECK_LIB_UTIL_READ_TRACE_H_
#define ABICHECK_LIB_UTIL_READ_TRACE_H_

#include <atomic>
#include <cstdint>

namespace abicheck {

struct ReadTrace {
  std::atomic<uint64_t> expansions{0};    // ExpandInput calls (a file, directory, wheel, index)
  std::atomic<uint64_t> index_reads{0};   // ReadIndex calls (each verifies the whole index)
  std::atomic<uint64_t> tail_decodes{0};  // --fast members whose last bytes came from their end
  // Dependencies resolved by Loader::MapDeps, walks of one closure repeated included (issue 37
  // item 10: a chain of n providers must cost about n, not n^2).
  std::atomic<uint64_t> dependency_visits{0};
};

inline ReadTrace& GlobalReadTrace() {
  static ReadTrace trace;
  return trace;
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_UTIL_READ_TRACE_H_
