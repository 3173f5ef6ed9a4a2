// The text report's sentences, read as a person reads them: one library or several, one
// reference or several.
#include <string>

#include "abicheck/abicheck.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"

namespace abicheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Report AssumedLoaded(std::vector<std::string> names, int references) {
  Report r;
  r.module = "mod.so";
  r.loads = true;
  r.assumed_loaded = std::move(names);
  r.unverified_references = references;
  return r;
}

TEST(TextReportTest, OneLibraryTheGivenLibrariesLoadIsIt) {
  const std::string text = RenderText(AssumedLoaded({"libcudart.so.12"}, 1), false);
  EXPECT_THAT(text, HasSubstr("depends on libcudart.so.12: the given libraries load it, but it is "
                              "not among the files; 1 unresolved reference may be defined there "
                              "and was not checked (install or give nvidia-cuda-runtime-cu12, or "
                              "its directory with -L)"));
}

TEST(TextReportTest, SeveralLibrariesTheGivenLibrariesLoadAreThem) {
  const std::string text = RenderText(AssumedLoaded({"libdl.so.2", "librt.so.1"}, 3), false);
  EXPECT_THAT(text, HasSubstr("depends on libdl.so.2, librt.so.1: the given libraries load them, "
                              "but they are not among the files; 3 unresolved references may be "
                              "defined there and were not checked (give their directories with "
                              "-L, or the libraries themselves)"));
  EXPECT_THAT(text, Not(HasSubstr(" it ")));
}

}  // namespace
}  // namespace abicheck
