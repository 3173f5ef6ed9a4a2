// Header, program-header and PT_DYNAMIC parsing, bounds-checked through ByteReader.
#include "lib/elf/elf_file.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/elf/elf_constants.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// The payload type URL that marks NotElfError.
constexpr absl::string_view kNotElfPayload = "abicheck/not-elf";

absl::Status Corrupt(const std::string& name, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(name, ": ", what));
}

}  // namespace

OpenVerdict OpenVerify(absl::Span<const uint8_t> bytes, bool want_64, uint16_t want_machine,
                       bool want_big_endian) {
  // open_verify (dl-load.c), in its order. ld.so compares e_ident byte by byte and reads the
  // rest in its own byte order, refusing the other one first.
  auto refused = [](const char* e) { return OpenVerdict{OpenVerdict::kRefused, e}; };
  if (bytes.size() < elf::EhdrSize(want_64)) return refused("file too short");
  if (!HasElfMagic(bytes)) return refused("invalid ELF header");
  if (bytes[elf::EI_CLASS] != (want_64 ? elf::ELFCLASS64 : elf::ELFCLASS32))
    return OpenVerdict{OpenVerdict::kOtherClass, nullptr};
  if (bytes[elf::EI_DATA] != (want_big_endian ? elf::ELFDATA2MSB : elf::ELFDATA2LSB))
    return refused(want_big_endian ? "ELF file data encoding not big-endian"
                                   : "ELF file data encoding not little-endian");
  if (bytes[elf::EI_VERSION] != elf::EV_CURRENT)
    return refused("ELF file version ident does not match current one");
  const uint8_t osabi = bytes[elf::EI_OSABI], abiversion = bytes[elf::EI_ABIVERSION];
  if (osabi != elf::ELFOSABI_SYSV && osabi != elf::ELFOSABI_GNU)
    return refused("ELF file OS ABI invalid");
  // VALID_ELF_ABIVERSION: 0, or below LIBC_ABI_MAX (4 in 2.36: DEFAULT, UNIQUE, IFUNC, ABSOLUTE)
  // for ELFOSABI_GNU.
  if (abiversion != 0 && !(osabi == elf::ELFOSABI_GNU && abiversion < 4))
    return refused("ELF file ABI version invalid");
  for (int i = elf::EI_PAD; i < elf::EI_NIDENT; ++i) {
    if (bytes[i] != 0) return refused("nonzero padding in e_ident");
  }
  const elf::Ehdr h = *elf::ReadEhdr(ByteReader(bytes, want_big_endian), want_64);
  if (h.version != elf::EV_CURRENT) return refused("ELF file version does not match current one");
  if (h.machine != want_machine) return OpenVerdict{OpenVerdict::kOtherMachine, nullptr};
  if (h.type != elf::ET_DYN && h.type != elf::ET_EXEC)
    return refused("only ET_DYN and ET_EXEC can be loaded");
  if (h.phentsize != elf::PhdrSize(want_64))
    return refused("ELF file's phentsize not the expected size");
  return OpenVerdict{};
}

absl::Status NotElfError(absl::string_view name) {
  absl::Status s = absl::InvalidArgumentError(absl::StrCat(name, ": not an ELF file"));
  s.SetPayload(kNotElfPayload, absl::Cord());
  return s;
}

bool HasElfMagic(absl::Span<const uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
         bytes[3] == 'F';
}

bool IsNotElf(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument &&
         status.GetPayload(kNotElfPayload).has_value();
}

std::string MachineName(uint16_t e_machine) {
  switch (e_machine) {
    case elf::EM_386:
      return "Intel 80386";
    case elf::EM_ARM:
      return "ARM";
    case elf::EM_X86_64:
      return "x86-64";
    case elf::EM_AARCH64:
      return "AArch64";
    case elf::EM_PPC64:
      return "PowerPC64";
    case elf::EM_S390:
      return "IBM S/390";
    case elf::EM_RISCV:
      return "RISC-V";
    default:
      return absl::StrFormat("machine 0x%x", e_machine);
  }
}

namespace {

// The program headers a file's first bytes hold, in order, up to the first that is cut short;
// none when they are not ELF.
std::vector<elf::Phdr> HeadProgramHeaders(absl::Span<const uint8_t> head) {
  std::vector<elf::Phdr> out;
  if (head.size() < elf::EhdrSize(true) || !HasElfMagic(head)) return out;
  const bool is64 = head[elf::EI_CLASS] == elf::ELFCLASS64;
  const ByteReader r(head, head[elf::EI_DATA] == elf::ELFDATA2MSB);
  const elf::Ehdr h = *elf::ReadEhdr(r, is64);  // the size was checked
  for (uint32_t i = 0; i < h.phnum && h.phentsize != 0; ++i) {
    const std::optional<elf::Phdr> p = elf::ReadPhdr(r, h.phoff + uint64_t{i} * h.phentsize, is64);
    if (!p) break;
    out.push_back(*p);
  }
  return out;
}

}  // namespace

std::optional<std::pair<uint64_t, uint64_t>> DynamicSegmentRange(absl::Span<const uint8_t> head) {
  for (const elf::Phdr& p : HeadProgramHeaders(head)) {
    if (p.type == elf::PT_DYNAMIC) return std::make_pair(p.offset, p.filesz);
  }
  return std::nullopt;
}

std::optional<uint64_t> FirstSegmentEnd(absl::Span<const uint8_t> head) {
  for (const elf::Phdr& p : HeadProgramHeaders(head)) {
    if (p.type == elf::PT_LOAD && p.offset == 0) return p.filesz;
  }
  return std::nullopt;
}

std::optional<std::pair<uint64_t, uint64_t>> SectionHeaderRange(absl::Span<const uint8_t> head) {
  if (head.size() < elf::EhdrSize(true) || !HasElfMagic(head)) return std::nullopt;
  const bool is64 = head[elf::EI_CLASS] == elf::ELFCLASS64;
  const ByteReader r(head, head[elf::EI_DATA] == elf::ELFDATA2MSB);
  const elf::Ehdr h = *elf::ReadEhdr(r, is64);  // the size was checked
  if (h.shoff == 0 || h.shentsize == 0) return std::nullopt;
  const uint64_t n = h.shnum == 0 ? 1 : h.shnum;
  return std::make_pair(h.shoff, n * h.shentsize);
}

std::string ElfFile::MachineName() const { return abicheck::MachineName(e_machine_); }

absl::StatusOr<ElfFile> ElfFile::Parse(std::string name, absl::Span<const uint8_t> bytes) {
  if (!HasElfMagic(bytes)) return NotElfError(name);
  ByteReader raw(bytes, /*big_endian=*/false);
  ElfFile f;
  f.name_ = std::move(name);
  std::optional<uint8_t> ei_class = raw.ReadAt<uint8_t>(elf::EI_CLASS);
  std::optional<uint8_t> ei_data = raw.ReadAt<uint8_t>(elf::EI_DATA);
  if (!ei_class || !ei_data) return Corrupt(f.name_, "ELF header truncated (e_ident)");
  if (*ei_class != elf::ELFCLASS32 && *ei_class != elf::ELFCLASS64) {
    return Corrupt(f.name_, absl::StrFormat("ELF header: invalid EI_CLASS %u", *ei_class));
  }
  if (*ei_data != elf::ELFDATA2LSB && *ei_data != elf::ELFDATA2MSB) {
    return Corrupt(f.name_, absl::StrFormat("ELF header: invalid EI_DATA %u", *ei_data));
  }
  f.is_64_ = *ei_class == elf::ELFCLASS64;
  f.reader_ = ByteReader(bytes, *ei_data == elf::ELFDATA2MSB);
  const ByteReader& r = f.reader_;
  const uint64_t ehsize = elf::EhdrSize(f.is_64_);
  const std::optional<elf::Ehdr> h = elf::ReadEhdr(r, f.is_64_);
  if (!h) {
    return Corrupt(f.name_,
                   absl::StrFormat("ELF header truncated: file is %u bytes, header needs %u",
                                   r.size(), ehsize));
  }
  f.e_type_ = h->type;
  f.e_machine_ = h->machine;
  uint32_t phnum = h->phnum;
  if (phnum == elf::PN_XNUM) {
    // The real count lives in section header 0's sh_info.
    const uint64_t at = h->shoff + elf::ShdrInfoOffset(f.is_64_);
    std::optional<uint32_t> info = r.ReadAt<uint32_t>(at);
    f.footprint_.emplace_back(at, 4);
    if (!info) return Corrupt(f.name_, "e_phnum is PN_XNUM but section header 0 is unreadable");
    phnum = *info;
  }
  f.footprint_.emplace_back(0, ehsize);
  if (phnum > 0) f.footprint_.emplace_back(h->phoff, uint64_t{phnum} * h->phentsize);
  ABICHECK_RETURN_IF_ERROR(f.ParseProgramHeaders(h->phoff, h->phentsize, phnum));
  return f;
}

// Long: _dl_map_object_from_fd's pass over the program headers, one case per p_type with the
// loader's own checks, in its order (docs/loader-model.md A9-A12).
absl::Status ElfFile::ParseProgramHeaders(uint64_t phoff, uint16_t phentsize, uint32_t phnum) {
  const uint16_t want = elf::PhdrSize(is_64_);
  if (phnum == 0) return absl::OkStatus();  // e.g. a relocatable object: no dynamic view.
  if (phentsize != want) {
    return Corrupt(name_, absl::StrFormat("e_phentsize is %u, expected %u", phentsize, want));
  }
  if (!reader_.Contains(phoff, uint64_t{phnum} * want)) {
    return Corrupt(name_, absl::StrFormat("program headers (%u x %u bytes at 0x%x) run past the "
                                          "end of the file (0x%x)",
                                          phnum, want, phoff, reader_.size()));
  }
  std::optional<Segment> dynamic, relro;
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint64_t at = phoff + uint64_t{i} * want;
    const Segment s = *elf::ReadPhdr(reader_, at, is_64_);  // inside: checked above
    switch (s.type) {
      case elf::PT_LOAD:
        if (!reader_.Contains(s.offset, s.filesz)) {
          return Corrupt(name_, absl::StrFormat("program header %u (PT_LOAD): file range 0x%x+0x%x "
                                                "runs past the end of the file (0x%x)",
                                                i, s.offset, s.filesz, reader_.size()));
        }
        // A segment no address space can hold, or writable zero-filled pages past 64 GiB: mmap
        // fails, or the kernel's overcommit policy decides — a corrupt file either way
        // (docs/loader-model.md B7).
        if (s.memsz > (uint64_t{1} << 40) || s.vaddr > (uint64_t{1} << 47) ||
            ((s.flags & elf::PF_W) && s.memsz > s.filesz &&
             s.memsz - s.filesz > (uint64_t{1} << 36))) {
          return Corrupt(name_, absl::StrFormat("program header %u (PT_LOAD): 0x%x bytes at 0x%x "
                                                "cannot be mapped",
                                                i, s.memsz, s.vaddr));
        }
        loads_.push_back(s);
        break;
      case elf::PT_DYNAMIC:
        dynamic = s;                               // _dl_map_object_from_fd keeps the last one (B7)
        if (s.filesz == 0) empty_dynamic_ = true;  // and refuses any that is empty
        break;
      case elf::PT_GNU_STACK:
        gnu_stack_flags_ = s.flags;
        break;
      case elf::PT_GNU_PROPERTY:
        ParseProperties(s);
        break;
      case elf::PT_TLS:
        if (!tls_) tls_ = s;
        break;
      case 0x6474e552:  // PT_GNU_RELRO
        relro = s;
        break;
      default:
        break;
    }
  }
  // _dl_map_segments maps each segment, and its zero-filled tail, MAP_FIXED at its address:
  // segments that overlap clobber each other, or memory past the reservation (B7).
  {
    std::vector<const Segment*> by_address;
    for (const Segment& l : loads_) by_address.push_back(&l);
    std::sort(by_address.begin(), by_address.end(),
              [](const Segment* a, const Segment* b) { return a->vaddr < b->vaddr; });
    for (size_t i = 1; i < by_address.size(); ++i) {
      const Segment& a = *by_address[i - 1];
      const Segment& b = *by_address[i];
      if (a.memsz > b.vaddr - a.vaddr) {
        return Corrupt(name_, absl::StrFormat("PT_LOAD segments overlap: 0x%x+0x%x reaches into "
                                              "the one at 0x%x",
                                              a.vaddr, a.memsz, b.vaddr));
      }
    }
  }
  // _dl_protect_relro makes PT_GNU_RELRO's whole pages read-only after relocation — from the
  // page its start is in to the page its end is in, exclusive (both rounded down: lld pads the
  // segment's size to the page end). Those pages outside the writable segments' pages change
  // other pages (or fail half-way): a corrupt file (B7).
  if (relro && relro->memsz > 0 && !loads_.empty() && !RelroPagesWritable(*relro)) {
    return Corrupt(name_, absl::StrFormat("PT_GNU_RELRO 0x%x+0x%x is not inside a writable "
                                          "PT_LOAD segment",
                                          relro->vaddr, relro->memsz));
  }
  if (dynamic) return ParseDynamic(*dynamic);
  return absl::OkStatus();
}

void ElfFile::ParseProperties(const Segment& note) {
  // _dl_process_pt_gnu_property: one NT_GNU_PROPERTY_TYPE_0 note named "GNU"; its properties are
  // (pr_type, pr_datasz, data padded to 8 bytes on ELFCLASS64, 4 on ELFCLASS32). A malformed note
  // is ignored, as ld.so ignores it.
  std::optional<ByteReader> n = reader_.Slice(note.offset, note.filesz);
  const std::optional<elf::Nhdr> nh = n ? elf::ReadNhdr(*n, 0) : std::nullopt;
  if (!nh || nh->type != elf::NT_GNU_PROPERTY_TYPE_0 || nh->namesz != 4) return;
  std::optional<ByteReader> name = n->Slice(elf::kNhdrSize, 4);
  if (!name || name->data()[0] != 'G' || name->data()[1] != 'N' || name->data()[2] != 'U') return;
  std::optional<ByteReader> desc = n->Slice(elf::kNhdrSize + 4, nh->descsz);
  if (!desc) return;
  const uint64_t align = is_64_ ? 8 : 4;
  for (uint64_t at = 0; at + 8 <= desc->size();) {
    const uint32_t type = *desc->ReadAt<uint32_t>(at), size = *desc->ReadAt<uint32_t>(at + 4);
    if (type == elf::GNU_PROPERTY_X86_ISA_1_NEEDED && size == 4 && desc->Contains(at + 8, 4))
      x86_isa_needed_ = *desc->ReadAt<uint32_t>(at + 8);
    at += 8 + ((uint64_t{size} + align - 1) & ~(align - 1));
  }
}

std::optional<ByteReader> ElfFile::VaddrToSegmentEnd(uint64_t vaddr) const {
  for (const Segment& s : loads_) {
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
      const uint64_t delta = vaddr - s.vaddr;
      return reader_.Slice(s.offset + delta, s.filesz - delta);
    }
  }
  return std::nullopt;
}

bool ElfFile::RelroPagesWritable(const Segment& relro) const {
  constexpr uint64_t kPage = 4096;  // x86-64's (docs/loader-model.md B7)
  uint64_t at = relro.vaddr & ~(kPage - 1);
  if (relro.memsz > UINT64_MAX - relro.vaddr) return false;
  const uint64_t end = (relro.vaddr + relro.memsz) & ~(kPage - 1);
  while (at < end) {
    bool advanced = false;
    for (const Segment& s : loads_) {
      if ((s.flags & elf::PF_W) == 0 || s.memsz > UINT64_MAX - s.vaddr - kPage) continue;
      const uint64_t first = s.vaddr & ~(kPage - 1);
      const uint64_t last = (s.vaddr + s.memsz + kPage - 1) & ~(kPage - 1);
      if (at >= first && at < last) {
        at = last;
        advanced = true;
      }
    }
    if (!advanced) return false;
  }
  return true;
}

bool ElfFile::Maps(uint64_t vaddr, uint64_t len, uint32_t flags, bool file_backed) const {
  for (const Segment& s : loads_) {
    if ((s.flags & flags) != flags) continue;
    const uint64_t size = file_backed ? std::min(s.filesz, s.memsz) : s.memsz;
    if (vaddr >= s.vaddr && len <= size && vaddr - s.vaddr <= size - len) return true;
  }
  return false;
}

std::optional<ByteReader> ElfFile::VaddrSlice(uint64_t vaddr, uint64_t len) const {
  if (len == 0) {
    // An empty range is valid anywhere a segment maps (or at its very end).
    for (const Segment& s : loads_) {
      if (vaddr >= s.vaddr && vaddr - s.vaddr <= s.filesz) return ByteReader({}, big_endian());
    }
    return std::nullopt;
  }
  std::optional<ByteReader> rest = VaddrToSegmentEnd(vaddr);
  if (!rest) return std::nullopt;
  return rest->Slice(0, len);
}

std::vector<std::pair<uint64_t, uint64_t>> ElfFile::Footprint(bool whole_dynstr) const {
  std::vector<std::pair<uint64_t, uint64_t>> out = footprint_;
  if (whole_dynstr) {
    if (dynstr_.size() > 0) out.emplace_back(OffsetOf(dynstr_), dynstr_.size());
  } else {
    out.insert(out.end(), string_footprint_.begin(), string_footprint_.end());
  }
  return out;
}

std::optional<uint64_t> ElfFile::DynamicValue(int64_t tag) const {
  for (auto e = dynamic_.rbegin(); e != dynamic_.rend(); ++e) {
    if (e->tag == tag) return e->value;
  }
  return std::nullopt;
}

// Long: elf_get_dynamic_info's one pass over PT_DYNAMIC, then the checks of what it found,
// each beside the tag it reads.
absl::Status ElfFile::ParseDynamic(const Segment& dyn) {
  // ld.so reads PT_DYNAMIC through its mapping (l_ld = p_vaddr), which for every sane file is
  // also its file range; we require both: the file range readable, and the same bytes at p_vaddr
  // in a PT_LOAD segment (elsewhere the loader reads other memory, or faults: B7).
  std::optional<ByteReader> bytes = reader_.Slice(dyn.offset, dyn.filesz);
  if (!bytes) {
    return Corrupt(name_, absl::StrFormat("PT_DYNAMIC: file range 0x%x+0x%x runs past the end of "
                                          "the file (0x%x)",
                                          dyn.offset, dyn.filesz, reader_.size()));
  }
  if (std::optional<ByteReader> mapped = VaddrSlice(dyn.vaddr, dyn.filesz);
      dyn.filesz > 0 && !loads_.empty() &&
      (!mapped || mapped->data().data() != bytes->data().data())) {
    return Corrupt(name_, absl::StrFormat("PT_DYNAMIC: its address 0x%x does not map its file "
                                          "range 0x%x+0x%x",
                                          dyn.vaddr, dyn.offset, dyn.filesz));
  }
  has_dynamic_ = true;
  footprint_.emplace_back(dyn.offset, dyn.filesz);
  const uint64_t entsize = elf::DynSize(is_64_);
  const uint64_t count = bytes->size() / entsize;
  // Capacity only (every library of a check is parsed, and growing these one entry at a time was
  // a tenth of its allocations): PT_DYNAMIC holds a few dozen entries.
  dynamic_.reserve(std::min<uint64_t>(count, 128));
  for (uint64_t i = 0; i < count; ++i) {
    const DynamicEntry e = *elf::ReadDyn(*bytes, i * entsize, is_64_);  // i < count
    if (e.tag == elf::DT_NULL) break;
    dynamic_.push_back(e);
  }

  std::optional<uint64_t> strtab = DynamicValue(elf::DT_STRTAB);
  std::optional<uint64_t> strsz = DynamicValue(elf::DT_STRSZ);
  if (strtab) {
    if (!strsz) return Corrupt(name_, "PT_DYNAMIC: DT_STRTAB without DT_STRSZ");
    std::optional<ByteReader> s = VaddrSlice(*strtab, *strsz);
    if (!s) {
      return Corrupt(name_, absl::StrFormat(".dynstr (DT_STRTAB 0x%x, DT_STRSZ 0x%x) is not inside "
                                            "a loaded segment's file bytes",
                                            *strtab, *strsz));
    }
    dynstr_ = *s;
  }
  auto str = [&](const DynamicEntry& e,
                 absl::string_view what) -> absl::StatusOr<absl::string_view> {
    std::optional<absl::string_view> v = dynstr_.CString(e.value);
    if (!v) {
      return Corrupt(name_, absl::StrFormat("PT_DYNAMIC: %s string offset 0x%x is outside .dynstr "
                                            "(0x%x bytes) or not NUL-terminated",
                                            what, e.value, dynstr_.size()));
    }
    string_footprint_.emplace_back(OffsetOf(dynstr_) + e.value, v->size() + 1);
    return *v;
  };
  const size_t names = static_cast<size_t>(
      std::count_if(dynamic_.begin(), dynamic_.end(), [](const DynamicEntry& e) {
        return e.tag == elf::DT_NEEDED || e.tag == elf::DT_AUXILIARY || e.tag == elf::DT_FILTER;
      }));
  needed_.reserve(names);
  dependencies_.reserve(names);
  string_footprint_.reserve(names + 3);
  for (const DynamicEntry& e : dynamic_) {
    switch (e.tag) {
      case elf::DT_NEEDED: {
        ABICHECK_ASSIGN_OR_RETURN(absl::string_view n, str(e, "DT_NEEDED"));
        needed_.push_back(n);
        dependencies_.push_back({e.tag, n});
        break;
      }
      case elf::DT_AUXILIARY:
      case elf::DT_FILTER: {
        ABICHECK_ASSIGN_OR_RETURN(absl::string_view n,
                                  str(e, e.tag == elf::DT_FILTER ? "DT_FILTER" : "DT_AUXILIARY"));
        dependencies_.push_back({e.tag, n});
        break;
      }
      // The last entry of a tag is the one ld.so keeps (docs/loader-model.md C9).
      case elf::DT_SONAME: {
        ABICHECK_ASSIGN_OR_RETURN(soname_, str(e, "DT_SONAME"));
        break;
      }
      case elf::DT_RPATH: {
        ABICHECK_ASSIGN_OR_RETURN(rpath_, str(e, "DT_RPATH"));
        break;
      }
      case elf::DT_RUNPATH: {
        ABICHECK_ASSIGN_OR_RETURN(runpath_, str(e, "DT_RUNPATH"));
        has_runpath_ = true;
        break;
      }
      case elf::DT_FLAGS_1:
        flags_1_ = e.value;
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace abicheck
