// The CLI's progress line (lib/cli/progress.h): what a terminal and a CI log are shown.
#include "lib/cli/progress.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace abicheck::cli {
namespace {

// What `draw` wrote to a file standing in for stderr.
template <typename F>
std::string Drawn(bool terminal, F draw) {
  ::setenv("ABICHECK_PROGRESS_AFTER_MS", "0", 1);
  FILE* f = std::tmpfile();
  {
    ProgressBar bar(f, /*show=*/true, /*quiet=*/false, terminal);
    draw(bar);
  }
  ::unsetenv("ABICHECK_PROGRESS_AFTER_MS");
  std::string out(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  out.resize(std::fread(out.data(), 1, out.size(), f));
  std::fclose(f);
  return out;
}

InputProgress Input(int begun, int total, const std::string& name) {
  InputProgress p;
  p.what = "builds";
  p.begun = begun;
  p.total = total;
  p.name = name;
  return p;
}

// Issue 33: `N of M builds, X MB read`, X summed over every archive read so far — each archive
// counted once by its furthest report, though a build's wheels report interleaved and out of
// order.
TEST(ProgressBarTest, SaysWhichBuildAndWhatWasReadInAll) {
  const std::string log = Drawn(false, [](ProgressBar& bar) {
    auto input = bar.InputCallback();
    auto bytes = bar.Callback();
    ASSERT_TRUE(input && bytes);
    input(Input(1, 3, "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl"));
    bytes(uint64_t{10} << 20, uint64_t{100} << 20);  // the torch wheel
    bytes(uint64_t{30} << 20, uint64_t{50} << 20);   // a CUDA wheel, read at once
    bytes(uint64_t{5} << 20, uint64_t{100} << 20);   // the torch wheel's earlier count, late
    bytes(uint64_t{100} << 20, uint64_t{100} << 20);
    input(Input(2, 3, "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  });
  EXPECT_NE(log.find("abicheck: reading builds: 1 of 3 (torch-2.9.1-cp312-cp312-manylinux_2_28_"
                     "x86_64.whl), 0 MB read so far\n"),
            std::string::npos)
      << log;
  // 100 MB of the torch wheel and 30 of the CUDA wheel.
  EXPECT_NE(log.find("abicheck: reading builds: 2 of 3 (torch-2.10.0-cp312-cp312-manylinux_2_28_"
                     "x86_64.whl), 130 MB read so far\n"),
            std::string::npos)
      << log;
  // The byte lines come every few seconds: the first one, naming the build.
  EXPECT_NE(log.find("abicheck: reading archives: 10% (10 / 100 MB); 1 of 3 builds "
                     "(torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl), 10 MB read in all\n"),
            std::string::npos)
      << log;
}

TEST(ProgressBarTest, OnATerminalTheBarSaysTheBuild) {
  const std::string shown = Drawn(true, [](ProgressBar& bar) {
    bar.InputCallback()(Input(3, 8, "torch-2.12.1-cp312-cp312-manylinux_2_28_x86_64.whl"));
    bar.Callback()(uint64_t{64} << 20, uint64_t{128} << 20);
  });
  EXPECT_NE(shown.find("3 of 8 builds, 64 MB read [###############               ]  50.0%  "
                       "torch-2.12.1-cp312-cp312-manylinux_2_28_\r"),  // 40 characters of the name
            std::string::npos)
      << shown;
  // Erased at the end: nothing is left on the line.
  EXPECT_EQ(shown.substr(shown.size() - 5), "\r\x1b[2K") << shown;
}

// One input (the usual check): no count, the archive's bar as before; -q or no progress: nothing.
TEST(ProgressBarTest, OneInputIsNotCountedAndQuietIsSilent) {
  const std::string one = Drawn(true, [](ProgressBar& bar) {
    bar.InputCallback()(Input(1, 1, "torch.whl"));
    bar.Callback()(uint64_t{1} << 20, uint64_t{4} << 20);
  });
  EXPECT_NE(one.find("reading archives [#######                       ]  25.0%  1 / 4 MB"),
            std::string::npos)
      << one;
  EXPECT_EQ(one.find("of 1"), std::string::npos) << one;
  ::setenv("ABICHECK_PROGRESS_AFTER_MS", "0", 1);
  FILE* f = std::tmpfile();
  ProgressBar quiet(f, /*show=*/true, /*quiet=*/true, /*terminal=*/false);
  EXPECT_FALSE(quiet.InputCallback());
  EXPECT_FALSE(quiet.Callback());
  ProgressBar hidden(f, /*show=*/false, /*quiet=*/false, /*terminal=*/true);
  EXPECT_FALSE(hidden.InputCallback());
  ::unsetenv("ABICHECK_PROGRESS_AFTER_MS");
  std::fclose(f);
}

}  // namespace
}  // namespace abicheck::cli
