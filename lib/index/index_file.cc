// Index format v4 (docs/index-format.md):
//   header (96 bytes): magic "ABICHKIX", u32 version, u32 flags (0), u64 file size,
//     u32 crc32c of bytes [96, base-name section offset), u32 crc32c of the base-name section,
//     u64 toc offset, u64 toc size, u64 name section offset, u64 name section size, u64 name
//     blocks offset, u64 name blocks size, u64 base-name section offset, u64 its size
//   stored library bytes: headers, PT_DYNAMIC and its strings, version tables and their strings
//     (each range at most once: identical ranges are shared)
//   the name section (lib/index/name_blocks.h)
//   table of contents (below)
//   the base-name section (lib/index/name_blocks.h): verified when a diagnosis first uses it
//   the compressed name blocks, last: each verified by its own CRC-32C when a lookup decodes it
//   table of contents: u32 builds; per build: str name, u32 libraries, u32 library index...,
//     str wheel (the wheel it was made from, or ""), u32 texts, per text: str name, str text;
//     u32 libraries; per library: str name, str path, u64 size, u8 flags (bit 0: it has a hash
//     table, bit 1: .gnu.version), u8 std::string-ABI markers, u32 entries, u32 ranges;
//     per range: u64 file offset, u64 length, u64 index offset
// All integers little-endian; str = u32 length + bytes.
#include "lib/index/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/records.h"
#include "lib/index/index_layout.h"
#include "lib/index/name_blocks.h"
#include "lib/io/byte_reader.h"
#include "lib/io/mapped_file.h"
#include "lib/io/output_file.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/read_trace.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

constexpr uint64_t kHeader = index_layout::kFileHeaderSize;

using index_layout::Crc32c;

using index_layout::PutU32;
using index_layout::PutU64;
void PutStr(std::string* s, const std::string& v) {
  PutU32(s, static_cast<uint32_t>(v.size()));
  s->append(v);
}

// The headers of the hash tables PT_DYNAMIC names (DT_GNU_HASH, DT_HASH) as (file offset, size):
// stored for a library whose tables have no buckets (ld.so skips it), so that a reader can tell
// it from a table of contents whose "no hash table" lies (docs/index-format.md).
std::vector<std::pair<uint64_t, uint64_t>> HashHeaders(const ElfFile& elf) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [tag, size] : {std::pair{elf::DT_GNU_HASH, elf::kGnuHashHeaderSize},
                                  std::pair{elf::DT_HASH, elf::kSysvHashHeaderSize}}) {
    if (std::optional<uint64_t> at = elf.DynamicValue(tag)) {
      if (std::optional<ByteReader> r = elf.VaddrSlice(*at, size))
        out.emplace_back(elf.OffsetOf(*r), size);
    }
  }
  return out;
}

// A stored library's table-of-contents flags against its stored dynamic section: "" when they
// agree, else what differs. A hash table it says is absent must have no buckets, as stored.
std::string FlagsDisagree(const ParsedElf& parsed, const SparseImage& image, bool has_hash_table,
                          bool has_versym) {
  const ElfFile& elf = *parsed.elf;
  const bool hash_tag = elf.DynamicValue(elf::DT_GNU_HASH) || elf.DynamicValue(elf::DT_HASH);
  if (has_hash_table && !hash_tag)
    return "the table of contents says it has a hash table, its dynamic section names none";
  if (!has_hash_table && hash_tag) {
    const char* const says =
        "the table of contents says it has no hash table, its dynamic section names one";
    for (const int64_t tag : {elf::DT_GNU_HASH, elf::DT_HASH}) {
      const std::optional<uint64_t> at = elf.DynamicValue(tag);
      if (!at) continue;
      const bool gnu = tag == elf::DT_GNU_HASH;
      std::optional<ByteReader> r =
          elf.VaddrSlice(*at, gnu ? elf::kGnuHashHeaderSize : elf::kSysvHashHeaderSize);
      if (!r || !image.retained()->Covers(elf.OffsetOf(*r), elf.OffsetOf(*r) + r->size()))
        return absl::StrCat(says, " not stored");
      const std::optional<uint32_t> buckets =
          gnu ? (elf::ReadGnuHashHeader(*r) ? std::optional(elf::ReadGnuHashHeader(*r)->nbuckets)
                                            : std::nullopt)
              : (elf::ReadSysvHashHeader(*r) ? std::optional(elf::ReadSysvHashHeader(*r)->nbucket)
                                             : std::nullopt);
      if (buckets.value_or(1) != 0) return absl::StrCat(says, " with buckets");
    }
  }
  if (has_versym != elf.DynamicValue(elf::DT_VERSYM).has_value())
    return has_versym ? "the table of contents says it has .gnu.version, its dynamic section "
                        "names no DT_VERSYM"
                      : "the table of contents says it has no .gnu.version, its dynamic section "
                        "names DT_VERSYM";
  return "";
}

}  // namespace

bool HasIndexMagic(absl::Span<const uint8_t> head) {
  return head.size() >= sizeof(index_layout::kMagic) &&
         std::memcmp(head.data(), index_layout::kMagic, sizeof(index_layout::kMagic)) == 0;
}

// Long: the index's layout written in file order (docs/index-format.md), section by section,
// as ReadIndex verifies it.
absl::StatusOr<IndexStats> WriteIndex(const std::vector<IndexedBuild>& builds,
                                      const std::string& path) {
  IndexStats stats;
  std::string body(kHeader, '\0');
  std::string toc;
  absl::flat_hash_map<uint64_t, std::vector<uint64_t>> by_crc;  // (crc << 32 ^ len) -> body offsets
  struct Lib {
    std::string name, path;
    uint64_t size;
    uint8_t flags, markers;
    uint32_t entries;
    std::vector<std::array<uint64_t, 3>> ranges;
  };
  std::vector<Lib> libs;
  std::vector<ParsedElf> parsed_libs;  // the names below point into them
  NameBlocksWriter names;
  std::vector<std::vector<uint32_t>> members(builds.size());
  for (size_t b = 0; b < builds.size(); ++b) {
    for (const InputFile& f : builds[b].objects) {
      ABICHECK_ASSIGN_OR_RETURN(ParsedElf parsed, ParseElf(f));
      const SymbolTable& t = *parsed.syms;
      const uint32_t id = static_cast<uint32_t>(libs.size());
      Lib lib{f.name, f.path, f.blob->bytes().size(), 0, t.StringAbiMarkers(), 0, {}};
      lib.flags = (t.has_hash_table() ? 1 : 0) | (t.has_versym() ? 2 : 0);
      // The entries do_lookup_x can meet, name by name, in the library's own chain order. Entries
      // check_match always passes over (no value, a type it never binds) are left out.
      if (t.has_hash_table()) {
        absl::flat_hash_set<absl::string_view> seen;
        std::optional<uint32_t> bad = t.ForEachSymbol([&](const Symbol& s) {
          if (s.name.empty() || !seen.insert(s.name).second) return;
          t.ForEachNamedSymbol(HashedName(s.name), [&](const Symbol& e, uint16_t vs) {
            if (!IsLookupCandidate(e)) return false;
            ExternalSymbols::Entry entry;
            entry.info = e.info;
            entry.other = e.other;
            entry.shndx = e.shndx;
            entry.versym = vs;
            entry.has_value = e.value != 0;
            names.Add(s.name, id, entry);
            ++lib.entries;
            return false;
          });
        });
        if (bad)
          return absl::DataLossError(absl::StrFormat(
              "%s: .dynsym entry %u: name offset is outside .dynstr", f.name, *bad));
        ABICHECK_RETURN_IF_ERROR(t.status());
      }
      RangeSet keep;
      for (const auto& [off, len] : t.HeaderFootprint()) keep.Add(off, off + len);
      if (!t.has_hash_table()) {
        for (const auto& [off, len] : HashHeaders(*parsed.elf)) keep.Add(off, off + len);
      }
      for (const auto& [begin, end] : keep.ranges()) {
        if (end > f.blob->bytes().size())
          return absl::DataLossError(absl::StrCat(f.name, ": tables run past the end"));
        absl::Span<const uint8_t> bytes = f.blob->bytes().subspan(begin, end - begin);
        const uint64_t key = (uint64_t{Crc32c(bytes)} << 32) ^ bytes.size();
        uint64_t at = 0;
        for (uint64_t cand : by_crc[key]) {
          if (std::memcmp(body.data() + cand, bytes.data(), bytes.size()) == 0) at = cand;
        }
        if (at == 0) {
          at = body.size();
          body.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
          by_crc[key].push_back(at);
        }
        lib.ranges.push_back({begin, bytes.size(), at});
      }
      members[b].push_back(id);
      libs.push_back(std::move(lib));
      parsed_libs.push_back(std::move(parsed));
    }
  }
  const uint64_t names_offset = body.size();
  ABICHECK_ASSIGN_OR_RETURN(NameBlocksWriter::Output section, names.Finish());
  body += section.section;
  const uint64_t names_size = body.size() - names_offset;
  stats.names = names.names();
  PutU32(&toc, static_cast<uint32_t>(builds.size()));
  for (size_t b = 0; b < builds.size(); ++b) {
    PutStr(&toc, builds[b].name);
    PutU32(&toc, static_cast<uint32_t>(members[b].size()));
    for (uint32_t i : members[b]) PutU32(&toc, i);
    PutStr(&toc, builds[b].wheel);
    PutU32(&toc, static_cast<uint32_t>(builds[b].texts.size()));
    for (const auto& [name, text] : builds[b].texts) {
      PutStr(&toc, name);
      PutStr(&toc, text);
    }
  }
  PutU32(&toc, static_cast<uint32_t>(libs.size()));
  for (const Lib& l : libs) {
    PutStr(&toc, l.name);
    PutStr(&toc, l.path);
    PutU64(&toc, l.size);
    toc.push_back(static_cast<char>(l.flags));
    toc.push_back(static_cast<char>(l.markers));
    PutU32(&toc, l.entries);
    PutU32(&toc, static_cast<uint32_t>(l.ranges.size()));
    for (const auto& r : l.ranges) {
      PutU64(&toc, r[0]);
      PutU64(&toc, r[1]);
      PutU64(&toc, r[2]);
    }
  }
  const uint64_t toc_offset = body.size();
  body += toc;
  const uint64_t base_names_offset = body.size();
  body += section.base_names;
  const uint64_t blocks_offset = body.size();
  body += section.blocks;
  index_layout::FileHeader h;
  h.version = kIndexFormatVersion;
  h.file_size = body.size();
  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  h.crc = Crc32c({bytes + kHeader, base_names_offset - kHeader});
  h.base_names_crc = Crc32c({bytes + base_names_offset, section.base_names.size()});
  h.base_names_offset = base_names_offset;
  h.base_names_size = section.base_names.size();
  h.toc_offset = toc_offset;
  h.toc_size = toc.size();
  h.names_offset = names_offset;
  h.names_size = names_size;
  h.blocks_offset = blocks_offset;
  h.blocks_size = section.blocks.size();
  body.replace(0, kHeader, index_layout::EncodeFileHeader(h));
  ABICHECK_RETURN_IF_ERROR(WriteFileAtomically(path, body));
  stats.file_bytes = body.size();
  stats.libraries = libs.size();
  return stats;
}

// Long: the index's layout verified in file order (docs/index-format.md), each bound and
// checksum beside the section it guards; WriteIndex writes the same order.
absl::StatusOr<std::vector<IndexedBuild>> ReadIndex(const std::string& path) {
  GlobalReadTrace().index_reads.fetch_add(1, std::memory_order_relaxed);
  ABICHECK_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::Open(path));
  auto file = std::make_shared<MappedFile>(std::move(mapped));
  ByteReader r(file->bytes(), false);
  auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(path, ": index ", what));
  };
  if (!HasIndexMagic(file->bytes()))
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an abicheck index"));
  const std::optional<index_layout::FileHeader> h = index_layout::DecodeFileHeader(r);
  if (!h) return corrupt("header truncated");
  const uint32_t version = h->version;
  if (version != kIndexFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: index format version %d; this abicheck reads version %d "
                        "(rebuild the index with `abicheck index`)",
                        path, version, kIndexFormatVersion));
  }
  const uint64_t size = h->file_size;
  if (size != r.size()) {
    return corrupt(absl::StrFormat("is %d bytes, its header says %d (truncated or appended to)",
                                   r.size(), size));
  }
  // The checksum covers everything but the base-name section and the compressed name blocks,
  // which carry their own and are verified when they are used: a check reads a few hundred blocks
  // of several thousand, and the base names only when it diagnoses.
  const uint64_t blocks_off = h->blocks_offset, blocks_size = h->blocks_size;
  if (blocks_off < kHeader || blocks_off > size || blocks_size != size - blocks_off) {
    return corrupt("name blocks do not end the file");
  }
  const uint64_t base_off = h->base_names_offset, base_size = h->base_names_size;
  if (base_off < kHeader || base_off > blocks_off || base_size != blocks_off - base_off) {
    return corrupt("the base-name section does not end where the name blocks begin");
  }
  if (h->crc != Crc32c(file->bytes().subspan(kHeader, base_off - kHeader))) {
    return corrupt("checksum mismatch: the file is corrupt");
  }
  const uint64_t toc_off = h->toc_offset, toc_size = h->toc_size;
  const uint64_t names_off = h->names_offset, names_size = h->names_size;
  std::optional<ByteReader> toc = r.Slice(toc_off, toc_size);
  if (!toc || toc_off + toc_size > base_off) return corrupt("table of contents runs past the end");
  std::optional<ByteReader> names_section = r.Slice(names_off, names_size);
  if (!names_section || names_off + names_size > base_off)
    return corrupt("name section runs past the end");
  const ByteReader block_data = *r.Slice(blocks_off, blocks_size);
  const ByteReader base_names = *r.Slice(base_off, base_size);
  uint64_t at = 0;
  auto u8 = [&]() -> std::optional<uint8_t> {
    std::optional<uint8_t> v = toc->ReadAt<uint8_t>(at);
    at += 1;
    return v;
  };
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
  struct BuildEntry {
    std::string name;
    std::vector<uint32_t> ids;
    std::string wheel;
    std::vector<std::pair<std::string, std::string>> texts;
  };
  std::vector<BuildEntry> build_members;
  for (uint32_t b = 0; b < *nbuilds; ++b) {
    const std::string unreadable = absl::StrFormat("build %d is unreadable", b);
    std::optional<std::string> name = str();
    std::optional<uint32_t> n = u32();
    if (!name || !n || *n > toc_size) return corrupt(unreadable);
    BuildEntry e{*name, {}, {}, {}};
    for (uint32_t i = 0; i < *n; ++i) {
      std::optional<uint32_t> id = u32();
      if (!id) return corrupt(unreadable);
      e.ids.push_back(*id);
    }
    std::optional<std::string> wheel = str();
    std::optional<uint32_t> ntexts = u32();
    if (!wheel || !ntexts || *ntexts > toc_size) return corrupt(unreadable);
    e.wheel = *std::move(wheel);
    for (uint32_t i = 0; i < *ntexts; ++i) {
      std::optional<std::string> text_name = str(), text = str();
      if (!text_name || !text) return corrupt(unreadable);
      e.texts.emplace_back(*std::move(text_name), *std::move(text));
    }
    build_members.push_back(std::move(e));
  }
  std::optional<uint32_t> nlibs = u32();
  if (!nlibs || *nlibs > toc_size) return corrupt("library count is unreadable");
  struct Lib {
    std::string name, path;
    std::shared_ptr<SparseImage> image;
    ExternalLibrary ext;
  };
  std::vector<Lib> libs;
  std::vector<uint8_t> markers;
  for (uint32_t l = 0; l < *nlibs; ++l) {
    const std::string where = absl::StrFormat("library %d", l);
    std::optional<std::string> name = str(), lpath = str();
    std::optional<uint64_t> lsize = u64();
    std::optional<uint8_t> flags = u8(), marks = u8();
    std::optional<uint32_t> entries = u32(), nranges = u32();
    if (!name || !lpath || !lsize || !flags || !marks || !entries || !nranges ||
        *lsize > (uint64_t{1} << 40) || *nranges > toc_size) {
      return corrupt(absl::StrCat(where, " is unreadable"));
    }
    // The original file's size, reserved and never touched but where stored bytes are copied.
    std::shared_ptr<SparseImage> image = SparseImage::Create(*lsize);
    if (image == nullptr)
      return absl::ResourceExhaustedError(absl::StrCat(path, ": cannot reserve address space"));
    for (uint32_t i = 0; i < *nranges; ++i) {
      std::optional<uint64_t> off = u64(), len = u64(), idx = u64();
      if (!off || !len || !idx || *len == 0 || *off > *lsize || *len > *lsize - *off ||
          !r.Contains(*idx, *len) || *idx < kHeader || *idx + *len > names_off) {
        return corrupt(absl::StrFormat("%s (%s): range %d lies outside the library or the index",
                                       where, *name, i));
      }
      std::memcpy(image->mutable_data() + *off, file->bytes().data() + *idx, *len);
      image->mutable_retained().Add(*off, *off + *len);
    }
    Lib lib{*name, *lpath, std::move(image), {}};
    lib.ext.library = l;
    lib.ext.entries = *entries;
    lib.ext.has_hash_table = (*flags & 1) != 0;
    lib.ext.has_versym = (*flags & 2) != 0;
    markers.push_back(*marks);
    libs.push_back(std::move(lib));
  }
  if (at != toc_size) return corrupt("table of contents: bytes follow its last library");
  ABICHECK_ASSIGN_OR_RETURN(std::shared_ptr<NameBlocks> blocks,
                            NameBlocks::Open(path, *names_section, block_data, base_names,
                                             h->base_names_crc, file, std::move(markers)));
  uint64_t entries = 0;
  for (const Lib& lib : libs) entries += lib.ext.entries;
  if (entries != blocks->record_count()) {
    return corrupt(
        absl::StrFormat("table of contents: its libraries have %d entries, the name section %d",
                        entries, blocks->record_count()));
  }
  std::vector<InputFile> inputs;
  for (uint32_t l = 0; l < libs.size(); ++l) {
    Lib& lib = libs[l];
    lib.ext.symbols = blocks;
    InputFile f{lib.name, lib.path, lib.image, std::make_shared<ExternalLibrary>(lib.ext)};
    // What the loader model will read must be among the stored bytes: never a guess.
    absl::StatusOr<ParsedElf> parsed = ParseElf(f);
    if (!parsed.ok())
      return corrupt(
          absl::StrFormat("library %d (%s): %s", l, lib.name, parsed.status().message()));
    for (const auto& [o, n] : parsed->syms->HeaderFootprint()) {
      if (!lib.image->retained()->Covers(o, o + n)) {
        return corrupt(
            absl::StrFormat("library %d (%s): its tables are not all stored", l, lib.name));
      }
    }
    if (const std::string why =
            FlagsDisagree(*parsed, *lib.image, lib.ext.has_hash_table, lib.ext.has_versym);
        !why.empty()) {
      return corrupt(absl::StrFormat("library %d (%s): %s", l, lib.name, why));
    }
    inputs.push_back(std::move(f));
  }
  std::vector<IndexedBuild> builds;
  for (BuildEntry& e : build_members) {
    const std::string& name = e.name;
    const std::vector<uint32_t>& ids = e.ids;
    IndexedBuild b{name, {}, std::move(e.wheel), std::move(e.texts)};
    std::vector<bool> named(inputs.size());
    for (uint32_t id : ids) {
      if (id >= inputs.size())
        return corrupt(absl::StrFormat("build %s names library %d of %d", name, id, inputs.size()));
      if (named[id]) return corrupt(absl::StrFormat("build %s names library %d twice", name, id));
      named[id] = true;
      b.objects.push_back(inputs[id]);
    }
    builds.push_back(std::move(b));
  }
  return builds;
}

}  // namespace abicheck
