// The one chokepoint for reading untrusted bytes: every read is bounds-checked before a pointer
// is formed, fixed-size fields are decoded with memcpy (no alignment assumed) and byte-swapped
// for big-endian files. Nothing else in abicheck does arithmetic on file offsets.
#ifndef ABICHECK_LIB_IO_BYTE_READER_H_
#define ABICHECK_LIB_IO_BYTE_READER_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace abicheck {

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(absl::Span<const uint8_t> data, bool big_endian)
      : data_(data), big_endian_(big_endian) {}

  uint64_t size() const { return data_.size(); }
  bool big_endian() const { return big_endian_; }
  absl::Span<const uint8_t> data() const { return data_; }

  // True when [off, off+len) lies inside the data. Never computes off+len.
  bool Contains(uint64_t off, uint64_t len) const {
    return off <= data_.size() && len <= data_.size() - off;
  }

  template <typename T>
  std::optional<T> ReadAt(uint64_t off) const {
    static_assert(std::is_integral_v<T>);
    if (!Contains(off, sizeof(T))) return std::nullopt;
    return Decode<T>(data_.data() + off);
  }

  // A field of a record whose whole range was checked once with Contains (lib/elf/records.h
  // reads a record's fields so): `off` + sizeof(T) must lie inside that range.
  template <typename T>
  T ReadChecked(uint64_t off) const {
    static_assert(std::is_integral_v<T>);
    return Decode<T>(data_.data() + off);
  }

  // Reads an unsigned word of `width` bytes (4 or 8), as ELF32/ELF64 addresses and offsets are.
  std::optional<uint64_t> ReadWord(uint64_t off, int width) const {
    if (width == 8) return ReadAt<uint64_t>(off);
    std::optional<uint32_t> v = ReadAt<uint32_t>(off);
    if (!v) return std::nullopt;
    return *v;
  }

  std::optional<ByteReader> Slice(uint64_t off, uint64_t len) const {
    if (!Contains(off, len)) return std::nullopt;
    return ByteReader(data_.subspan(off, len), big_endian_);
  }

  // A NUL-terminated string starting at `off`; nullopt when `off` is out of range or no NUL
  // follows before the end of the data.
  std::optional<absl::string_view> CString(uint64_t off) const {
    if (off >= data_.size()) return std::nullopt;
    const void* start = data_.data() + off;
    const void* nul = std::memchr(start, 0, data_.size() - off);
    if (nul == nullptr) return std::nullopt;
    return absl::string_view(static_cast<const char*>(start),
                             static_cast<const char*>(nul) - static_cast<const char*>(start));
  }

 private:
  template <typename T>
  T Decode(const uint8_t* p) const {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if (big_endian_ && sizeof(T) > 1) v = Swap(v);
    return v;
  }
  template <typename T>
  static T Swap(T v) {
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    if constexpr (sizeof(T) == 2) u = __builtin_bswap16(u);
    if constexpr (sizeof(T) == 4) u = __builtin_bswap32(u);
    if constexpr (sizeof(T) == 8) u = __builtin_bswap64(u);
    return static_cast<T>(u);
  }

  absl::Span<const uint8_t> data_;
  bool big_endian_ = false;
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_BYTE_READER_H_
