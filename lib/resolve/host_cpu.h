// What the loader of this machine derives from its CPU: the glibc-hwcaps subdirectories it
// searches, glibc 2.36's legacy hwcap subdirectories, $PLATFORM, and the x86 ISA levels it
// supports (docs/loader-model.md C7, C8, A13). Read from the CPU features glibc computed for this
// process (and CPUID leaf 0 for the vendor) and from its auxiliary vector: the machine abicheck
// runs on is the machine it predicts for.
#ifndef ABICHECK_LIB_RESOLVE_HOST_CPU_H_
#define ABICHECK_LIB_RESOLVE_HOST_CPU_H_

#include <cstdint>
#include <string>
#include <vector>

namespace abicheck {

struct HostCpu {
  std::string platform;  // $PLATFORM: GLRO(dl_platform)
  // Subdirectories tried under every search directory before the directory itself, in order:
  // "glibc-hwcaps/x86-64-v3", ..., then the legacy ones ("tls/x86_64/x86_64", ..., "x86_64").
  std::vector<std::string> subdirs;
  // GNU_PROPERTY_X86_ISA_1 bits this CPU supports (baseline, v2, v3, v4 = bits 0..3).
  uint32_t x86_isa_supported = 0;
  // "x86-64-v3": the highest level, for messages.
  std::string x86_isa_name;
};

// The loader's view for objects of `machine` (an e_machine). For the host's own machine it reads
// the CPU; for another machine only what does not depend on a CPU (the "tls" legacy directory,
// the machine's generic platform name).
const HostCpu& HostCpuFor(uint16_t machine);

// Whether CPUID (and XCR0) say feature `index` (glibc's x86_cpu_* numbering) is usable: what
// HostCpuFor reads where glibc is older than 2.33 and publishes no feature bits of its own.
bool X86FeatureByCpuid(unsigned index);

// The x86-64 levels (x86-64-v2, v3, v4) in `isa_bits`, for messages: "x86-64-v3".
std::string X86IsaLevelName(uint32_t isa_bits);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_HOST_CPU_H_
