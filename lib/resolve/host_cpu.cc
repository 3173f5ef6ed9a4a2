// See host_cpu.h. The rules are glibc 2.36's: sysdeps/x86/get-isa-level.h (the levels),
// sysdeps/x86/cpu-features.c (the platform), elf/dl-hwcaps.c (the order of the subdirectories).
#include "lib/resolve/host_cpu.h"

#include "absl/strings/str_join.h"
#include "lib/elf/elf_constants.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

// <sys/auxv.h> would bring in <elf.h>, whose macros collide with elf_constants.h's names.
extern "C" unsigned long getauxval(unsigned long type) noexcept;  // NOLINT(runtime/int)

namespace abicheck {
namespace {

constexpr unsigned long kAtPlatform = 15;  // AT_PLATFORM  NOLINT(runtime/int)

#if defined(__x86_64__)
struct CpuBits {
  uint32_t ecx1 = 0, edx1 = 0, ebx7 = 0, ecx7 = 0, ecx81 = 0;
  uint64_t xcr0 = 0;
  bool intel = false;
};

CpuBits ReadCpuid() {
  CpuBits b;
  unsigned a, bx, c, d;
  if (__get_cpuid(0, &a, &bx, &c, &d))
    b.intel = bx == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;
  if (__get_cpuid(1, &a, &bx, &c, &d)) {
    b.ecx1 = c;
    b.edx1 = d;
  }
  if (__get_cpuid_count(7, 0, &a, &bx, &c, &d)) {
    b.ebx7 = bx;
    b.ecx7 = c;
  }
  if (__get_cpuid(0x80000001, &a, &bx, &c, &d)) b.ecx81 = c;
  if (b.ecx1 & (1u << 27)) {  // OSXSAVE: which register states the kernel saves
    uint32_t lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    b.xcr0 = (uint64_t{hi} << 32) | lo;
  }
  return b;
}

bool Bit(uint32_t v, int n) { return (v >> n) & 1; }
#endif

HostCpu Compute(uint16_t machine) {
  HostCpu cpu;
  switch (machine) {
    case elf::EM_X86_64:
      cpu.platform = "x86_64";
      break;
    case elf::EM_AARCH64:
      cpu.platform = "aarch64";
      break;
    case elf::EM_386:
      cpu.platform = "i686";
      break;
    default:
      break;
  }
  std::vector<std::string> hwcap_names;  // legacy hwcap strings, in bit order
  bool host = false;
#if defined(__x86_64__)
  host = machine == elf::EM_X86_64;
  if (host) {
    const CpuBits b = ReadCpuid();
    const bool ymm = (b.xcr0 & 0x6) == 0x6, zmm = ymm && (b.xcr0 & 0xe0) == 0xe0;
    const bool v2 = Bit(b.ecx1, 13) && Bit(b.ecx81, 0) && Bit(b.ecx1, 23) && Bit(b.ecx1, 0) &&
                    Bit(b.ecx1, 19) && Bit(b.ecx1, 20) && Bit(b.ecx1, 9);
    const bool avx2 = ymm && Bit(b.ecx1, 28) && Bit(b.ebx7, 5);
    const bool fma = ymm && Bit(b.ecx1, 12);
    const bool v3 = v2 && avx2 && fma && Bit(b.ebx7, 3) && Bit(b.ebx7, 8) && Bit(b.ecx1, 29) &&
                    Bit(b.ecx81, 5) && Bit(b.ecx1, 22);
    const bool avx512 = zmm && Bit(b.ebx7, 16);
    const bool v4 =
        v3 && avx512 && Bit(b.ebx7, 30) && Bit(b.ebx7, 28) && Bit(b.ebx7, 17) && Bit(b.ebx7, 31);
    cpu.x86_isa_supported = 1u | (v2 ? 2u : 0) | (v3 ? 4u : 0) | (v4 ? 8u : 0);
    for (auto [ok, name] : {std::pair{v4, "x86-64-v4"}, {v3, "x86-64-v3"}, {v2, "x86-64-v2"}}) {
      if (ok) cpu.subdirs.push_back(std::string("glibc-hwcaps/") + name);
    }
    // The kernel's AT_PLATFORM, replaced on Intel CPUs by "xeon_phi" or "haswell"
    // (init_cpu_features), whose AVX-512 BW/DQ/VL also adds the "avx512_1" hwcap.
    // NOLINTNEXTLINE(performance-no-int-to-ptr): getauxval returns AT_PLATFORM's address as such
    if (const char* p = reinterpret_cast<const char*>(getauxval(kAtPlatform))) cpu.platform = p;
    hwcap_names.push_back("x86_64");  // HWCAP_X86_64, always
    if (b.intel && avx512) {
      if (Bit(b.ebx7, 27) && Bit(b.ebx7, 26)) {  // AVX512ER, AVX512PF
        cpu.platform = "xeon_phi";
      } else if (Bit(b.ebx7, 30) && Bit(b.ebx7, 17) && Bit(b.ebx7, 31)) {
        hwcap_names.push_back("avx512_1");
      }
    }
    if (b.intel && cpu.platform != "xeon_phi" && avx2 && fma && Bit(b.ebx7, 3) && Bit(b.ebx7, 8) &&
        Bit(b.ecx81, 5) && Bit(b.ecx1, 22) && Bit(b.ecx1, 23)) {
      cpu.platform = "haswell";
    }
  }
#endif
  cpu.x86_isa_name = X86IsaLevelName(cpu.x86_isa_supported);
  // _dl_important_hwcaps' legacy list: every subset of [tls, platform, hwcaps (highest bit
  // first)], largest first, each joined in that order ("tls/x86_64/x86_64", ..., "x86_64").
  std::vector<std::string> parts{"tls"};
  if (host && !cpu.platform.empty()) parts.push_back(cpu.platform);
  for (auto it = hwcap_names.rbegin(); it != hwcap_names.rend(); ++it) parts.push_back(*it);
  const size_t n = parts.size();
  for (uint32_t mask = (1u << n) - 1; mask > 0; --mask) {
    std::vector<std::string> chosen;
    for (size_t k = 0; k < n; ++k) {
      if (mask & (1u << (n - 1 - k))) chosen.push_back(parts[k]);
    }
    cpu.subdirs.push_back(absl::StrJoin(chosen, "/"));
  }
  return cpu;
}

}  // namespace

std::string X86IsaLevelName(uint32_t isa_bits) {
  if (isa_bits & 8) return "x86-64-v4";
  if (isa_bits & 4) return "x86-64-v3";
  if (isa_bits & 2) return "x86-64-v2";
  return "x86-64 (baseline)";
}

const HostCpu& HostCpuFor(uint16_t machine) {
  static const HostCpu x86_64 = Compute(elf::EM_X86_64);
  if (machine == elf::EM_X86_64) return x86_64;
  static const HostCpu aarch64 = Compute(elf::EM_AARCH64);
  if (machine == elf::EM_AARCH64) return aarch64;
  static const HostCpu i386 = Compute(elf::EM_386);
  if (machine == elf::EM_386) return i386;
  static const HostCpu other = Compute(0);
  return other;
}

}  // namespace abicheck
