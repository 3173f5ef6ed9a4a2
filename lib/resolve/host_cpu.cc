// See host_cpu.h. The rules are glibc 2.36's: sysdeps/x86/get-isa-level.h (the levels),
// sysdeps/x86/cpu-features.c (the platform), elf/dl-hwcaps.c (the order of the subdirectories).
#include "lib/resolve/host_cpu.h"

#include "absl/strings/str_join.h"
#include "lib/elf/elf_constants.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <dlfcn.h>
// glibc's header is C and declares its functions `_Bool`, which g++ takes as an extension and
// clang's C++ does not know.
#if defined(__clang__)
#define _Bool bool  // NOLINT(bugprone-reserved-identifier): the C keyword, for this header only
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif
#endif

// <sys/auxv.h> would bring in <elf.h>, whose macros collide with elf_constants.h's names.
extern "C" unsigned long getauxval(unsigned long type) noexcept;  // NOLINT(runtime/int)

namespace abicheck {
namespace {

constexpr unsigned long kAtPlatform = 15;  // AT_PLATFORM  NOLINT(runtime/int)

#if defined(__x86_64__)
// Whether ld.so of this process found `feature` usable (CPU_FEATURE_USABLE_P): the bits glibc
// computed at start-up from CPUID, XCR0 and GLIBC_TUNABLES (<sys/platform/x86.h>, glibc 2.33+),
// read from memory. Executing CPUID again would cost a trap to the hypervisor per leaf in a VM,
// and would miss the tunables that the process importing the module sees too. The function is
// found at run time, not linked: the portable build runs on glibc 2.28 (docs/portable.md), whose
// loader has no glibc-hwcaps and no such function; there CPUID answers (X86FeatureByCpuid).
#define ABICHECK_USABLE(feature) X86FeatureUsable(x86_cpu_##feature)

using FeatureLeafFn = const cpuid_feature* (*)(unsigned);

bool X86FeatureUsable(unsigned index) {
  static const auto leaf =
      reinterpret_cast<FeatureLeafFn>(::dlsym(RTLD_DEFAULT, "__x86_get_cpuid_feature_leaf"));
  if (leaf == nullptr) return X86FeatureByCpuid(index);
  const cpuid_feature* f = leaf(index / 128);
  return (f->active_array[(index % 128) / 32] & (1u << (index % 32))) != 0;
}

// init_cpu_features' arch_kind_intel: the vendor string of CPUID leaf 0, the one leaf glibc
// does not publish.
bool IsIntel() {
  unsigned a, b, c, d;
  return __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;
}
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
    // get_isa_level (sysdeps/x86/get-isa-level.h); the baseline is what x86-64 itself requires.
    const bool v2 = ABICHECK_USABLE(CMPXCHG16B) && ABICHECK_USABLE(LAHF64_SAHF64) &&
                    ABICHECK_USABLE(POPCNT) && ABICHECK_USABLE(SSE3) && ABICHECK_USABLE(SSSE3) &&
                    ABICHECK_USABLE(SSE4_1) && ABICHECK_USABLE(SSE4_2);
    const bool v3 = v2 && ABICHECK_USABLE(AVX) && ABICHECK_USABLE(AVX2) && ABICHECK_USABLE(BMI1) &&
                    ABICHECK_USABLE(BMI2) && ABICHECK_USABLE(F16C) && ABICHECK_USABLE(FMA) &&
                    ABICHECK_USABLE(LZCNT) && ABICHECK_USABLE(MOVBE);
    const bool v4 = v3 && ABICHECK_USABLE(AVX512F) && ABICHECK_USABLE(AVX512BW) &&
                    ABICHECK_USABLE(AVX512CD) && ABICHECK_USABLE(AVX512DQ) &&
                    ABICHECK_USABLE(AVX512VL);
    cpu.x86_isa_supported = 1u | (v2 ? 2u : 0) | (v3 ? 4u : 0) | (v4 ? 8u : 0);
    for (auto [ok, name] : {std::pair{v4, "x86-64-v4"}, {v3, "x86-64-v3"}, {v2, "x86-64-v2"}}) {
      if (ok) cpu.subdirs.push_back(std::string("glibc-hwcaps/") + name);
    }
    // The kernel's AT_PLATFORM, replaced on Intel CPUs by "xeon_phi" or "haswell"
    // (init_cpu_features), whose AVX-512 BW/DQ/VL also adds the "avx512_1" hwcap.
    // NOLINTNEXTLINE(performance-no-int-to-ptr): getauxval returns AT_PLATFORM's address as such
    if (const char* p = reinterpret_cast<const char*>(getauxval(kAtPlatform))) cpu.platform = p;
    hwcap_names.push_back("x86_64");  // HWCAP_X86_64, always
    const bool haswell = ABICHECK_USABLE(AVX2) && ABICHECK_USABLE(FMA) && ABICHECK_USABLE(BMI1) &&
                         ABICHECK_USABLE(BMI2) && ABICHECK_USABLE(LZCNT) &&
                         ABICHECK_USABLE(MOVBE) && ABICHECK_USABLE(POPCNT);
    if ((haswell || ABICHECK_USABLE(AVX512CD)) && IsIntel()) {
      bool xeon_phi = false;
      if (ABICHECK_USABLE(AVX512CD)) {
        if (ABICHECK_USABLE(AVX512ER)) {
          xeon_phi = ABICHECK_USABLE(AVX512PF);
        } else if (ABICHECK_USABLE(AVX512BW) && ABICHECK_USABLE(AVX512DQ) &&
                   ABICHECK_USABLE(AVX512VL)) {
          hwcap_names.push_back("avx512_1");
        }
      }
      if (xeon_phi) {
        cpu.platform = "xeon_phi";
      } else if (haswell) {
        cpu.platform = "haswell";
      }
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

bool X86FeatureByCpuid(unsigned index) {
#if defined(__x86_64__)
  // glibc's index: (leaf * 4 + register) * 32 + bit, leaves CPUID_INDEX_1, _7, _80000001.
  static constexpr unsigned kLeaf[] = {1, 7, 0x80000001};
  const unsigned which = index / 128;
  if (which >= 3) return false;
  unsigned r[4] = {};
  if (!__get_cpuid_count(kLeaf[which], 0, &r[0], &r[1], &r[2], &r[3])) return false;
  const unsigned reg = index % 128 / 32, bit = index % 32;
  if ((r[reg] & (1u << bit)) == 0) return false;
  // init_cpu_features' update_active: a VEX or EVEX feature is usable only where the OS saves its
  // registers. AVX, FMA, F16C (leaf 1 ECX 28, 12, 29) and AVX2 (leaf 7 EBX 5) need XCR0's SSE and
  // AVX state; AVX-512 F, DQ, IFMA, PF, ER, CD, BW, VL (leaf 7 EBX 16, 17, 21, 26-28, 30, 31) also
  // the opmask and ZMM state, and AVX512F itself.
  constexpr uint32_t kAvx512Ebx = (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) |
                                  (1u << 28) | (1u << 30) | (1u << 31);
  const bool vex = (which == 0 && reg == 2 && (bit == 28 || bit == 12 || bit == 29)) ||
                   (which == 1 && reg == 1 && bit == 5);
  const bool avx512 = which == 1 && reg == 1 && ((kAvx512Ebx >> bit) & 1) != 0;
  if (!vex && !avx512) return true;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || (c & (1u << 27)) == 0) return false;  // OSXSAVE
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6) return false;
  return !avx512 || ((lo & 0xe0) == 0xe0 && (r[1] & (1u << 16)) != 0);
#else
  return false;
#endif
}

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
