// Parsing of ld.so.cache: header "glibc-ld.so.cache" "1.1", nlibs, len_strings, then 24-byte
// entries {int32 flags; uint32 key, value; uint32 osversion; uint64 hwcap}, string offsets
// relative to the new-format header (glibc elf/dl-cache.c, sysdeps/generic/dl-cache.h).
#include "lib/resolve/ld_cache.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/elf/elf_constants.h"
#include "lib/io/byte_reader.h"
#include "lib/io/mapped_file.h"

namespace abicheck {
namespace {

constexpr absl::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr absl::string_view kOldMagic = "ld.so-1.7.0";
constexpr uint64_t kHeaderSize = 48;
constexpr uint64_t kEntrySize = 24;

// _DL_CACHE_DEFAULT_ID for the loader of each machine (sysdeps/*/dl-cache.h).
int32_t CacheFlagsFor(uint16_t machine) {
  switch (machine) {
    case elf::EM_X86_64:
      return 0x0303;
    case elf::EM_AARCH64:
      return 0x0a03;
    default:  // EM_386 and the rest: FLAG_ELF_LIBC6
      return 0x0003;
  }
}

}  // namespace

LdCache::LdCache() = default;
LdCache::~LdCache() = default;
LdCache::LdCache(const LdCache&) = default;
LdCache::LdCache(LdCache&&) noexcept = default;
LdCache& LdCache::operator=(const LdCache&) = default;
LdCache& LdCache::operator=(LdCache&&) noexcept = default;

absl::StatusOr<LdCache> LdCache::Parse(absl::string_view name, absl::Span<const uint8_t> input) {
  LdCache cache;
  auto copy =
      std::make_shared<std::string>(reinterpret_cast<const char*>(input.data()), input.size());
  cache.bytes_ = copy;
  absl::Span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(copy->data()), copy->size());
  ByteReader r(bytes, false);
  uint64_t base = 0;
  auto has_magic = [&](uint64_t at, absl::string_view magic) {
    return r.Contains(at, magic.size()) &&
           std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
  };
  if (has_magic(0, kOldMagic)) {
    // Old format followed by the new one: skip nlibs 12-byte old entries, align to 8.
    std::optional<uint32_t> nlibs = r.ReadAt<uint32_t>(12);
    if (!nlibs) return absl::DataLossError(absl::StrCat(name, ": old-format header truncated"));
    base = 16 + uint64_t{*nlibs} * 12;
    base = (base + 7) & ~uint64_t{7};
  }
  if (!has_magic(base, kNewMagic)) {
    if (bytes.empty()) return cache;
    return absl::DataLossError(absl::StrCat(name, ": not a glibc-ld.so.cache1.1 file"));
  }
  std::optional<uint32_t> nlibs = r.ReadAt<uint32_t>(base + 20);
  if (!nlibs || !r.Contains(base + kHeaderSize, uint64_t{*nlibs} * kEntrySize)) {
    return absl::DataLossError(
        absl::StrFormat("%s: %u entries run past the end of the file", name, nlibs.value_or(0)));
  }
  for (uint32_t i = 0; i < *nlibs; ++i) {
    const uint64_t at = base + kHeaderSize + uint64_t{i} * kEntrySize;
    int32_t flags = static_cast<int32_t>(*r.ReadAt<uint32_t>(at));
    uint32_t key = *r.ReadAt<uint32_t>(at + 4);
    uint32_t value = *r.ReadAt<uint32_t>(at + 8);
    uint64_t hwcap = *r.ReadAt<uint64_t>(at + 16);
    if (hwcap != 0) continue;  // glibc-hwcaps subdirectory entries: see ARCHITECTURE.md
    std::optional<absl::string_view> k = r.CString(base + key);
    std::optional<absl::string_view> v = r.CString(base + value);
    if (!k || !v) {
      return absl::DataLossError(
          absl::StrFormat("%s: entry %u: string offset outside the file", name, i));
    }
    cache.entries_.try_emplace(std::make_pair(*k, flags), *v);
  }
  return cache;
}

absl::StatusOr<LdCache> LdCache::Read(const std::string& path) {
  absl::StatusOr<MappedFile> f = MappedFile::Open(path);
  if (!f.ok()) {
    if (absl::IsNotFound(f.status())) return LdCache();
    return f.status();
  }
  return Parse(path, f->bytes());
}

std::optional<std::string> LdCache::Lookup(absl::string_view soname, uint16_t e_machine) const {
  auto it = entries_.find(std::make_pair(soname, CacheFlagsFor(e_machine)));
  if (it == entries_.end()) return std::nullopt;
  return std::string(it->second);
}

}  // namespace abicheck
