// Index files: the same answers as the builds, what they hold, and every kind of damage refused.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/index/index_file.h"
#include "lib/index/index_layout.h"
#include "lib/report/render.h"
#include "tests/support/index_reseal.h"
#include "tests/unit/test_inputs.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::StatusIs;
using ::abicheck::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::abicheck::testing;  // NOLINT: the shared test inputs

class IndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(d_.path() + "/b1");
    std::filesystem::create_directories(d_.path() + "/b2");
    d_.Write("b1/libtorch.so", Lib("libtorch.so", {"kept", "gone"}));
    d_.Write("b2/libtorch.so", Lib("libtorch.so", {"kept"}));
    index_ = d_.path() + "/builds.abix";
    absl::StatusOr<IndexSummary> s =
        BuildIndex({d_.path() + "/b1", d_.path() + "/b2"}, {"one", "two"}, index_);
    ASSERT_TRUE(s.ok()) << s.status();
    module_ = d_.Write("mod.so", Mod({"libtorch.so"}, {"kept", "gone"}));
  }
  std::vector<uint8_t> Bytes() { return Read(index_); }
  TempDir d_;
  std::string index_, module_;
};

TEST_F(IndexTest, SameAnswersAsTheDirectories) {
  absl::StatusOr<Report> a = Check(module_, WithProviders({index_ + "#one"}));
  absl::StatusOr<Report> b = Check(module_, WithProviders({index_ + "#two"}));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(a->loads) << RenderText(*a, false);
  ASSERT_EQ(b->problems.size(), 1u);
  EXPECT_EQ(b->problems[0].symbol, "gone");
  absl::StatusOr<Matrix> m = CheckMatrix({module_}, {index_}, CheckOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->builds, ElementsAre(index_ + "#one", index_ + "#two"));
  EXPECT_THAT(m->cells[1].report.problems[0].exported_by, ElementsAre(index_ + "#one"));
  EXPECT_EQ(m->cells[1].report.problems[0].hint,
            absl::StrCat("not in this build; exported by ", index_, "#one (of the builds given)"));
}

// Which builds export a missing symbol is added to what the diagnosis said, not put in its place,
// and not called "removed": torchao's torch_dtype_float4_e2m1fn_x2 is a stable-shim function that
// torch 2.15 has and 2.10 does not yet.
TEST(ExportingBuildsTest, AreAddedToTheHint) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/new");
  std::filesystem::create_directories(d.path() + "/old");
  d.Write("new/libtorch.so", Lib("libtorch.so", {"torch_new_fn"}));
  d.Write("old/libtorch.so", Lib("libtorch.so", {"torch_other_fn"}));
  const std::string mod = d.Write("mod.so", Mod({"libtorch.so"}, {"torch_new_fn"}));
  CheckOptions o;
  o.use_host = false;
  absl::StatusOr<Matrix> m = CheckMatrix({mod}, {d.path() + "/new", d.path() + "/old"}, o);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->cells.size(), 2u);
  ASSERT_EQ(m->cells[1].report.problems.size(), 1u);
  EXPECT_EQ(m->cells[1].report.problems[0].hint,
            absl::StrCat("a function of torch's stable C shim that this torch does not have: the "
                         "module was built against a newer torch; use that torch or a newer one; "
                         "exported by ",
                         d.path(), "/new (of the builds given)"));
}

// A lookup scans a block's front-coded names and skips those that keep more of the previous name
// than it shares with the wanted one (NameBlocks::FindInBlock): every exported name is found, and
// no near miss — a prefix, an extension, a neighbour by one byte — is, as with the library itself.
TEST_F(IndexTest, FindsEveryNameAndNoNearMiss) {
  std::vector<std::string> exported;
  for (const char* stem : {"a", "ab", "abc", "abd", "abcd", "b", "ba", "bab", "_Z3foo", "_Z3fooi"})
    exported.push_back(stem);
  // Blocks of 16 names with long shared prefixes, as C++ names have.
  for (int i = 0; i < 120; ++i) {
    exported.push_back(absl::StrCat("_ZN5torch8autograd", std::string(i % 7, 'x'), i * 37 % 101,
                                    i % 3 == 0 ? "Ev" : "ERKNS_6TensorE"));
  }
  std::sort(exported.begin(), exported.end());
  exported.erase(std::unique(exported.begin(), exported.end()), exported.end());
  const std::set<std::string> present(exported.begin(), exported.end());
  std::set<std::string> absent;
  for (const std::string& n : exported) {
    std::string up = n, down = n;
    ++up.back();
    --down.back();
    for (const std::string& m : {n.substr(0, n.size() - 1), n + "a", n + "\x01", up, down}) {
      if (!m.empty() && !present.contains(m)) absent.insert(m);
    }
  }
  std::vector<std::string> refs(exported);
  refs.insert(refs.end(), absent.begin(), absent.end());
  std::filesystem::create_directories(d_.path() + "/many");
  d_.Write("many/libtorch.so", Lib("libtorch.so", exported));
  const std::string index = d_.path() + "/many.abix";
  ASSERT_TRUE(BuildIndex({d_.path() + "/many"}, {}, index).ok());
  const std::string module = d_.Write("many_refs.so", Mod({"libtorch.so"}, refs));
  for (const std::string& provider : {d_.path() + "/many/libtorch.so", index}) {
    absl::StatusOr<Report> r = Check(module, WithProviders({provider}));
    ASSERT_TRUE(r.ok()) << r.status();
    std::set<std::string> missing;
    for (const Problem& p : r->problems) missing.insert(p.symbol);
    EXPECT_EQ(missing, absent) << provider;
  }
}

TEST_F(IndexTest, SaysWhatItHolds) {
  // "kept" is exported by both builds and stored once; "gone" by the first only.
  absl::StatusOr<IndexSummary> s =
      BuildIndex({d_.path() + "/b1", d_.path() + "/b2"}, {"one", "two"}, d_.path() + "/again.abix");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->path, d_.path() + "/again.abix");
  EXPECT_THAT(s->builds, ElementsAre("one", "two"));
  EXPECT_EQ(s->libraries, 2u);
  EXPECT_EQ(s->names, 2u);
  EXPECT_EQ(s->file_bytes, std::filesystem::file_size(s->path));
}

TEST_F(IndexTest, SeveralBuildsNeedOneNamedAsProviders) {
  EXPECT_THAT(Check(module_, WithProviders({index_})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "holds several builds; name one as " + index_ + "#BUILD: one, two"));
  EXPECT_THAT(Check(module_, WithProviders({index_ + "#three"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "has no build named three; its builds: one, two"));
  EXPECT_THAT(CheckMatrix({index_}, {}, CheckOptions{}),
              StatusIs(absl::StatusCode::kInvalidArgument, "not modules"));
}

TEST_F(IndexTest, TruncatedIsAnError) {
  std::vector<uint8_t> b = Bytes();
  b.resize(b.size() - 10);
  std::string p = d_.Write("cut.abix", b);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss, "cut.abix: index is"));
}

TEST_F(IndexTest, OneFlippedByteIsAnError) {
  std::vector<uint8_t> b = Bytes();
  uint64_t base_names;
  std::memcpy(&base_names, &b[80], 8);
  // Everything but the base names and the compressed name blocks is verified on opening...
  for (size_t at : {size_t{100}, size_t{base_names / 2}, size_t{base_names - 1}}) {
    std::vector<uint8_t> c = b;
    c[at] ^= 0x20;
    std::string p = d_.Write("flip.abix", c);
    EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
                StatusIs(absl::StatusCode::kDataLoss,
                         "flip.abix: index checksum mismatch: the file is corrupt"))
        << "byte " << at;
  }
  // ...and a block when a lookup decodes it (this index has one: "gone" and "kept").
  std::vector<uint8_t> c = b;
  c[b.size() - 1] ^= 0x20;
  std::string p = d_.Write("flip.abix", c);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss,
                       "flip.abix: index name block 0: checksum mismatch: the file is corrupt"));
}

// The base-name buckets the diagnosis reads are the index's own, and they are verified when it
// first reads them: a check that needs no diagnosis does not read them.
TEST_F(IndexTest, BaseNamesAreVerifiedWhenADiagnosisReadsThem) {
  // at::foo(long) is exported; the module wants at::foo(int).
  std::filesystem::create_directories(d_.path() + "/cxx");
  d_.Write("cxx/libtorch.so", Lib("libtorch.so", {"_ZN2at3fooEl", "_ZN2at3barEv"}));
  const std::string index = d_.path() + "/cxx.abix";
  ASSERT_TRUE(BuildIndex({d_.path() + "/cxx"}, {"cxx"}, index).ok());
  const std::string mod = d_.Write("cxxmod.so", Mod({"libtorch.so"}, {"_ZN2at3fooEi"}));
  const std::string good = d_.Write("cxxgood.so", Mod({"libtorch.so"}, {"_ZN2at3barEv"}));
  absl::StatusOr<Report> from_index = Check(mod, WithProviders({index}));
  absl::StatusOr<Report> from_dir = Check(mod, WithProviders({d_.path() + "/cxx"}));
  ASSERT_TRUE(from_index.ok()) << from_index.status();
  ASSERT_TRUE(from_dir.ok()) << from_dir.status();
  ASSERT_EQ(from_index->problems.size(), 1u);
  ASSERT_EQ(from_index->problems[0].candidates.size(), 1u) << RenderText(*from_index, false);
  EXPECT_EQ(from_index->problems[0].candidates[0].symbol, "_ZN2at3fooEl");
  EXPECT_EQ(RenderText(*from_index, false), RenderText(*from_dir, false));

  std::vector<uint8_t> b = Read(index);
  uint64_t base_names, blocks;
  std::memcpy(&base_names, &b[80], 8);
  std::memcpy(&blocks, &b[64], 8);
  ASSERT_LT(base_names, blocks);
  b[(base_names + blocks) / 2] ^= 0x20;
  const std::string flipped = d_.Write("cxxflip.abix", b);
  EXPECT_TRUE(Check(good, WithProviders({flipped})).ok());
  CheckOptions plain = WithProviders({flipped});
  plain.diagnose = false;
  EXPECT_TRUE(Check(mod, plain).ok());
  EXPECT_THAT(Check(mod, WithProviders({flipped})),
              StatusIs(absl::StatusCode::kDataLoss,
                       "cxxflip.abix: index base-name section: checksum mismatch"));
}

// An index whose checksums were made to match (a crafted file can say anything that parses):
// every byte of its name section and of its blocks flipped in turn is read safely — an answer or
// a DataLoss naming the index, never a crash (ASan) or a hang.
TEST_F(IndexTest, MalformedNameSectionWithAValidChecksum) {
  const std::vector<uint8_t> b = Bytes();
  uint64_t names_off, names_size, blocks;
  std::memcpy(&names_off, &b[48], 8);
  std::memcpy(&names_size, &b[56], 8);
  std::memcpy(&blocks, &b[64], 8);
  ASSERT_GT(names_size, 0u);
  ASSERT_LT(blocks, b.size());
  int failed = 0, flips = 0;
  auto flip = [&](uint64_t at) {
    std::vector<uint8_t> c = b;
    c[at] ^= 0x41;
    testing::ResealIndex(c);
    std::string p = d_.Write("sealed.abix", c);
    absl::StatusOr<Report> r = Check(module_, WithProviders({p + "#two"}));
    ++flips;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << r.status();
      EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("sealed.abix: index"))
          << r.status();
      ++failed;
    }
  };
  for (uint64_t at = names_off; at < names_off + names_size; ++at) flip(at);
  for (uint64_t at = blocks; at < b.size(); ++at) flip(at);
  EXPECT_GT(failed, 0) << "none of " << flips << " flips was noticed";
  // The last byte is inside the last block: with its checksum made to match, decoding fails.
  std::vector<uint8_t> c = b;
  c[b.size() - 1] ^= 0xff;
  testing::ResealIndex(c);
  std::string p = d_.Write("block.abix", c);
  EXPECT_THAT(Check(module_, WithProviders({p + "#one"})),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
  // Every reader of an index's symbols says so, not only the check: diff, and merging.
  EXPECT_THAT(DiffBuilds(p + "#one", p + "#two"),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
  EXPECT_THAT(BuildIndex({p}, {}, d_.path() + "/merged.abix"),
              StatusIs(absl::StatusCode::kDataLoss, "block.abix: index name block"));
}

TEST_F(IndexTest, AnotherFormatVersionIsAnError) {
  std::vector<uint8_t> b = Bytes();
  Put32(b, 8, 1);
  std::string p = d_.Write("v1.abix", b);
  absl::StatusOr<Report> r = Check(module_, WithProviders({p + "#one"}));
  EXPECT_THAT(r,
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("v1.abix: index format version 1; this abicheck reads version ",
                                    kIndexFormatVersion)));
  EXPECT_EQ(ExitCodeForStatus(r.status()), kExitBadInput);
}

// Issue 37 item 7: an index edited and re-sealed (every checksum made to match) is held to its
// structure, not only its checksums: the separators a lookup's binary search trusts, the table of
// contents' counts and the libraries each build names.
class IndexStructureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(d_.path() + "/b");
    std::vector<std::string> names;
    for (int i = 100; i < 160; ++i) names.push_back(absl::StrCat("n", i));  // 4 blocks of 16
    d_.Write("b/libtorch.so", Lib("libtorch.so", names));
    d_.Write("b/libc10.so", Lib("libc10.so", {"c10_only"}));
    index_ = d_.path() + "/i.abix";
    ASSERT_TRUE(BuildIndex({d_.path() + "/b"}, {"one"}, index_).ok());
    module_ = d_.Write("mod.so", Mod({"libtorch.so", "libc10.so"}, {"n120", "n140", "c10_only"}));
    bytes_ = Read(index_);
    const ByteReader r({bytes_.data(), bytes_.size()}, false);
    const index_layout::FileHeader h = *index_layout::DecodeFileHeader(r);
    toc_ = h.toc_offset;
    const ByteReader section = *r.Slice(h.names_offset, h.names_size);
    const index_layout::NameSectionHeader nh = *index_layout::DecodeNameSectionHeader(section);
    blocks_ = nh.blocks;
    const uint64_t lists = index_layout::EntryListsOffset(nh);
    const uint32_t nlists = *section.ReadAt<uint32_t>(lists);
    const uint32_t list_bytes = *section.ReadAt<uint32_t>(lists + 4 + uint64_t{nlists} * 4);
    sep_offsets_ = h.names_offset + lists + 4 + (uint64_t{nlists} + 1) * 4 + list_bytes +
                   (uint64_t{nh.blocks} + 1) * index_layout::kBlockTableEntrySize;
    sep_bytes_ = sep_offsets_ + (uint64_t{nh.blocks} + 1) * 4;
  }
  uint32_t U32(uint64_t at) const {
    uint32_t v;
    std::memcpy(&v, &bytes_[at], 4);
    return v;
  }
  // The separator of block b, where it lies in the file.
  std::pair<uint64_t, std::string> Separator(uint32_t b) const {
    const uint32_t from = U32(sep_offsets_ + b * 4ull), to = U32(sep_offsets_ + b * 4ull + 4);
    return {sep_bytes_ + from,
            std::string(bytes_.begin() + sep_bytes_ + from, bytes_.begin() + sep_bytes_ + to)};
  }
  absl::StatusOr<Report> CheckSealed(std::vector<uint8_t> b, const std::string& name) {
    testing::ResealIndex(b);
    return Check(module_, WithProviders({d_.Write(name, b) + "#one"}));
  }
  TempDir d_;
  std::string index_, module_;
  std::vector<uint8_t> bytes_;
  uint64_t toc_ = 0, sep_offsets_ = 0, sep_bytes_ = 0;
  uint32_t blocks_ = 0;
};

TEST_F(IndexStructureTest, TheIntactIndexAnswersAsTheDirectory) {
  ASSERT_EQ(blocks_, 4u);
  EXPECT_EQ(Separator(1).second, "n115");  // block 0: c10_only, n100 ... n114
  EXPECT_EQ(Separator(2).second, "n131");
  absl::StatusOr<Report> r = CheckSealed(bytes_, "same.abix");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->loads) << RenderText(*r, false);
}

TEST_F(IndexStructureTest, SeparatorsOutOfOrderAreRefusedOnOpen) {
  std::vector<uint8_t> b = bytes_;
  b[Separator(2).first + 2] = '0';  // "n131" -> "n101": before block 1's "n115"
  EXPECT_THAT(CheckSealed(b, "order.abix"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "order.abix: index name section: separators 1 and 2 are out of order"));
}

TEST_F(IndexStructureTest, ASeparatorThatIsNotItsBlocksPrefixIsAnErrorNotAMissingName) {
  // "n131" -> "n139": still in order, but n131 ... n138 (block 2's) now look in block 1.
  std::vector<uint8_t> b = bytes_;
  b[Separator(2).first + 3] = '9';
  EXPECT_THAT(CheckSealed(b, "prefix.abix"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "prefix.abix: index name block 2: its first name does not start with its "
                       "separator"));
  // A name the edit sent to the wrong block is not "undefined": the lookup that misses it in
  // block 1 checks the blocks around, and block 2 does not match its separator.
  module_ = d_.Write("mod135.so", Mod({"libtorch.so", "libc10.so"}, {"n135"}));
  EXPECT_THAT(CheckSealed(b, "missed.abix"),
              StatusIs(absl::StatusCode::kDataLoss, "missed.abix: index name block 2"));
  // "n131" -> "n125": block 1's last names (n125 ... n130) now sort after it.
  module_ = d_.Write("mod120.so", Mod({"libtorch.so", "libc10.so"}, {"n120"}));
  b = bytes_;
  b[Separator(2).first + 2] = '2';
  b[Separator(2).first + 3] = '5';
  EXPECT_THAT(CheckSealed(b, "last.abix"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "last.abix: index name block 1: its last name does not sort before the "
                       "next block's separator"));
}

TEST_F(IndexStructureTest, TheTableOfContentsIsHeldToItsCounts) {
  // TOC: u32 builds; "one" (u32 3 + 3 bytes); u32 libraries in it; their ids; its wheel ("":
  // u32 0) and u32 texts (0); u32 libraries; ...
  const uint64_t nids = toc_ + 4 + 4 + 3;
  ASSERT_EQ(U32(nids), 2u);
  std::vector<uint8_t> twice = bytes_;
  std::memcpy(&twice[nids + 8], &twice[nids + 4], 4);  // the second id made the first's
  EXPECT_THAT(CheckSealed(twice, "twice.abix"),
              StatusIs(absl::StatusCode::kDataLoss, "twice.abix: index build one names library"));
  // The first library's entry count, one more than the name section holds.
  uint64_t at = nids + 4 + 2 * 4 + 4 + 4 + 4;  // its name
  at += 4 + U32(at);
  at += 4 + U32(at);  // its path
  at += 8 + 1 + 1;    // size, flags, markers
  std::vector<uint8_t> more = bytes_;
  const uint32_t entries = U32(at) + 1;
  std::memcpy(&more[at], &entries, 4);
  EXPECT_THAT(CheckSealed(more, "entries.abix"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "entries.abix: index table of contents: its libraries have"));
}

// Issue 55 item 14: the table of contents' flags are held to the stored dynamic section. Said to
// have no hash table while its PT_DYNAMIC names DT_GNU_HASH (with buckets), a library was
// accepted and every lookup in it missed: a module that loads against the directory "will not
// load" against the index.
TEST_F(IndexStructureTest, TheFlagsAreHeldToTheStoredDynamicSection) {
  const uint64_t nids = toc_ + 4 + 4 + 3;
  uint64_t at = nids + 4 + 2 * 4 + 4 + 4 + 4;  // the first library's name
  at += 4 + U32(at);
  at += 4 + U32(at);  // its path
  const uint64_t flags = at + 8;
  ASSERT_EQ(bytes_[flags] & 1, 1) << "the library has a hash table";
  std::vector<uint8_t> b = bytes_;
  b[flags] &= ~1;
  EXPECT_THAT(CheckSealed(b, "nohash.abix"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "the table of contents says it has no hash table, its dynamic section "
                       "names one"));
  b = bytes_;
  b[flags] ^= 2;
  EXPECT_THAT(CheckSealed(b, "versym.abix"),
              StatusIs(absl::StatusCode::kDataLoss, "its dynamic section names"));
}

}  // namespace
}  // namespace abicheck
