// The cache of what was read from published wheels: an entry reads back as written, and a damaged
// or hostile one — even with its checksum made to match again — is a miss, never an answer.
#include "lib/inputs/wheel_cache.h"

#include <isa-l/crc.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "lib/io/blob.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

using ::abicheck::testing::TempDir;

constexpr char kUrl[] = "http://127.0.0.1:1/ok/t-1.0-py3-none-any.whl";
const std::string kSha(64, 'a');

// XDG_CACHE_HOME pointed at a directory of the test's own for its lifetime.
class CacheHome {
 public:
  CacheHome() : old_(Env("XDG_CACHE_HOME")) { ::setenv("XDG_CACHE_HOME", dir_.path().c_str(), 1); }
  ~CacheHome() {
    if (old_) {
      ::setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    } else {
      ::unsetenv("XDG_CACHE_HOME");
    }
  }
  std::string entry() const { return dir_.path() + "/abicheck/wheels/" + kSha + ".part"; }

 private:
  static std::optional<std::string> Env(const char* n) {
    const char* v = std::getenv(n);
    return v ? std::optional<std::string>(v) : std::nullopt;
  }
  TempDir dir_;
  std::optional<std::string> old_;
};

ExpandedInput Sample() {
  ExpandedInput in;
  in.path = kUrl;
  in.kind = "archive";
  in.remote_size = 1000;
  in.fetched_bytes = 300;
  in.archive_members = 3;
  in.declared_bytes = 8192;
  in.largest_member = 8192;
  in.notes = {"read by HTTP range requests: 300 of its 1000 bytes (30.0 %)"};
  in.texts = {{"t-1.0.dist-info/METADATA", "Name: t\nVersion: 1.0\n"}};
  std::unique_ptr<SparseImage> img = SparseImage::Create(8192);
  for (int i = 0; i < 64; ++i) img->mutable_data()[i] = static_cast<uint8_t>(i);
  for (int i = 4096; i < 4200; ++i) img->mutable_data()[i] = static_cast<uint8_t>(i * 7);
  img->mutable_retained().Add(0, 64);
  img->mutable_retained().Add(4096, 4200);
  in.objects.push_back(InputFile{std::string(kUrl) + "!t/libt.so", std::string(kUrl) + "/t/libt.so",
                                 std::shared_ptr<const Blob>(std::move(img)), nullptr});
  return in;
}

std::string ReadAll(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
// Written to a new file renamed over the entry, as abicheck rewrites one: a run holding the old
// entry mapped keeps its bytes (an entry shrunk in place under a run that maps it would fault, as
// any mapped input would; docs/cache.md).
void WriteAll(const std::string& p, const std::string& bytes) {
  const std::string tmp = p + ".tmp";
  std::ofstream(tmp, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::filesystem::rename(tmp, p);
}
// The header's CRC-32C made to match the (edited) rest again.
void Reseal(std::string* e) {
  if (e->size() < 32) return;
  const uint32_t crc =
      crc32_iscsi(reinterpret_cast<uint8_t*>(e->data() + 32), static_cast<int>(e->size() - 32), 0);
  std::memcpy(e->data() + 24, &crc, 4);
}

TEST(WheelCacheTest, AnEntryReadsBackAsWritten) {
  CacheHome home;
  RememberDigest(kUrl, kSha);
  const ExpandedInput in = Sample();
  StoreCachedWheel(kUrl, in, ReadLimits{});
  std::optional<ExpandedInput> back = LoadCachedWheel(kUrl, ReadLimits{});
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->from_cache);
  EXPECT_EQ(back->cached_fetched_bytes, 300u);
  EXPECT_EQ(back->fetched_bytes, 0u);
  EXPECT_EQ(back->texts, in.texts);
  ASSERT_EQ(back->objects.size(), 1u);
  EXPECT_EQ(back->objects[0].name, in.objects[0].name);
  const RangeSet* kept = back->objects[0].blob->retained();
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->ranges(), in.objects[0].blob->retained()->ranges());
  for (const auto& [b, e] : kept->ranges()) {
    EXPECT_EQ(0, std::memcmp(back->objects[0].blob->bytes().data() + b,
                             in.objects[0].blob->bytes().data() + b, e - b));
  }
  ASSERT_EQ(back->notes.size(), 1u);
  EXPECT_NE(back->notes[0].find("read from abicheck's cache"), std::string::npos) << back->notes[0];
  // Another read mode (--verify) or a narrower limit the wheel exceeds: not this entry.
  ReadLimits verify;
  verify.verify_remote = true;
  EXPECT_FALSE(LoadCachedWheel(kUrl, verify).has_value());
  ReadLimits narrow;
  narrow.max_member_bytes = 4096;
  EXPECT_FALSE(LoadCachedWheel(kUrl, narrow).has_value());
  EXPECT_FALSE(CachedWheelTexts(kUrl, narrow).has_value());
  // By another URL (a mirror) with the same digest: named by the URL asked for.
  const std::string mirror = "http://127.0.0.2:1/m/t-1.0-py3-none-any.whl";
  RememberDigest(mirror, kSha);
  std::optional<ExpandedInput> m = LoadCachedWheel(mirror, ReadLimits{});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->objects[0].name, mirror + "!t/libt.so");
}

// The texts of an entry are read once a process (the worlds are planned again and again), but an
// entry that was absent is looked for again: this run may have stored it since.
TEST(WheelCacheTest, AnEntryAbsentIsLookedForAgain) {
  CacheHome home;
  RememberDigest(kUrl, kSha);
  EXPECT_FALSE(CachedWheelTexts(kUrl, ReadLimits{}).has_value());
  const ExpandedInput in = Sample();
  StoreCachedWheel(kUrl, in, ReadLimits{});
  std::optional<std::vector<std::pair<std::string, std::string>>> texts =
      CachedWheelTexts(kUrl, ReadLimits{});
  ASSERT_TRUE(texts.has_value());
  EXPECT_EQ(*texts, in.texts);
  ReadLimits narrow;  // the limits are asked of each call, not of the first
  narrow.max_member_bytes = 4096;
  EXPECT_FALSE(CachedWheelTexts(kUrl, narrow).has_value());
  EXPECT_EQ(CachedWheelTexts(kUrl, ReadLimits{}), texts);
}

// An entry this process fetched and stored (a remote build's worlds read into the cache first,
// then gathered from it) reads back as fetched now: its bytes and notes as read, not a cache's.
TEST(WheelCacheTest, AnEntryThisRunFetchedSaysSo) {
  CacheHome home;
  const std::string url = "http://127.0.0.3:1/f/t-1.0-py3-none-any.whl";
  RememberDigest(url, kSha);
  StoreCachedWheel(url, Sample(), ReadLimits{});
  std::optional<ExpandedInput> before = LoadCachedWheel(url, ReadLimits{});
  ASSERT_TRUE(before.has_value());
  EXPECT_TRUE(before->from_cache);
  RememberFetchedNow(url);
  std::optional<ExpandedInput> back = LoadCachedWheel(url, ReadLimits{});
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->from_cache);
  EXPECT_EQ(back->fetched_bytes, 300u);
  EXPECT_EQ(back->cached_fetched_bytes, 0u);
  ASSERT_EQ(back->notes.size(), 1u);
  EXPECT_EQ(back->notes[0].rfind("read by HTTP range requests: 300 of its", 0), 0u)
      << back->notes[0];
}

// The builds of one run that pin the same wheel share one mapping of its entry while any holds
// it (their objects are then parsed once); once none does, the entry is read and checked again.
TEST(WheelCacheTest, ExpansionsAliveShareOneMapping) {
  CacheHome home;
  RememberDigest(kUrl, kSha);
  StoreCachedWheel(kUrl, Sample(), ReadLimits{});
  const std::string good = ReadAll(home.entry());
  std::optional<ExpandedInput> a = LoadCachedWheel(kUrl, ReadLimits{});
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->objects.size(), 1u);
  // The file damaged while `a` holds its objects: the second expansion is `a`'s bytes.
  WriteAll(home.entry(), good.substr(0, good.size() / 2));
  std::optional<ExpandedInput> b = LoadCachedWheel(kUrl, ReadLimits{});
  ASSERT_TRUE(b.has_value());
  ASSERT_EQ(b->objects.size(), 1u);
  EXPECT_EQ(b->objects[0].blob.get(), a->objects[0].blob.get());
  EXPECT_EQ(b->objects[0].name, a->objects[0].name);
  EXPECT_EQ(b->notes, a->notes);
  // Limits are met on every expansion, shared or not.
  ReadLimits narrow;
  narrow.max_member_bytes = 4096;
  EXPECT_FALSE(LoadCachedWheel(kUrl, narrow).has_value());
  // An object outliving its expansion keeps its bytes.
  std::shared_ptr<const Blob> kept = b->objects[0].blob;
  a.reset();
  b.reset();
  EXPECT_EQ(kept->bytes()[5], 5);
  EXPECT_TRUE(LoadCachedWheel(kUrl, ReadLimits{}).has_value());
  // None held: the damaged file is read again, and is a miss.
  kept.reset();
  EXPECT_FALSE(LoadCachedWheel(kUrl, ReadLimits{}).has_value());
  // Rewritten whole: a hit again, with fresh bytes.
  WriteAll(home.entry(), good);
  std::optional<ExpandedInput> c = LoadCachedWheel(kUrl, ReadLimits{});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->objects[0].blob->bytes()[4096 + 3], static_cast<uint8_t>((4096 + 3) * 7));
}

// An object's tables are the entry's own pages, mapped from the file (page cache), not a copy:
// what a warm run costs is mapping them (docs/cache.md, "Layout").
TEST(WheelCacheTest, AnEntryIsMappedNotCopied) {
  if (::sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "pages of another size: spans are read";
  CacheHome home;
  RememberDigest(kUrl, kSha);
  StoreCachedWheel(kUrl, Sample(), ReadLimits{});
  std::optional<ExpandedInput> e = LoadCachedWheel(kUrl, ReadLimits{});
  ASSERT_TRUE(e.has_value());
  const auto at = reinterpret_cast<uintptr_t>(e->objects[0].blob->bytes().data() + 4096 + 3);
  EXPECT_EQ(e->objects[0].blob->bytes()[4096 + 3], static_cast<uint8_t>((4096 + 3) * 7));
  std::ifstream maps("/proc/self/maps");
  std::string line, mapping;
  while (std::getline(maps, line)) {
    uintptr_t from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &from, &to) == 2 && from <= at && at < to)
      mapping = line;
  }
  EXPECT_NE(mapping.find(home.entry()), std::string::npos) << mapping;
  // The entry is page-aligned: the header and description, then each object's spans.
  EXPECT_EQ(ReadAll(home.entry()).size() % 4096, 0u);
}

TEST(WheelCacheTest, EveryDamagedEntryIsAMissEvenResealed) {
  CacheHome home;
  RememberDigest(kUrl, kSha);
  StoreCachedWheel(kUrl, Sample(), ReadLimits{});
  const std::string good = ReadAll(home.entry());
  ASSERT_GT(good.size(), 100u);
  int loaded = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      WriteAll(home.entry(), bad);
      // Unsealed: the checksum catches every flip.
      EXPECT_FALSE(LoadCachedWheel(kUrl, ReadLimits{}).has_value()) << "byte " << i;
      Reseal(&bad);
      WriteAll(home.entry(), bad);
      // Resealed: whatever the flip did, reading it neither crashes nor reads out of bounds
      // (ASan), and what it gives holds only bytes inside its objects.
      if (std::optional<ExpandedInput> r = LoadCachedWheel(kUrl, ReadLimits{})) {
        ++loaded;
        for (const InputFile& f : r->objects) {
          for (const auto& [b, e] : f.blob->retained()->ranges())
            EXPECT_LE(e, f.blob->bytes().size());
        }
      }
      (void)CachedWheelTexts(kUrl, ReadLimits{});
    }
  }
  // Some flips land in bytes that change nothing structural (a note's text, a stored byte).
  EXPECT_GT(loaded, 0);
  // Truncated at every length: a miss.
  for (size_t n = 0; n < good.size(); n += 7) {
    std::string cut = good.substr(0, n);
    Reseal(&cut);
    WriteAll(home.entry(), cut);
    EXPECT_FALSE(LoadCachedWheel(kUrl, ReadLimits{}).has_value()) << "length " << n;
  }
}

TEST(WheelCacheTest, NoDigestNoEntry) {
  CacheHome home;
  const std::string url = "http://127.0.0.1:1/ok/other-1.0-py3-none-any.whl";
  StoreCachedWheel(url, Sample(), ReadLimits{});
  EXPECT_FALSE(LoadCachedWheel(url, ReadLimits{}).has_value());
  EXPECT_TRUE(ListCachedItems().empty());
}

}  // namespace
}  // namespace abicheck
