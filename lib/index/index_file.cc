// Index format v1 (docs/index-format.md):
//   header (64 bytes): magic "ABICHKIX", u32 version, u32 flags (0), u64 file size,
//     u32 crc32c of bytes [64, file size), u32 0, u64 table-of-contents offset, u64 toc size, 16 x 0
//   page-aligned ranges of library bytes (each at most once: identical ranges are shared)
//   table of contents: u32 builds; per build: str name, u32 libraries, u32 library index...;
//     u32 libraries; per library: str name, str path, u64 size, u32 ranges;
//     per range: u64 file offset, u64 length, u64 index offset
// All integers little-endian; str = u32 length + bytes.
#include "lib/index/index_file.h"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/elf/elf_file.h"
#include "lib/io/byte_reader.h"
#include "lib/io/mapped_file.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kHeader = 64;

uint32_t Crc(absl::Span<const uint8_t> b) {
  uint32_t crc = 0;
  for (size_t at = 0; at < b.size();) {
    const size_t n = std::min<size_t>(b.size() - at, size_t{1} << 30);
    crc = crc32_iscsi(const_cast<uint8_t*>(b.data() + at), static_cast<int>(n), crc);
    at += n;
  }
  return crc;
}

void PutU32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void PutU64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
void PutStr(std::string* s, const std::string& v) {
  PutU32(s, static_cast<uint32_t>(v.size()));
  s->append(v);
}

// The bytes a provider's check reads, rounded out to pages so they can be mapped in place.
std::vector<std::pair<uint64_t, uint64_t>> PageRanges(const SymbolTable& t, uint64_t size) {
  RangeSet pages;
  for (const auto& [off, len] : t.Footprint(/*with_relocations=*/false)) {
    const uint64_t b = off / kPage * kPage, e = std::min(size, (off + len + kPage - 1) / kPage * kPage);
    pages.Add(b, e);
  }
  return pages.ranges();
}

// A library mapped back from an index: an anonymous reservation the size of the original file,
// with the stored page ranges mapped over it at their original offsets.
class IndexBlob final : public Blob {
 public:
  ~IndexBlob() override {
    if (base_ != nullptr) ::munmap(base_, size_);
  }
  absl::Span<const uint8_t> bytes() const override { return {base_, size_}; }
  const RangeSet* retained() const override { return &retained_; }

  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  RangeSet retained_;
};

}  // namespace

bool HasIndexMagic(absl::Span<const uint8_t> head) {
  return head.size() >= 8 && std::memcmp(head.data(), kIndexMagic, 8) == 0;
}

absl::StatusOr<IndexStats> WriteIndex(const std::vector<IndexedBuild>& builds, const std::string& path) {
  IndexStats stats;
  std::string body(kHeader, '\0');
  std::string toc;
  absl::flat_hash_map<uint64_t, std::vector<uint64_t>> by_crc;  // (crc ^ len) -> body offsets
  struct Lib {
    std::string name, path;
    uint64_t size;
    std::vector<std::array<uint64_t, 3>> ranges;
  };
  std::vector<Lib> libs;
  std::vector<std::vector<uint32_t>> members(builds.size());
  for (size_t b = 0; b < builds.size(); ++b) {
    for (const InputFile& f : builds[b].objects) {
      ABICHECK_ASSIGN_OR_RETURN(ParsedElf parsed, ParseElf(f.name, f.blob->bytes()));
      std::vector<std::pair<uint64_t, uint64_t>> ranges = PageRanges(*parsed.syms, f.blob->bytes().size());
      Lib lib{f.name, f.path, f.blob->bytes().size(), {}};
      for (const auto& [begin, end] : ranges) {
        absl::Span<const uint8_t> bytes = f.blob->bytes().subspan(begin, end - begin);
        const uint64_t key = (uint64_t{Crc(bytes)} << 32) ^ bytes.size();
        uint64_t at = 0;
        for (uint64_t cand : by_crc[key]) {
          if (std::memcmp(body.data() + cand, bytes.data(), bytes.size()) == 0) at = cand;
        }
        if (at == 0) {
          body.resize((body.size() + kPage - 1) / kPage * kPage, '\0');
          at = body.size();
          body.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
          by_crc[key].push_back(at);
          stats.table_bytes += bytes.size();
        } else {
          stats.deduplicated += bytes.size();
        }
        lib.ranges.push_back({begin, bytes.size(), at});
      }
      members[b].push_back(static_cast<uint32_t>(libs.size()));
      libs.push_back(std::move(lib));
    }
  }
  PutU32(&toc, static_cast<uint32_t>(builds.size()));
  for (size_t b = 0; b < builds.size(); ++b) {
    PutStr(&toc, builds[b].name);
    PutU32(&toc, static_cast<uint32_t>(members[b].size()));
    for (uint32_t i : members[b]) PutU32(&toc, i);
  }
  PutU32(&toc, static_cast<uint32_t>(libs.size()));
  for (const Lib& l : libs) {
    PutStr(&toc, l.name);
    PutStr(&toc, l.path);
    PutU64(&toc, l.size);
    PutU32(&toc, static_cast<uint32_t>(l.ranges.size()));
    for (const auto& r : l.ranges) {
      PutU64(&toc, r[0]);
      PutU64(&toc, r[1]);
      PutU64(&toc, r[2]);
    }
  }
  const uint64_t toc_offset = body.size();
  body += toc;
  std::string header;
  header.append(kIndexMagic, 8);
  PutU32(&header, kIndexFormatVersion);
  PutU32(&header, 0);
  PutU64(&header, body.size());
  PutU32(&header, Crc({reinterpret_cast<const uint8_t*>(body.data()) + kHeader, body.size() - kHeader}));
  PutU32(&header, 0);
  PutU64(&header, toc_offset);
  PutU64(&header, toc.size());
  header.resize(kHeader, '\0');
  body.replace(0, kHeader, header);
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr || std::fwrite(body.data(), 1, body.size(), f) != body.size() || std::fclose(f) != 0 ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  stats.file_bytes = body.size();
  stats.libraries = libs.size();
  return stats;
}

absl::StatusOr<std::vector<IndexedBuild>> ReadIndex(const std::string& path) {
  ABICHECK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  ByteReader r(file.bytes(), false);
  auto corrupt = [&](absl::string_view what) { return absl::DataLossError(absl::StrCat(path, ": index ", what)); };
  if (!HasIndexMagic(file.bytes())) return absl::InvalidArgumentError(absl::StrCat(path, ": not an abicheck index"));
  if (!r.Contains(0, kHeader)) return corrupt("header truncated");
  const uint32_t version = *r.ReadAt<uint32_t>(8);
  if (version != kIndexFormatVersion) {
    return absl::FailedPreconditionError(absl::StrFormat("%s: index format version %d; this abicheck reads version %d "
                                                         "(rebuild the index with `abicheck index`)",
                                                         path, version, kIndexFormatVersion));
  }
  const uint64_t size = *r.ReadAt<uint64_t>(16);
  if (size != r.size()) {
    return corrupt(absl::StrFormat("is %d bytes, its header says %d (truncated or appended to)", r.size(), size));
  }
  if (*r.ReadAt<uint32_t>(24) != Crc(file.bytes().subspan(kHeader))) return corrupt("checksum mismatch: the file is corrupt");
  const uint64_t toc_off = *r.ReadAt<uint64_t>(32), toc_size = *r.ReadAt<uint64_t>(40);
  std::optional<ByteReader> toc = r.Slice(toc_off, toc_size);
  if (!toc) return corrupt("table of contents runs past the end");
  uint64_t at = 0;
  auto u32 = [&]() -> std::optional<uint32_t> {
    std::optional<uint32_t> v = toc->ReadAt<uint32_t>(at);
    at += 4;
    return v;
  };
  auto u64 = [&]() -> std::optional<uint64_t> {
    std::optional<uint64_t> v = toc->ReadAt<uint64_t>(at);
    at += 8;
    return v;
  };
  auto str = [&]() -> std::optional<std::string> {
    std::optional<uint32_t> n = u32();
    if (!n || !toc->Contains(at, *n)) return std::nullopt;
    std::string s(reinterpret_cast<const char*>(toc->data().data() + at), *n);
    at += *n;
    return s;
  };
  std::optional<uint32_t> nbuilds = u32();
  if (!nbuilds || *nbuilds > toc_size) return corrupt("build count is unreadable");
  std::vector<std::pair<std::string, std::vector<uint32_t>>> build_members;
  for (uint32_t b = 0; b < *nbuilds; ++b) {
    std::optional<std::string> name = str();
    std::optional<uint32_t> n = u32();
    if (!name || !n || *n > toc_size) return corrupt(absl::StrFormat("build %d is unreadable", b));
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < *n; ++i) {
      std::optional<uint32_t> id = u32();
      if (!id) return corrupt(absl::StrFormat("build %d is unreadable", b));
      ids.push_back(*id);
    }
    build_members.push_back({*name, std::move(ids)});
  }
  std::optional<uint32_t> nlibs = u32();
  if (!nlibs || *nlibs > toc_size) return corrupt("library count is unreadable");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::vector<InputFile> libs;
  for (uint32_t l = 0; l < *nlibs; ++l) {
    const std::string where = absl::StrFormat("library %d", l);
    std::optional<std::string> name = str(), lpath = str();
    std::optional<uint64_t> lsize = u64();
    std::optional<uint32_t> nranges = u32();
    if (!name || !lpath || !lsize || !nranges || *lsize > (uint64_t{1} << 40) || *nranges > toc_size) {
      return corrupt(absl::StrCat(where, " is unreadable"));
    }
    auto blob = std::make_shared<IndexBlob>();
    blob->size_ = *lsize;
    if (*lsize > 0) {
      void* p = ::mmap(nullptr, *lsize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) return absl::ResourceExhaustedError(absl::StrCat(path, ": cannot reserve address space"));
      blob->base_ = static_cast<uint8_t*>(p);
    }
    for (uint32_t i = 0; i < *nranges; ++i) {
      std::optional<uint64_t> off = u64(), len = u64(), idx = u64();
      if (!off || !len || !idx || *off % kPage != 0 || *idx % kPage != 0 || *len == 0 || *off > *lsize ||
          *len > *lsize - *off || !r.Contains(*idx, *len) || *idx + *len > toc_off) {
        return corrupt(absl::StrFormat("%s (%s): range %d lies outside the library or the index", where, *name, i));
      }
      const uint64_t maplen = (*len + kPage - 1) / kPage * kPage;
      if (::mmap(blob->base_ + *off, std::min(maplen, *lsize - *off), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
                 static_cast<off_t>(*idx)) == MAP_FAILED) {
        return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
      }
      blob->retained_.Add(*off, *off + *len);
    }
    // What the loader model will read must be among the stored bytes: never a guess.
    InputFile f{*name, *lpath, blob};
    absl::StatusOr<ParsedElf> parsed = ParseElf(*name, blob->bytes());
    if (!parsed.ok()) return corrupt(absl::StrCat(where, " (", *name, "): ", parsed.status().message()));
    for (const auto& [o, n] : parsed->syms->Footprint(false)) {
      if (!blob->retained_.Covers(o, o + n)) {
        return corrupt(absl::StrFormat("%s (%s): its tables are not all stored", where, *name));
      }
    }
    libs.push_back(std::move(f));
  }
  std::vector<IndexedBuild> builds;
  for (auto& [name, ids] : build_members) {
    IndexedBuild b{name, {}};
    for (uint32_t id : ids) {
      if (id >= libs.size()) return corrupt(absl::StrFormat("build %s names library %d of %d", name, id, libs.size()));
      b.objects.push_back(libs[id]);
    }
    builds.push_back(std::move(b));
  }
  return builds;
}

}  // namespace abicheck
