// Issue 37 item 10: a 10,000-deep DT_NEEDED chain given as providers took 38 s (about n^2.7):
// each provider's walk re-resolved the closure below it, and each resolution searched the list.
// Now a walk that changes nothing marks the objects it went through, and theirs are skipped.
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "lib/util/read_trace.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

constexpr auto Elf = ::abicheck::testing::SmallLibrary;
using ::abicheck::testing::TempDir;

TEST(ProviderChainTest, AChainOfProvidersIsWalkedAboutOnce) {
  TempDir d;
  constexpr int kDepth = 400;
  std::vector<std::string> providers;
  for (int i = 0; i < kDepth; ++i) {
    const std::string name = absl::StrCat("lib", i, ".so");
    std::vector<std::string> needed;
    if (i + 1 < kDepth) needed.push_back(absl::StrCat("lib", i + 1, ".so"));
    providers.push_back(d.Write(name, Elf(name, needed, {absl::StrCat("f", i)}, {})));
  }
  const std::string module =
      d.Write("m.so", Elf("", {"lib0.so"}, {}, {"f0", absl::StrCat("f", kDepth - 1), "nowhere"}));
  CheckOptions options;
  options.providers = providers;
  options.use_host = false;
  const uint64_t before = GlobalReadTrace().dependency_visits.load();
  absl::StatusOr<Report> r = Check(module, options);
  const uint64_t visits = GlobalReadTrace().dependency_visits.load() - before;
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->problems.size(), 1u) << RenderText(*r, false);
  EXPECT_EQ(r->problems[0].symbol, "nowhere");
  // Each of the 400 providers walked its closure below it: ~80,000 visits. Once, and once more to
  // see that nothing changes: ~800 (and the module's own walk).
  EXPECT_LT(visits, 4u * kDepth) << visits << " dependency visits for a chain of " << kDepth;

  // A module that loads asks for the given libraries' own loads (E2a): dlopen of lib0 loads the
  // whole chain, and each later one is loaded already — one more walk, not one per provider.
  const std::string loading = d.Write("m2.so", Elf("", {"lib0.so"}, {}, {"f0"}));
  const uint64_t again = GlobalReadTrace().dependency_visits.load();
  r = Check(loading, options);
  const uint64_t own = GlobalReadTrace().dependency_visits.load() - again;
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), Verdict::kLoads) << RenderText(*r, false);
  EXPECT_LT(own, 6u * kDepth) << own << " dependency visits for a chain of " << kDepth;
}

}  // namespace
}  // namespace abicheck
