// open_verify (docs/loader-model.md A11) in the loader's byte order.
#include <filesystem>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/report/render.h"
#include "tests/unit/elf_builder.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::ElfBuilder;
using ::abicheck::testing::TempDir;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

// open_verify reads with the running loader's byte order: a big-endian module (s390x) finds its
// big-endian dependency on the search path, and a little-endian one there is refused in ld.so's
// words (docs/loader-model.md A11).
TEST(OpenVerifyTest, BigEndianLoaderFindsBigEndianLibraries) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/be");
  std::filesystem::create_directories(d.path() + "/le");
  ElfBuilder lib;
  lib.big_endian = true;
  lib.machine = 22;  // EM_S390
  lib.soname = "libx.so";
  lib.syms.push_back({"x_fn"});
  d.Write("be/libx.so", lib.Build());
  ElfBuilder le = lib;
  le.big_endian = false;
  d.Write("le/libx.so", le.Build());
  ElfBuilder mod;
  mod.big_endian = true;
  mod.machine = 22;
  mod.needed = {"libx.so"};
  mod.syms.push_back({"x_fn", false});
  mod.relocs.push_back(1);
  const std::string m = d.Write("mod.so", mod.Build());
  CheckOptions o = NoHostOptions();
  o.library_path = {d.path() + "/be"};
  absl::StatusOr<Report> r = Check(m, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
  o.library_path = {d.path() + "/le"};
  r = Check(m, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_FALSE(r->problems.empty());
  EXPECT_EQ(r->problems[0].message,
            d.path() + "/le/libx.so: ELF file data encoding not big-endian");
}

}  // namespace
}  // namespace abicheck
