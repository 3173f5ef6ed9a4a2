// A validated view of one ELF file as the dynamic loader sees it: ELF header, program headers,
// PT_DYNAMIC and the strings it names. Section headers are never consulted — ld.so does not read
// them either, so a stripped or section-less library reads exactly as it loads (ARCHITECTURE.md).
#ifndef ABICHECK_LIB_ELF_ELF_FILE_H_
#define ABICHECK_LIB_ELF_ELF_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/elf/records.h"
#include "lib/io/byte_reader.h"

namespace abicheck {

// Why a file could not be read as ELF. "Not ELF at all" is a classification (skip it, or say
// what the file is), anything else a corrupt-input error (kDataLoss). NotElfError is
// kInvalidArgument carrying a payload that IsNotElf tests: nothing matches message text.
absl::Status NotElfError(absl::string_view name);
// The file starts with \x7f E L F.
bool HasElfMagic(absl::Span<const uint8_t> bytes);
bool IsNotElf(const absl::Status& status);

using Segment = elf::Phdr;
using DynamicEntry = elf::Dyn;

// A DT_NEEDED, DT_AUXILIARY or DT_FILTER entry, in PT_DYNAMIC order (_dl_map_object_deps walks
// them in that order).
struct Dependency {
  int64_t tag = 0;
  absl::string_view name;
};

// open_verify's verdict on a file's first bytes, before anything is mapped
// (docs/loader-model.md A11): another class is remembered, another machine skipped, anything else
// wrong refuses the file with ld.so's words.
struct OpenVerdict {
  enum Kind { kOk, kOtherClass, kOtherMachine, kRefused };
  Kind kind = kOk;
  const char* error = nullptr;  // kRefused: ld.so's errstring
};
// `want_big_endian`: the byte order of the loader that runs (the module's).
OpenVerdict OpenVerify(absl::Span<const uint8_t> bytes, bool want_64, uint16_t want_machine,
                       bool want_big_endian = false);

class ElfFile {
 public:
  // Parses the headers of `bytes` (which must outlive the ElfFile). `name` is used in messages.
  static absl::StatusOr<ElfFile> Parse(std::string name, absl::Span<const uint8_t> bytes);

  const std::string& name() const { return name_; }
  bool is_64() const { return is_64_; }
  int word_size() const { return is_64_ ? 8 : 4; }
  bool big_endian() const { return reader_.big_endian(); }
  uint16_t type() const { return e_type_; }
  uint16_t machine() const { return e_machine_; }
  const ByteReader& reader() const { return reader_; }

  bool has_dynamic() const { return has_dynamic_; }
  // A PT_DYNAMIC with p_filesz 0 (objcopy --only-keep-debug): ld.so refuses the file.
  bool empty_dynamic() const { return empty_dynamic_; }
  const std::vector<DynamicEntry>& dynamic() const { return dynamic_; }
  // The last value of `tag` in PT_DYNAMIC, as ld.so's l_info[] keeps it (elf_get_dynamic_info
  // overwrites: docs/loader-model.md C9).
  std::optional<uint64_t> DynamicValue(int64_t tag) const;

  const std::vector<absl::string_view>& needed() const { return needed_; }
  const std::vector<Dependency>& dependencies() const { return dependencies_; }
  absl::string_view soname() const { return soname_; }
  absl::string_view rpath() const { return rpath_; }
  absl::string_view runpath() const { return runpath_; }
  bool has_runpath() const { return has_runpath_; }
  uint64_t flags_1() const { return flags_1_; }
  // PT_GNU_STACK flags, or nullopt when the header is absent (the loader then assumes PF_X).
  std::optional<uint32_t> gnu_stack_flags() const { return gnu_stack_flags_; }
  // The number of PT_LOAD program headers, and the headers.
  size_t load_count() const { return loads_.size(); }
  const std::vector<Segment>& loads() const { return loads_; }
  // PT_TLS, when there is one (its file part is .tdata, the rest .tbss).
  const std::optional<Segment>& tls() const { return tls_; }
  // GNU_PROPERTY_X86_ISA_1_NEEDED from PT_GNU_PROPERTY (bit 0 baseline, 1 x86-64-v2, 2 v3, 3 v4),
  // 0 when the object carries none.
  uint32_t x86_isa_needed() const { return x86_isa_needed_; }

  // The dynamic string table (DT_STRTAB, DT_STRSZ bytes).
  const ByteReader& dynstr() const { return dynstr_; }

  // Bytes at a virtual address, through the PT_LOAD segment that maps it (file-backed part only).
  std::optional<ByteReader> VaddrSlice(uint64_t vaddr, uint64_t len) const;
  // Everything from `vaddr` to the end of the file-backed part of its PT_LOAD segment.
  std::optional<ByteReader> VaddrToSegmentEnd(uint64_t vaddr) const;
  // Whether [vaddr, vaddr + len) lies inside one PT_LOAD segment whose p_flags include `flags`:
  // in its memory image, or with `file_backed` in its file-backed part only (past it are
  // zero-filled pages — no code there).
  bool Maps(uint64_t vaddr, uint64_t len, uint32_t flags, bool file_backed = false) const;

  std::string MachineName() const;

  // Every byte range (file offset, length) that parsing read: headers, PT_DYNAMIC, .dynstr —
  // or, with `whole_dynstr` false, only the strings PT_DYNAMIC names (what an index keeps).
  std::vector<std::pair<uint64_t, uint64_t>> Footprint(bool whole_dynstr = true) const;
  // The file offset of a reader that is a slice of this file's bytes.
  uint64_t OffsetOf(const ByteReader& slice) const {
    return slice.size() == 0 ? 0
                             : static_cast<uint64_t>(slice.data().data() - reader_.data().data());
  }

 private:
  ElfFile() = default;
  absl::Status ParseProgramHeaders(uint64_t phoff, uint16_t phentsize, uint32_t phnum);
  absl::Status ParseDynamic(const Segment& dyn);
  void ParseProperties(const Segment& note);
  // Whether the pages _dl_protect_relro makes read-only all belong to writable PT_LOADs.
  bool RelroPagesWritable(const Segment& relro) const;

  std::string name_;
  ByteReader reader_;
  bool is_64_ = true;
  uint16_t e_type_ = 0;
  uint16_t e_machine_ = 0;
  std::vector<Segment> loads_;
  std::optional<uint32_t> gnu_stack_flags_;
  std::optional<Segment> tls_;
  std::vector<std::pair<uint64_t, uint64_t>> footprint_;
  std::vector<std::pair<uint64_t, uint64_t>> string_footprint_;  // the strings PT_DYNAMIC names
  bool has_dynamic_ = false;
  bool empty_dynamic_ = false;
  std::vector<DynamicEntry> dynamic_;
  ByteReader dynstr_;
  std::vector<absl::string_view> needed_;
  std::vector<Dependency> dependencies_;
  absl::string_view soname_, rpath_, runpath_;
  uint32_t x86_isa_needed_ = 0;
  bool has_runpath_ = false;
  uint64_t flags_1_ = 0;
};

// PT_DYNAMIC's file range (offset, size) from the ELF header and program headers at the start of
// `head`, or nullopt when they are not all there: what a wheel member must keep besides its
// first bytes (lib/io/zip_archive.h RetainPlan). The first PT_DYNAMIC: a hint only, every parse
// of the kept bytes is checked for completeness (ARCHITECTURE.md "Wheels").
std::optional<std::pair<uint64_t, uint64_t>> DynamicSegmentRange(absl::Span<const uint8_t> head);
// Where the PT_LOAD segment that starts the file ends (its file size), from the file's first
// bytes: with every linker's -z separate-code, the segment of the headers and the dynamic tables
// ld.so reads (symbols, hash, versions, relocations), before the code. nullopt: none there.
std::optional<uint64_t> FirstSegmentEnd(absl::Span<const uint8_t> head);
// The section header table's file range (offset, size) from the ELF header at the start of
// `head` (with extended numbering, e_shnum 0: its first entry, which holds the count); nullopt
// when there is none or `head` is not ELF. What an archive member keeps to find its .nv_fatbin.
std::optional<std::pair<uint64_t, uint64_t>> SectionHeaderRange(absl::Span<const uint8_t> head);

// "x86-64", "AArch64", "Intel 80386", or "machine 0x..".
std::string MachineName(uint16_t e_machine);

}  // namespace abicheck

#endif  // ABICHECK_LIB_ELF_ELF_FILE_H_
