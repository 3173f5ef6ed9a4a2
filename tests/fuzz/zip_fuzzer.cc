// Fuzzes wheel/zip input: central directory, member sizes, inflate, retention passes. libzip
// reads from a path, so the input is written to a file in memory-backed /dev/shm first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "abicheck/abicheck.h"
#include "lib/inputs/inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/dev/shm/abicheck_zip_fuzz_" + std::to_string(getpid()) + ".whl";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  abicheck::ReadLimits limits;
  limits.max_member_bytes = 64u << 20;  // keep the fuzzer's memory bounded
  limits.max_total_inflated = 128u << 20;
  limits.threads = 1;
  absl::StatusOr<abicheck::ExpandedInput> in = abicheck::ExpandInput(path, limits);
  if (in.ok()) {
    for (const abicheck::InputFile& o : in->objects) (void)abicheck::DefinesPyInit(o);
  }
  return 0;
}
