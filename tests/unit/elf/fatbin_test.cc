// The fat binary reader and the GPU rules (docs/gpu-model.md G1-G5), on hand-made containers:
// every entry field it reads, every rule both ways, and hostile headers that must end the walk
// with one line naming the file and the structure — never a crash or a read past the section.
#include "lib/elf/fatbin.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/api/findings.h"
#include "lib/resolve/device_check.h"
#include "tests/support/fatbin_elf.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::Container;
using ::abicheck::testing::EntrySpec;
using ::abicheck::testing::FatbinElf;
using ::abicheck::testing::Put;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

DeviceCode Read(const std::vector<uint8_t>& section, std::vector<uint8_t>* keep) {
  *keep = FatbinElf(section.data(), section.size());
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("k.so", *keep);
  EXPECT_TRUE(elf.ok()) << elf.status();
  return ReadDeviceCode(*elf);
}

TEST(FatbinTest, ReadsEveryEntryOfEveryContainer) {
  std::vector<uint8_t> s = Container({{2, 90, 0x11}, {1, 80, 0x8011, 9, 0}, {2, 120, 0x100011}});
  s.resize(s.size() + 8, 0);  // padding before the next container
  const std::vector<uint8_t> second =
      Container({{2, 100, 0x1200011, 1, 8, 40, 112}, {1, 120, 0x208011, 9, 0}});
  s.insert(s.end(), second.begin(), second.end());
  std::vector<uint8_t> keep;
  const DeviceCode code = Read(s, &keep);
  EXPECT_TRUE(code.has_section_headers);
  EXPECT_THAT(code.problems, ::testing::IsEmpty());
  ASSERT_EQ(code.images.size(), 5u);
  std::vector<std::string> names, cuobjdump;
  for (const DeviceImage& i : code.images) {
    names.push_back(ArchName(i.arch, i.variant));
    cuobjdump.push_back(CuobjdumpArchName(i));
  }
  EXPECT_THAT(names, ElementsAre("sm_90", "sm_80", "sm_120a", "sm_100f", "sm_120f"));
  EXPECT_THAT(cuobjdump, ElementsAre("sm_90", "sm_80", "sm_120a", "sm_100", "sm_120f"))
      << "cuobjdump names a family cubin without its f";
  EXPECT_EQ(code.images[1].kind, DeviceCodeKind::kPtx);
  EXPECT_EQ(code.images[1].version_major, 9);
  EXPECT_FALSE(code.stopped);
  {  // a verdict stops at the first image it can use, across containers
    absl::StatusOr<ElfFile> elf = ElfFile::Parse("k.so", keep);
    ASSERT_TRUE(elf.ok());
    const DeviceCode first =
        ReadDeviceCode(*elf, [](const DeviceImage& i) { return i.arch == 100; });
    EXPECT_TRUE(first.stopped);
    EXPECT_EQ(first.images.size(), 4u);
  }
  EXPECT_EQ(code.images[1].compression, DeviceCompression::kZstd);
  EXPECT_EQ(code.images[0].compression, DeviceCompression::kNone);
  EXPECT_EQ(code.images[3].size, 40u);
  EXPECT_EQ(code.images[0].offset, 64u + 16u) << "file offset of the entry header";
}

DeviceImage Img(DeviceCodeKind kind, int arch, ArchVariant v = ArchVariant::kNone) {
  DeviceImage i;
  i.kind = kind;
  i.arch = arch;
  i.variant = v;
  return i;
}

TEST(FatbinTest, GpuRulesBothWays) {
  const DeviceCodeKind sass = DeviceCodeKind::kSass, ptx = DeviceCodeKind::kPtx;
  // G1: SASS runs on its major version at an equal or higher minor.
  EXPECT_TRUE(RunsOn(Img(sass, 80), 86));
  EXPECT_TRUE(RunsOn(Img(sass, 120), 121));
  EXPECT_FALSE(RunsOn(Img(sass, 86), 80));
  EXPECT_FALSE(RunsOn(Img(sass, 90), 100)) << "no SASS across major versions";
  EXPECT_FALSE(RunsOn(Img(sass, 90), 120));
  // G2: PTX is JIT-compiled on any later GPU.
  EXPECT_TRUE(RunsOn(Img(ptx, 80), 120));
  EXPECT_TRUE(RunsOn(Img(ptx, 80), 80));
  EXPECT_FALSE(RunsOn(Img(ptx, 90), 89));
  // G3: architecture-specific code, SASS or PTX, runs on that architecture only.
  EXPECT_TRUE(RunsOn(Img(sass, 120, ArchVariant::kArchSpecific), 120));
  EXPECT_FALSE(RunsOn(Img(sass, 120, ArchVariant::kArchSpecific), 121));
  EXPECT_FALSE(RunsOn(Img(ptx, 90, ArchVariant::kArchSpecific), 100));
  EXPECT_TRUE(RunsOn(Img(ptx, 90, ArchVariant::kArchSpecific), 90));
  // G4: family code runs within its family (the same major version, minor at least its own).
  EXPECT_TRUE(RunsOn(Img(sass, 100, ArchVariant::kFamily), 103));
  EXPECT_FALSE(RunsOn(Img(sass, 100, ArchVariant::kFamily), 120));
  EXPECT_TRUE(RunsOn(Img(ptx, 120, ArchVariant::kFamily), 121));
  EXPECT_FALSE(RunsOn(Img(ptx, 120, ArchVariant::kFamily), 130));
}

TEST(FatbinTest, GpuNames) {
  EXPECT_EQ(ParseGpu("sm_120"), 120);
  EXPECT_EQ(ParseGpu("sm_90a"), 90);
  EXPECT_EQ(ParseGpu("12.1"), 121);
  EXPECT_EQ(ParseGpu("100"), 100);
  EXPECT_EQ(ParseGpu("RTX PRO 6000 Blackwell"), 120);
  EXPECT_EQ(ParseGpu("NVIDIA H100"), 90);
  EXPECT_EQ(ParseGpu("a100"), 80);
  EXPECT_EQ(ParseGpu("DGX Spark"), 121);
  EXPECT_EQ(ParseGpu("sm_x"), std::nullopt);
  EXPECT_EQ(ParseGpu("12.10"), std::nullopt);
  EXPECT_EQ(ParseGpu(""), std::nullopt);
  // Issue 36 item 11: common spellings are accepted; architectures no GPU has are refused.
  EXPECT_EQ(ParseGpu("sm90"), 90);
  EXPECT_EQ(ParseGpu("compute_90"), 90);
  EXPECT_EQ(ParseGpu("H100 SXM"), 90);
  EXPECT_EQ(ParseGpu("NVIDIA H100 SXM5 80GB"), 90);
  EXPECT_EQ(ParseGpu("H100 PCIe"), 90);
  EXPECT_EQ(ParseGpu("GeForce RTX 4090"), 89);
  EXPECT_EQ(ParseGpu("NVIDIA GeForce RTX 5090"), 120);
  EXPECT_EQ(ParseGpu("sm_12"), std::nullopt);
  EXPECT_EQ(ParseGpu("sm_999"), std::nullopt);
  EXPECT_EQ(ParseGpu("99.9"), std::nullopt);
  EXPECT_EQ(ParseGpu("H100 XYZ"), std::nullopt);
  for (const auto& [name, cc] : KnownGpuNames()) {
    EXPECT_EQ(ParseGpu(name), cc) << name;
    EXPECT_TRUE(IsKnownArchitecture(cc)) << name;
  }
}

TEST(FatbinTest, HostileHeadersEndTheWalkWithOneLine) {
  std::vector<uint8_t> keep;
  {  // an entry whose payload runs past its fat binary: the entries before it are kept
    std::vector<uint8_t> s = Container({{2, 90}, {2, 80}});
    Put(s, 16 + 64 + 24 + 8, uint64_t{1} << 62, 8);
    const DeviceCode c = Read(s, &keep);
    ASSERT_EQ(c.images.size(), 1u);
    EXPECT_THAT(c.problems, ElementsAre(HasSubstr("k.so: .nv_fatbin at 0x")));
    EXPECT_THAT(c.problems[0], HasSubstr("entry payload of 4611686018427387904 bytes runs past"));
  }
  {  // a fat binary larger than its section
    std::vector<uint8_t> s = Container({{2, 90}});
    Put(s, 8, 0xffffffffffffull, 8);
    const DeviceCode c = Read(s, &keep);
    EXPECT_TRUE(c.images.empty());
    EXPECT_THAT(c.problems, ElementsAre(HasSubstr("runs past the section end")));
  }
  {  // an entry header size below 64, and one past the container
    for (uint32_t bad : {8u, 4000u}) {
      std::vector<uint8_t> s = Container({{2, 90}});
      Put(s, 16 + 4, bad, 4);
      const DeviceCode c = Read(s, &keep);
      EXPECT_TRUE(c.images.empty());
      EXPECT_THAT(c.problems, ElementsAre(HasSubstr("entry header size")));
    }
  }
  {  // a truncated entry header
    std::vector<uint8_t> s = Container({{2, 90}});
    Put(s, 8, 40, 8);
    s.resize(16 + 40);
    const DeviceCode c = Read(s, &keep);
    EXPECT_THAT(c.problems, ElementsAre(HasSubstr("entry header truncated (40 bytes left)")));
  }
  {  // an unknown entry kind is skipped, the walk goes on
    const DeviceCode c = Read(Container({{0x40, 90}, {1, 75}}), &keep);
    ASSERT_EQ(c.images.size(), 1u);
    EXPECT_EQ(c.images[0].arch, 75);
    EXPECT_TRUE(c.problems.empty());  // not corrupt: a kind nvcc may add later
    EXPECT_THAT(c.notes, ElementsAre(HasSubstr("entry of unknown kind 0x40 skipped")));
  }
  {  // a header of another version
    std::vector<uint8_t> s = Container({{2, 90}});
    Put(s, 4, 7, 2);
    const DeviceCode c = Read(s, &keep);
    EXPECT_TRUE(c.images.empty());
    EXPECT_THAT(c.problems, ElementsAre(HasSubstr("fat binary header version 7")));
  }
  {  // no section headers at all: said, not guessed
    std::vector<uint8_t> elf = FatbinElf(nullptr, 0);
    Put(elf, 40, 0, 8);
    absl::StatusOr<ElfFile> e = ElfFile::Parse("k.so", elf);
    ASSERT_TRUE(e.ok());
    const DeviceCode c = ReadDeviceCode(*e);
    EXPECT_FALSE(c.has_section_headers);
    EXPECT_TRUE(c.problems.empty());
  }
  {  // section headers past the end of the file, and a wrong entry size
    for (auto [at, v, n, what] : std::vector<std::tuple<int, uint64_t, int, std::string>>{
             {40, 1ull << 40, 8, "section header 0 lies outside the file"},
             {58, 40, 2, "e_shentsize is 40, expected 64"}}) {
      std::vector<uint8_t> elf = FatbinElf(nullptr, 0);
      Put(elf, at, v, n);
      absl::StatusOr<ElfFile> e = ElfFile::Parse("k.so", elf);
      ASSERT_TRUE(e.ok());
      EXPECT_THAT(ReadDeviceCode(*e).problems, ElementsAre(HasSubstr(what)));
    }
  }
}

// Issue 37 item 8: 200,000 section headers over one .nv_fatbin region took past 60 s and ~1M of
// them 2.1 GB: each byte range is read once, and overlapping headers are corrupt input in one
// line (a linker writes one .nv_fatbin).
TEST(FatbinTest, OverlappingSectionHeadersAreReadOnce) {
  const std::vector<uint8_t> section = Container({{2, 90}, {2, 80}});
  std::vector<uint8_t> elf = FatbinElf(section.data(), section.size());
  uint64_t shoff;
  std::memcpy(&shoff, &elf[40], 8);
  const std::vector<uint8_t> fatbin_header(elf.begin() + shoff + 64, elf.begin() + shoff + 128);
  std::vector<uint8_t> table(elf.begin() + shoff, elf.begin() + shoff + 3 * 64);
  constexpr int kCopies = 200000;
  for (int i = 0; i < kCopies; ++i)
    table.insert(table.end(), fatbin_header.begin(), fatbin_header.end());
  // One more that starts inside the region and ends past it (still inside the file).
  std::vector<uint8_t> shifted = fatbin_header;
  uint64_t off, size;
  std::memcpy(&off, &shifted[24], 8);
  std::memcpy(&size, &shifted[32], 8);
  Put(shifted, 24, off + 16, 8);
  table.insert(table.end(), shifted.begin(), shifted.end());
  elf.resize(shoff);
  elf.insert(elf.end(), table.begin(), table.end());
  Put(elf, 60, 0, 2);  // e_shnum 0: the count is section 0's sh_size, as for > 0xff00 sections
  Put(elf, shoff + 32, 3 + kCopies + 1, 8);
  absl::StatusOr<ElfFile> e = ElfFile::Parse("k.so", elf);
  ASSERT_TRUE(e.ok()) << e.status();
  const DeviceCode c = ReadDeviceCode(*e);
  EXPECT_EQ(c.images.size(), 2u) << "the region's two images, once";
  EXPECT_THAT(c.problems, ElementsAre(HasSubstr(absl::StrFormat(
                              "k.so: %d .nv_fatbin section headers overlap another's bytes (the "
                              "first at 0x%x, inside the one at 0x%x): each range is read once",
                              kCopies + 1, off, off))));
}

// Issue 37 item 9: an archive member's .nv_fatbin is walked as it inflates, chunk by chunk. The
// walk fed in pieces of any size finds what the walk of the whole section finds: the same images,
// notes and problems, in the same order, and the same early stop.
TEST(FatbinWalkTest, FedInPiecesItFindsWhatTheWholeReadFinds) {
  std::vector<std::vector<uint8_t>> sections;
  {
    std::vector<uint8_t> s = Container({{2, 90}, {0x40, 75}, {1, 80, 0x8011, 9, 0}});
    s.resize(s.size() + 24, 0);  // padding, then another container
    const std::vector<uint8_t> b = Container({{2, 100, 0x200011, 1, 8, 4000}, {2, 120}});
    s.insert(s.end(), b.begin(), b.end());
    sections.push_back(s);
  }
  {  // an entry whose payload runs past its fat binary, after one good entry
    std::vector<uint8_t> s = Container({{2, 90}, {2, 80}});
    Put(s, 16 + 64 + 24 + 8, uint64_t{1} << 62, 8);
    sections.push_back(s);
  }
  {  // a truncated entry header, and trailing bytes too few for a container
    std::vector<uint8_t> s = Container({{2, 90}});
    Put(s, 8, 40, 8);
    s.resize(16 + 40 + 12);
    sections.push_back(s);
  }
  const std::function<bool(const DeviceImage&)> stops[] = {
      nullptr, [](const DeviceImage& i) { return i.arch == 100; }};
  for (size_t k = 0; k < sections.size(); ++k) {
    std::vector<uint8_t> elf_bytes = FatbinElf(sections[k].data(), sections[k].size());
    absl::StatusOr<ElfFile> elf = ElfFile::Parse("k.so", elf_bytes);
    ASSERT_TRUE(elf.ok());
    for (const auto& stop : stops) {
      const DeviceCode whole = ReadDeviceCode(*elf, stop);
      for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{48}, size_t{4096}}) {
        StreamedDeviceCode streamed;
        streamed.layout = ReadFatbinLayout(*elf);
        ASSERT_EQ(streamed.layout.sections.size(), 1u);
        streamed.walks.emplace_back("k.so", streamed.layout.sections[0].first,
                                    streamed.layout.sections[0].second, false);
        for (size_t at = 0; at < elf_bytes.size(); at += piece) {
          streamed.walks[0].Feed(at, absl::MakeConstSpan(elf_bytes).subspan(
                                         at, std::min(piece, elf_bytes.size() - at)));
        }
        const DeviceCode got = DeviceCodeOf(streamed, stop);
        const std::string where =
            absl::StrFormat("section %d, pieces of %d, stop %d", k, piece, stop != nullptr);
        ASSERT_EQ(got.images.size(), whole.images.size()) << where;
        for (size_t i = 0; i < got.images.size(); ++i) {
          EXPECT_EQ(got.images[i].offset, whole.images[i].offset) << where;
          EXPECT_EQ(ImageName(got.images[i]), ImageName(whole.images[i])) << where;
          EXPECT_EQ(got.images[i].size, whole.images[i].size) << where;
          EXPECT_EQ(got.images[i].compression, whole.images[i].compression) << where;
        }
        EXPECT_EQ(got.notes, whole.notes) << where;
        EXPECT_EQ(got.problems, whole.problems) << where;
        EXPECT_EQ(got.stopped, whole.stopped) << where;
      }
    }
  }
  // Bytes the walk needed that a feed skipped end it with a problem, never a silent gap.
  std::vector<uint8_t> elf_bytes = FatbinElf(sections[0].data(), sections[0].size());
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("k.so", elf_bytes);
  ASSERT_TRUE(elf.ok());
  FatbinWalk w("k.so", 64, sections[0].size(), false);
  w.Feed(64 + 100, absl::MakeConstSpan(elf_bytes).subspan(64 + 100));
  EXPECT_TRUE(w.done());
  ASSERT_FALSE(w.findings().empty());
  EXPECT_EQ(w.findings().back().kind, FatbinWalk::Finding::kProblem);
}

// Issue 37: a fat binary whose container size is corrupt read as "no device code (nothing for
// sm_61 to run)" and the module passed; intact, the same file is NO kernel image for sm_61. A
// corrupt fat binary is corrupt input (exit 3), never "no device code".
TEST(DeviceCheckTest, ACorruptFatBinaryIsCorruptInput) {
  std::vector<uint8_t> section = Container({{2, 90}});
  Put(section, 8, 0xffffffffffffull, 8);  // the container's size runs past the section
  testing::VectorBlob blob(FatbinElf(section.data(), section.size()));
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("m.so", blob.bytes());
  ASSERT_TRUE(elf.ok()) << elf.status();
  LoadOptions o;
  o.gpu = "sm_61";
  LoadFindings r;
  r.module = "m.so";
  r.loads = true;
  const absl::Status st = CheckDeviceCode(*ResolveDeviceTarget(o, LdCache(), 62), *elf, blob, &r);
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(st.message()), HasSubstr("m.so: .nv_fatbin at 0x"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("runs past the section end"));
  EXPECT_EQ(ExitCodeForStatus(st), kExitBadInput);
}

// G6: the PTX ISA table and the driver versions, as docs/gpu-model.md lists them.
TEST(FatbinTest, PtxIsaAndDriverTables) {
  auto str = [](CudaVersion v) { return v.ToString(); };
  EXPECT_EQ(str(CudaForPtxIsa(8, 0)), "12.0");
  EXPECT_EQ(str(CudaForPtxIsa(8, 5)), "12.5");
  EXPECT_EQ(str(CudaForPtxIsa(8, 6)), "12.7");  // CUDA 12.6 kept ISA 8.5
  EXPECT_EQ(str(CudaForPtxIsa(8, 8)), "12.9");
  EXPECT_EQ(str(CudaForPtxIsa(9, 0)), "13.0");
  EXPECT_EQ(str(CudaForPtxIsa(7, 8)), "11.8");
  auto drv = [](const char* t) {
    std::optional<CudaVersion> v = ParseCudaDriver(t);
    return v ? v->ToString() : std::string("none");
  };
  EXPECT_EQ(drv("12.8"), "12.8");
  EXPECT_EQ(drv("13"), "13.0");
  EXPECT_EQ(drv("570.124.06"), "12.8");
  EXPECT_EQ(drv("570.25"), "12.6");  // a 570 beta before 12.8's first driver
  EXPECT_EQ(drv("580.65.06"), "13.0");
  EXPECT_EQ(drv("580.65.05"), "12.9");
  EXPECT_EQ(drv("535"), "12.2");
  EXPECT_EQ(drv("610.1"), "13.0");  // newer than the table: at least its newest
  EXPECT_EQ(drv("418.39"), "10.2");
  EXPECT_EQ(drv("x"), "none");
  EXPECT_EQ(drv(""), "none");
  EXPECT_EQ(drv("12.8.1.4"), "none");
}

// G5-G6 together: the image a GPU would take, and PTX that the driver is too old for.
TEST(FatbinTest, JudgesWithTheDriver) {
  DeviceCode code;
  DeviceImage sass;  // sm_90
  sass.arch = 90;
  DeviceImage ptx;  // compute_90, PTX ISA 9.0 (CUDA 13.0)
  ptx.kind = DeviceCodeKind::kPtx;
  ptx.arch = 90;
  ptx.version_major = 9;
  code.images = {sass, ptx, sass};
  DeviceVerdict v = JudgeDeviceCode(code, 90, CudaVersion{12, 8});
  EXPECT_THAT(v.carried, ElementsAre("sm_90", "compute_90"));
  EXPECT_THAT(v.usable, ElementsAre("sm_90"));  // SASS needs no JIT: the old driver runs it
  v = JudgeDeviceCode(code, 120, CudaVersion{12, 8});
  EXPECT_TRUE(v.usable.empty());
  EXPECT_THAT(v.too_new, ElementsAre("compute_90 (PTX ISA 9.0, CUDA 13.0)"));
  EXPECT_EQ(v.driver_needed.ToString(), "13.0");
  v = JudgeDeviceCode(code, 120, CudaVersion{13, 0});
  EXPECT_THAT(v.usable, ElementsAre("compute_90"));
  EXPECT_TRUE(v.too_new.empty());
  v = JudgeDeviceCode(code, 120, std::nullopt);  // no driver given: any
  EXPECT_THAT(v.usable, ElementsAre("compute_90"));
  v = JudgeDeviceCode(code, std::nullopt, CudaVersion{12, 0});  // no GPU: nothing to run
  EXPECT_THAT(v.carried, ElementsAre("sm_90", "compute_90"));
  EXPECT_TRUE(v.usable.empty());
}

// The after-loading check of a report (lib/resolve/device_check.cc): G5 and G6 as problems that
// leave `loads` alone, G7 from the libcudart in the scope, and the host's driver read from the
// name libcuda.so.1 resolves to under a sysroot.
TEST(DeviceCheckTest, ProblemsAfterLoading) {
  std::vector<uint8_t> keep;
  const std::vector<uint8_t> section =
      Container({{1, 90, 0x11, 9, 0}});  // PTX compute_90, ISA 9.0 (CUDA 13.0)
  testing::VectorBlob blob(FatbinElf(section.data(), section.size()));
  absl::StatusOr<ElfFile> elf = ElfFile::Parse("m.so", blob.bytes());
  ASSERT_TRUE(elf.ok()) << elf.status();
  auto check = [&](const char* gpu, const char* driver) {
    LoadOptions o;
    o.gpu = gpu;
    o.cuda_driver = driver;
    absl::StatusOr<DeviceTarget> t = ResolveDeviceTarget(o, LdCache(), 62);
    EXPECT_TRUE(t.ok()) << t.status();
    LoadFindings r;
    r.module = "m.so";
    r.loads = true;
    r.libraries = {{"m.so", "m.so", HowFound::kModule, true},
                   {"libcudart.so.13", "/x/libcudart.so.13.0.96", HowFound::kRpath, true}};
    EXPECT_TRUE(CheckDeviceCode(*t, *elf, blob, &r).ok());
    CheckCudaRuntime(*t, &r);
    std::vector<std::string> kinds;
    const Report report = ToReport(r);
    for (const Problem& p : report.problems) kinds.push_back(ProblemKindName(p.kind));
    EXPECT_TRUE(report.loads);
    EXPECT_EQ(report.ok(), kinds.empty());
    EXPECT_EQ(r.device.cuda_runtime, "libcudart.so.13");
    return kinds;
  };
  EXPECT_THAT(check("sm_120", "13.0"), ::testing::IsEmpty());
  EXPECT_THAT(check("sm_80", ""), ElementsAre("no_kernel_image"));
  EXPECT_THAT(check("sm_120", "12.8"), ElementsAre("unsupported_ptx", "insufficient_driver"));
  EXPECT_THAT(check("", "575.51.03"), ElementsAre("insufficient_driver"));
  {  // a module that does not load gets no after-loading problem
    LoadOptions o;
    o.gpu = "sm_80";
    LoadFindings r;
    r.loads = false;
    EXPECT_TRUE(CheckDeviceCode(*ResolveDeviceTarget(o, LdCache(), 62), *elf, blob, &r).ok());
    EXPECT_TRUE(r.problems.empty());
    EXPECT_THAT(r.device.images, ElementsAre("compute_90"));
  }
  // The host's driver: libcuda.so.1 -> libcuda.so.570.124.06 under a sysroot.
  testing::TempDir d;
  const std::filesystem::path lib = std::filesystem::path(d.path()) / "usr/lib/x86_64-linux-gnu";
  std::filesystem::create_directories(lib);
  d.Write("usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06", std::string("x"));
  std::filesystem::create_symlink("libcuda.so.570.124.06", lib / "libcuda.so.1");
  LoadOptions o;
  o.cuda_driver = "host";
  o.sysroot = d.path();
  absl::StatusOr<DeviceTarget> t = ResolveDeviceTarget(o, LdCache(), 62);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->driver->ToString(), "12.8");
  EXPECT_THAT(t->driver_file, ::testing::EndsWith("libcuda.so.570.124.06"));
  o.sysroot = d.path() + "/elsewhere";  // no driver there
  EXPECT_EQ(ResolveDeviceTarget(o, LdCache(), 62).status().code(), absl::StatusCode::kNotFound);
  o.cuda_driver = "twelve";
  EXPECT_EQ(ResolveDeviceTarget(o, LdCache(), 62).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace abicheck
