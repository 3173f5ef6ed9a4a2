// The CPUID reading HostCpuFor falls back on where glibc (< 2.33) publishes no feature bits, as
// the portable build may run (docs/portable.md): on this machine it must agree with glibc's own.
#include "lib/resolve/host_cpu.h"

#include <gtest/gtest.h>

#if defined(__x86_64__)
#if defined(__clang__)
#define _Bool bool  // NOLINT(bugprone-reserved-identifier): as host_cpu.cc includes it
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif
#endif

namespace abicheck {
namespace {

#if defined(__x86_64__)
TEST(HostCpuTest, CpuidFallbackAgreesWithGlibcOnEveryFeatureTheLevelsUse) {
#define ABICHECK_SAME(name) \
  EXPECT_EQ(X86FeatureByCpuid(x86_cpu_##name), CPU_FEATURE_ACTIVE(name) != 0) << #name;
  ABICHECK_SAME(CMPXCHG16B)
  ABICHECK_SAME(LAHF64_SAHF64)
  ABICHECK_SAME(POPCNT)
  ABICHECK_SAME(SSE3)
  ABICHECK_SAME(SSSE3)
  ABICHECK_SAME(SSE4_1)
  ABICHECK_SAME(SSE4_2)
  ABICHECK_SAME(AVX)
  ABICHECK_SAME(AVX2)
  ABICHECK_SAME(BMI1)
  ABICHECK_SAME(BMI2)
  ABICHECK_SAME(F16C)
  ABICHECK_SAME(FMA)
  ABICHECK_SAME(LZCNT)
  ABICHECK_SAME(MOVBE)
  ABICHECK_SAME(AVX512F)
  ABICHECK_SAME(AVX512BW)
  ABICHECK_SAME(AVX512CD)
  ABICHECK_SAME(AVX512DQ)
  ABICHECK_SAME(AVX512VL)
  ABICHECK_SAME(AVX512ER)
  ABICHECK_SAME(AVX512PF)
#undef ABICHECK_SAME
}
#endif

}  // namespace
}  // namespace abicheck
