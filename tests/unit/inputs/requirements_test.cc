// Requires-Dist as pip reads it: PEP 508 requirements and markers, PEP 440 versions, PEP 427
// wheel names (docs/loader-model.md E10).
#include "lib/inputs/requirements.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace abicheck {
namespace {

using ::testing::ElementsAre;

MarkerEnvironment Linux312() { return *MarkerEnvironmentOfTags("cp312", "manylinux_2_28_x86_64"); }

TEST(RequirementsTest, ParsesWhatTorchsMetadataSays) {
  absl::StatusOr<Requirement> r = ParseRequirement(
      "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and platform_machine == "
      "\"x86_64\"");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->name, "nvidia-cuda-runtime-cu12");
  EXPECT_EQ(r->specifier, "==12.8.90");
  EXPECT_EQ(r->Short(), "nvidia-cuda-runtime-cu12==12.8.90");
  EXPECT_EQ(r->marker, "platform_system == \"Linux\" and platform_machine == \"x86_64\"");
  r = ParseRequirement("Cuda_Toolkit[cublas, cudart] (==13.0.2)");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->name, "cuda-toolkit");
  EXPECT_THAT(r->extras, ElementsAre("cublas", "cudart"));
  EXPECT_EQ(r->specifier, "==13.0.2");
  r = ParseRequirement("sympy>=1.13.3");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->specifier, ">=1.13.3");
}

TEST(RequirementsTest, MalformedRequirementsAreSaid) {
  for (const char* bad : {"", "==1.0", "nvidia-cublas==", "x[cublas", "x (==1.0", "x==1.0;",
                          "x @ https://example.invalid/x.whl", "x=>1"}) {
    absl::StatusOr<Requirement> r = ParseRequirement(bad);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    if (!r.ok()) {
      EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("malformed"));
    }
  }
}

TEST(RequirementsTest, MarkersAreEvaluatedForTheTarget) {
  const MarkerEnvironment env = Linux312();
  auto eval = [&](const char* m, const std::string& extra = "") {
    MarkerEnvironment e = env;
    e.extra = extra;
    absl::StatusOr<bool> v = EvaluateMarker(m, e);
    EXPECT_TRUE(v.ok()) << m << ": " << v.status();
    return v.ok() && *v;
  };
  EXPECT_TRUE(eval("platform_system == \"Linux\" and platform_machine == \"x86_64\""));
  EXPECT_FALSE(eval("sys_platform == 'win32'"));
  EXPECT_FALSE(eval("platform_machine == 'aarch64'"));
  EXPECT_TRUE(eval("python_version >= \"3.10\""));  // as versions: 3.12 >= 3.10
  EXPECT_FALSE(eval("python_version < \"3.9\""));
  EXPECT_TRUE(eval("(sys_platform == 'win32' or sys_platform == 'linux') and os_name == 'posix'"));
  EXPECT_TRUE(eval("'linux' in sys_platform"));
  EXPECT_TRUE(eval("platform_machine not in 'aarch64 ppc64le'"));
  EXPECT_FALSE(eval("extra == \"cublas\""));
  EXPECT_TRUE(eval("extra == \"cublas\"", "cublas"));
  EXPECT_TRUE(eval("extra == 'CuBlas'", "cublas"));  // extras compare normalized
  for (const char* bad : {"platform_machin == 'x'", "sys_platform ==", "(os_name == 'posix'",
                          "os_name = 'posix'", "'a' < 'b'"}) {
    EXPECT_EQ(EvaluateMarker(bad, env).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(RequirementsTest, VersionsAreOrderedAsPep440) {
  EXPECT_LT(CompareVersions("2.9.1", "2.10.0"), 0);
  EXPECT_EQ(CompareVersions("12.8", "12.8.0"), 0);
  EXPECT_LT(CompareVersions("1.0.dev1", "1.0a1"), 0);
  EXPECT_LT(CompareVersions("1.0a1", "1.0b2"), 0);
  EXPECT_LT(CompareVersions("1.0rc1", "1.0"), 0);
  EXPECT_LT(CompareVersions("1.0", "1.0.post1"), 0);
  EXPECT_LT(CompareVersions("2.9.1", "2.9.1+cu128"), 0);
  EXPECT_LT(CompareVersions("1!0.1", "2!0.0"), 0);
  auto holds = [](const char* v, const char* spec) {
    absl::StatusOr<bool> r = VersionSatisfies(v, spec);
    EXPECT_TRUE(r.ok()) << v << " " << spec << ": " << r.status();
    return r.ok() && *r;
  };
  EXPECT_TRUE(holds("12.8.90", "==12.8.90"));
  EXPECT_FALSE(holds("12.8.93", "==12.8.90"));
  EXPECT_TRUE(holds("2.10.0+cu128", "==2.10.0"));  // a local label is ignored unless named
  EXPECT_FALSE(holds("2.10.0+cu128", "==2.10.0+cu130"));
  EXPECT_TRUE(holds("13.1.0.3", "==13.1.0.*"));
  EXPECT_FALSE(holds("13.2.0", "==13.1.*"));
  EXPECT_TRUE(holds("2.11", ">=2.8,<2.13"));
  EXPECT_FALSE(holds("2.13.0", ">=2.8,<2.13"));
  EXPECT_TRUE(holds("2.2.5", "~=2.2.0"));
  EXPECT_FALSE(holds("2.3.0", "~=2.2.0"));
  EXPECT_TRUE(holds("1.0", ""));
  EXPECT_EQ(VersionSatisfies("1.0", "~=1").status().code(), absl::StatusCode::kInvalidArgument);
}

bool InRange(const std::string& v, const VersionRange& r) {
  if (r.lower) {
    const int c = CompareVersions(v, r.lower->version);
    if (c < 0 || (c == 0 && !r.lower->inclusive)) return false;
  }
  if (r.upper) {
    const int c = CompareVersions(v, r.upper->version);
    if (c > 0 || (c == 0 && !r.upper->inclusive)) return false;
  }
  return true;
}

// env --suggest's default: the installed packages' pins, as bounds. Each range holds every
// version its specifier allows (checked on a grid of releases against VersionSatisfies); pins
// that allow nothing together intersect to nothing, and their cover holds what each allows.
TEST(RequirementsTest, SpecifiersAsRangesAndPinsThatAllowNothingTogether) {
  const std::vector<std::string> grid = {"2.8.0",  "2.9.0", "2.9.1",  "2.9.2",  "2.10.0",
                                         "2.10.1", "2.11",  "2.14.0", "2.15.0", "3.0.0"};
  const std::vector<std::string> specs = {"==2.9.1", ">=2.10",  "<2.11,>2.9.0", "~=2.9.1",
                                          "~=2.9",   "==2.9.*", "!=2.9.1",      "<=2.14.0,>=2.14.0",
                                          ""};
  for (const std::string& spec : specs) {
    absl::StatusOr<VersionRange> r = RangeOf(spec);
    ASSERT_TRUE(r.ok()) << spec << ": " << r.status();
    for (const std::string& v : grid) {
      if (*VersionSatisfies(v, spec)) {
        EXPECT_TRUE(InRange(v, *r)) << v << " in " << spec;
      }
    }
  }
  EXPECT_EQ(SpecifierOf(*RangeOf("~=2.9.1")), ">=2.9.1,<2.10");
  EXPECT_EQ(SpecifierOf(*RangeOf("~=2.9")), ">=2.9,<3");
  EXPECT_EQ(SpecifierOf(*RangeOf("==2.9.*")), ">=2.9,<2.10");
  EXPECT_EQ(SpecifierOf(*RangeOf(">2.9, >=2.9, <3")), ">2.9,<3");
  EXPECT_EQ(SpecifierOf(*RangeOf("<=2.14.0,>=2.14.0")), "==2.14.0");
  EXPECT_EQ(SpecifierOf(*RangeOf("!=2.9.1")), "");
  EXPECT_EQ(RangeOf("~=2").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RangeOf(">=two").status().code(), absl::StatusCode::kInvalidArgument);

  // The corpus environments' packages: torchaudio 2.9.1, vllm 2.14.0, xformers >=2.10.
  const std::vector<VersionRange> apart = {*RangeOf("==2.9.1"), *RangeOf("==2.14.0"),
                                           *RangeOf(">=2.10")};
  EXPECT_FALSE(Intersect(apart).has_value());
  EXPECT_EQ(SpecifierOf(Cover(apart)), ">=2.9.1");
  for (const std::string& v : grid) {
    bool any = false;
    for (const VersionRange& r : apart) any |= InRange(v, r);
    if (any) {
      EXPECT_TRUE(InRange(v, Cover(apart))) << v;
    }
  }
  EXPECT_EQ(SpecifierOf(Cover({*RangeOf("==2.9.1"), *RangeOf("<2.14,>2.10")})), ">=2.9.1,<2.14");
  EXPECT_EQ(SpecifierOf(Cover({*RangeOf("==2.9.1"), *RangeOf("<2.8")})), "<=2.9.1");
  // Bounds that meet: allowed together only when both take the version itself.
  EXPECT_FALSE(Intersect({*RangeOf("<2.10"), *RangeOf(">=2.10")}).has_value());
  EXPECT_FALSE(Intersect({*RangeOf("<=2.10"), *RangeOf(">2.10")}).has_value());
  std::optional<VersionRange> both = Intersect({*RangeOf("<=2.10"), *RangeOf(">=2.10,!=2.9")});
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(SpecifierOf(*both), "==2.10");
  ASSERT_TRUE(Intersect({*RangeOf(">=2.10"), *RangeOf("<2.15"), *RangeOf("")}).has_value());
  EXPECT_EQ(SpecifierOf(*Intersect({*RangeOf(">=2.10"), *RangeOf("<2.15")})), ">=2.10,<2.15");
}

TEST(RequirementsTest, WheelNamesAndTheirTargets) {
  std::optional<WheelName> w =
      ParseWheelName("nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.whl");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->distribution, "nvidia-cuda-runtime-cu12");
  EXPECT_EQ(w->version, "12.8.90");
  const MarkerEnvironment env = Linux312();
  EXPECT_TRUE(WheelFitsTarget(*w, env));
  w = ParseWheelName("torch-2.10.0-3-cp312-cp312-manylinux_2_28_x86_64.whl");  // a build tag
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->version, "2.10.0");
  EXPECT_EQ(w->python, "cp312");
  EXPECT_TRUE(WheelFitsTarget(*w, env));
  EXPECT_TRUE(WheelFitsTarget(*ParseWheelName("x-1-cp310-abi3-manylinux2014_x86_64.whl"), env));
  EXPECT_TRUE(WheelFitsTarget(*ParseWheelName("x-1-py2.py3-none-any.whl"), env));
  EXPECT_FALSE(WheelFitsTarget(*ParseWheelName("x-1-cp311-cp311-manylinux_2_28_x86_64.whl"), env));
  EXPECT_FALSE(WheelFitsTarget(*ParseWheelName("x-1-cp313-abi3-manylinux_2_28_x86_64.whl"), env));
  EXPECT_FALSE(WheelFitsTarget(*ParseWheelName("x-1-py3-none-manylinux_2_28_aarch64.whl"), env));
  EXPECT_FALSE(WheelFitsTarget(*ParseWheelName("x-1-py3-none-win_amd64.whl"), env));
  EXPECT_FALSE(ParseWheelName("x-1-py3-none.whl").has_value());
  EXPECT_FALSE(ParseWheelName("x-1-py3-none-any.zip").has_value());
  EXPECT_FALSE(MarkerEnvironmentOfTags("py3", "any").has_value());
}

}  // namespace
}  // namespace abicheck
