// Parsing of ld.so.cache: header "glibc-ld.so.cache" "1.1", nlibs, len_strings, then 24-byte
// entries {int32 flags; uint32 key, value; uint32 osversion; uint64 hwcap}, string offsets
// relative to the new-format header (glibc elf/dl-cache.c, sysdeps/generic/dl-cache.h).
#include "lib/resolve/ld_cache.h"

#include <algorithm>
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

// _dl_cache_libcmp: byte order, except that runs of digits compare as numbers ("libfoo.so.10"
// after "libfoo.so.9"), and a digit sorts after any other byte. `a` is the name looked up.
int CacheLibCmp(absl::string_view a, absl::string_view b) {
  // Up to the first difference the two agree; the comparison starts at the digit run that holds
  // it (the names in a search mostly share their "lib" and differ in a letter).
  size_t i = 0;
  const size_t common = std::min(a.size(), b.size());
  while (i < common && a[i] == b[i]) ++i;
  while (i > 0 && a[i - 1] >= '0' && a[i - 1] <= '9') --i;
  size_t j = i;
  auto digit = [](absl::string_view s, size_t k) {
    return k < s.size() && s[k] >= '0' && s[k] <= '9';
  };
  auto at = [](absl::string_view s, size_t k) {  // glibc's plain char: signed on x86
    return k < s.size() ? static_cast<int>(static_cast<signed char>(s[k])) : 0;
  };
  while (i < a.size()) {
    if (digit(a, i)) {
      if (!digit(b, j)) return 1;
      // glibc's int arithmetic, wrapping as it does for absurd runs.
      uint32_t va = 0, vb = 0;
      while (digit(a, i)) va = va * 10 + static_cast<uint32_t>(a[i++] - '0');
      while (digit(b, j)) vb = vb * 10 + static_cast<uint32_t>(b[j++] - '0');
      if (va != vb) return static_cast<int>(va - vb);
    } else if (digit(b, j)) {
      return -1;
    } else if (at(a, i) != at(b, j)) {
      return at(a, i) - at(b, j);
    } else {
      ++i;
      ++j;
    }
  }
  return -at(b, j);
}

}  // namespace

LdCache::LdCache() = default;
LdCache::~LdCache() = default;
LdCache::LdCache(const LdCache&) = default;
LdCache::LdCache(LdCache&&) noexcept = default;
LdCache& LdCache::operator=(const LdCache&) = default;
LdCache& LdCache::operator=(LdCache&&) noexcept = default;

absl::StatusOr<LdCache> LdCache::Parse(absl::string_view name, absl::Span<const uint8_t> input) {
  auto copy =
      std::make_shared<std::string>(reinterpret_cast<const char*>(input.data()), input.size());
  const absl::Span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(copy->data()),
                                        copy->size());
  return ParseKept(name, std::move(copy), bytes);
}

absl::StatusOr<LdCache> LdCache::ParseKept(absl::string_view name,
                                           std::shared_ptr<const void> owner,
                                           absl::Span<const uint8_t> bytes) {
  LdCache cache;
  cache.owner_ = std::move(owner);
  cache.bytes_ = bytes;
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
  cache.base_ = base;
  cache.nlibs_ = *nlibs;
  return cache;
}

absl::StatusOr<LdCache> LdCache::Read(const std::string& path) {
  absl::StatusOr<MappedFile> f = MappedFile::Open(path);
  if (!f.ok()) {
    if (absl::IsNotFound(f.status())) return LdCache();
    return f.status();
  }
  auto kept = std::make_shared<const MappedFile>(*std::move(f));
  const absl::Span<const uint8_t> bytes = kept->bytes();
  return ParseKept(path, std::move(kept), bytes);
}

std::optional<absl::string_view> LdCache::String(uint32_t offset) const {
  return ByteReader(bytes_, false).CString(base_ + offset);
}

// Long: glibc's SEARCH_CACHE step by step, each step where it decides.
std::optional<std::string> LdCache::Lookup(absl::string_view soname, uint16_t e_machine) const {
  if (nlibs_ == 0) return std::nullopt;
  const ByteReader r(bytes_, false);
  const int32_t wanted = CacheFlagsFor(e_machine);
  auto entry = [&](int64_t i) {
    return base_ + kHeaderSize + static_cast<uint64_t>(i) * kEntrySize;
  };
  // The name of entry i compared with `soname`, or nullopt when its key is bogus.
  auto compare = [&](int64_t i) -> std::optional<int> {
    const std::optional<absl::string_view> key = String(r.ReadChecked<uint32_t>(entry(i) + 4));
    if (!key) return std::nullopt;
    return CacheLibCmp(soname, *key);
  };
  int64_t left = 0, right = int64_t{nlibs_} - 1;
  while (left <= right) {
    int64_t middle = (left + right) / 2;
    const std::optional<int> cmp = compare(middle);
    if (!cmp) return std::nullopt;  // a bogus key: glibc gives up (cmpres = 1; break)
    if (*cmp == 0) {
      left = middle;
      while (middle > 0) {  // back to the first entry of the name
        const std::optional<int> before = compare(middle - 1);
        if (!before || *before != 0) break;
        --middle;
      }
      for (; middle <= right; ++middle) {
        if (middle > left) {
          const std::optional<int> same = compare(middle);
          if (!same || *same != 0) break;
        }
        const uint64_t at = entry(middle);
        if (static_cast<int32_t>(r.ReadChecked<uint32_t>(at)) != wanted) continue;
        if (r.ReadChecked<uint64_t>(at + 16) != 0) continue;  // glibc-hwcaps: ARCHITECTURE.md
        const std::optional<absl::string_view> value = String(r.ReadChecked<uint32_t>(at + 8));
        if (!value) continue;  // _dl_cache_verify_ptr fails: not a candidate
        return std::string(*value);
      }
      return std::nullopt;
    }
    if (*cmp < 0) {
      left = middle + 1;
    } else {
      right = middle - 1;
    }
  }
  return std::nullopt;
}

}  // namespace abicheck
