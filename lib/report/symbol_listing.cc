// `abicheck symbols`: every .dynsym entry as nm -D prints it (value, type letter, name with its
// version), read through PT_DYNAMIC like the loader — no section headers needed.
#include "lib/report/symbol_listing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/report/json_report.h"
#include "lib/report/text_util.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/parallel.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

// nm's letter for a dynamic symbol. nm reads the section a symbol lies in; we read what the
// loader reads, the program headers: in an executable segment T, in a read-only one R, in a
// writable one D — or B past its file part (.bss); TLS: D in PT_TLS's file part (.tdata), B past
// it (.tbss). Functions are T wherever they are.
char TypeLetter(const Symbol& s, const ElfFile& elf) {
  if (!s.defined()) {
    if (s.bind() == elf::STB_WEAK) return s.type() == elf::STT_OBJECT ? 'v' : 'w';
    return 'U';
  }
  if (s.bind() == elf::STB_GNU_UNIQUE) return 'u';
  if (s.type() == elf::STT_GNU_IFUNC) return 'i';
  if (s.bind() == elf::STB_WEAK) return s.type() == elf::STT_OBJECT ? 'V' : 'W';
  char c = 'T';
  if (s.shndx == elf::SHN_ABS) {
    c = 'A';
  } else if (s.shndx == elf::SHN_COMMON) {
    c = 'C';
  } else if (s.type() == elf::STT_TLS) {
    c = elf.tls() && s.value >= elf.tls()->filesz ? 'B' : 'D';
  } else if (s.type() != elf::STT_FUNC) {
    c = s.type() == elf::STT_OBJECT ? 'D' : 'T';
    for (const Segment& seg : elf.loads()) {
      if (s.value < seg.vaddr || s.value - seg.vaddr >= std::max(seg.memsz, seg.filesz)) continue;
      if (seg.flags & elf::PF_W) {
        c = s.value - seg.vaddr >= seg.filesz ? 'B' : 'D';
      } else {
        c = (seg.flags & elf::PF_X) && s.type() != elf::STT_OBJECT ? 'T' : 'R';
      }
      break;
    }
  }
  return s.bind() == elf::STB_LOCAL ? static_cast<char>(c + ('a' - 'A')) : c;
}

struct Row {
  Symbol sym;
  absl::string_view version;
  bool default_version = false;
  char letter = 'U';  // TypeLetter
};

// One nm-style line: value (blank when undefined), type letter, name, @version or @@version.
// Made in a buffer on the stack and appended once (a listing is 46,528 lines of torch's largest
// library): per byte only the control-byte test and two copies.
void AppendLine(const Row& r, absl::string_view name, int width, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  char line[1024];
  const size_t head = static_cast<size_t>(width) + 3;
  const size_t tail = r.version.empty() ? 1 : r.version.size() + 3;
  // Control bytes only in hostile files: escape them, copy everything else as is.
  const bool escape = HasControlByte(name) || HasControlByte(r.version);
  if (!escape && head + name.size() + tail <= sizeof(line)) {
    char* p = line;
    if (r.sym.defined()) {
      for (int k = width - 1; k >= 0; --k) *p++ = kHex[(r.sym.value >> (4 * k)) & 0xf];
    } else {
      std::memset(p, ' ', static_cast<size_t>(width));
      p += width;
    }
    *p++ = ' ';
    *p++ = r.letter;
    *p++ = ' ';
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    if (!r.version.empty()) {
      *p++ = '@';
      if (r.default_version) *p++ = '@';
      std::memcpy(p, r.version.data(), r.version.size());
      p += r.version.size();
    }
    *p++ = '\n';
    out->append(line, static_cast<size_t>(p - line));
    return;
  }
  if (r.sym.defined()) {
    char hex[16];
    for (int k = width - 1; k >= 0; --k) hex[width - 1 - k] = kHex[(r.sym.value >> (4 * k)) & 0xf];
    out->append(hex, width);
    out->push_back(' ');
  } else {
    out->append(width + 1, ' ');
  }
  out->push_back(r.letter);
  out->push_back(' ');
  out->append(escape ? Printable(name) : std::string(name));
  if (!r.version.empty()) {
    out->append(r.default_version ? "@@" : "@");
    out->append(Printable(r.version));
  }
  out->push_back('\n');
}

}  // namespace

namespace {

// nm's rows one by one, in table order, with its filters and version suffixes.
template <typename F>
absl::Status ForEachRow(const std::string& path, const ElfFile& elf, const SymbolTable& t,
                        const SymbolListOptions& options, F&& f) {
  for (uint32_t i = 1; i < t.size(); ++i) {
    std::optional<Symbol> s = t.Get(i);
    if (!s) {
      return absl::DataLossError(
          absl::StrFormat("%s: .dynsym entry %u: name offset is outside .dynstr", path, i));
    }
    if (s->name.empty() && s->type() == elf::STT_SECTION) continue;
    if ((options.defined_only && !s->defined()) || (options.undefined_only && s->defined()))
      continue;
    Row row{*s, {}, false, TypeLetter(*s, elf)};
    if (t.has_versym()) {
      const uint16_t vs = t.Versym(i);
      const VersionSlot* slot = t.Slot(vs & 0x7fff);
      // Like nm, a version node's own ABS symbol (GLIBC_2.34 in GLIBC_2.34) carries no suffix.
      if ((vs & 0x7fff) > 1 && slot != nullptr && !slot->name.empty() &&
          !(s->shndx == elf::SHN_ABS && s->name == slot->name)) {
        row.version = slot->name;
        row.default_version = s->defined() && (vs & elf::VERSYM_HIDDEN) == 0;
      }
    }
    f(row);
  }
  return absl::OkStatus();
}

// The text goes out in chunks of about 1 MB: a listing of libtorch_cuda.so is 15 MB, and
// building it whole cost more page faults than reading the tables.
absl::Status WritePlain(const std::string& path, const ElfFile& elf, const SymbolTable& t,
                        const SymbolListOptions& options, int width,
                        absl::FunctionRef<void(absl::string_view)> sink) {
  std::string out;
  constexpr size_t kChunk = size_t{1} << 20;
  out.reserve(kChunk + 4096);
  ABICHECK_RETURN_IF_ERROR(ForEachRow(path, elf, t, options, [&](const Row& r) {
    AppendLine(r, r.sym.name, width, &out);
    if (out.size() >= kChunk) {
      sink(out);
      out.clear();
    }
  }));
  if (!out.empty()) sink(out);
  return absl::OkStatus();
}

// Demangling is the expensive part: every core takes chunks of rows off one counter, demangles
// and formats them into the chunk's own text; the chunks go out in table order.
void WriteDemangled(const std::vector<Row>& rows, size_t threads, int width,
                    absl::FunctionRef<void(absl::string_view)> sink) {
  constexpr size_t kRowsPerChunk = 512;
  const size_t chunks = (rows.size() + kRowsPerChunk - 1) / kRowsPerChunk;
  std::vector<std::string> text(chunks);
  ParallelFor(chunks, threads, [&](size_t c) {
    for (size_t i = c * kRowsPerChunk; i < std::min(rows.size(), (c + 1) * kRowsPerChunk); ++i)
      AppendLine(rows[i], DemangleView(rows[i].sym.name), width, &text[c]);
  });
  for (const std::string& chunk : text) sink(chunk);
}

void WriteJson(const std::vector<Row>& rows, size_t threads, const SymbolListOptions& options,
               absl::FunctionRef<void(absl::string_view)> sink) {
  std::vector<std::string> demangled;
  if (options.demangle) {
    demangled.resize(rows.size());
    constexpr size_t kRowsPerChunk = 512;
    ParallelFor((rows.size() + kRowsPerChunk - 1) / kRowsPerChunk, threads, [&](size_t c) {
      for (size_t i = c * kRowsPerChunk; i < std::min(rows.size(), (c + 1) * kRowsPerChunk); ++i)
        demangled[i] = Demangle(rows[i].sym.name);
    });
  }
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    nlohmann::ordered_json j;
    j["name"] = std::string(r.sym.name);
    if (options.demangle) j["demangled"] = demangled[i];
    if (!r.version.empty()) {
      j["version"] = std::string(r.version);
      j["default"] = r.default_version;
    }
    j["type"] = std::string(1, r.letter);
    j["defined"] = r.sym.defined();
    j["value"] = r.sym.value;
    j["size"] = r.sym.size;
    json.push_back(std::move(j));
  }
  sink(DumpJson(json));
}

}  // namespace

absl::StatusOr<std::vector<SymbolRow>> SymbolRows(const std::string& path, const ElfFile& elf,
                                                  const SymbolTable& syms,
                                                  const SymbolListOptions& options) {
  std::vector<SymbolRow> out;
  out.reserve(syms.size());
  ABICHECK_RETURN_IF_ERROR(ForEachRow(path, elf, syms, options, [&](const Row& r) {
    SymbolRow row;
    row.name = std::string(r.sym.name);
    row.version = std::string(r.version);
    row.default_version = r.default_version;
    row.type = r.letter;
    row.defined = r.sym.defined();
    row.value = r.sym.value;
    row.size = r.sym.size;
    out.push_back(std::move(row));
  }));
  if (options.demangle) {
    constexpr size_t kRowsPerChunk = 512;
    const size_t chunks = (out.size() + kRowsPerChunk - 1) / kRowsPerChunk;
    ParallelFor(chunks, ThreadsFor(out.size() / 2048 + 1), [&](size_t c) {
      for (size_t i = c * kRowsPerChunk; i < std::min(out.size(), (c + 1) * kRowsPerChunk); ++i)
        out[i].demangled = Demangle(out[i].name);
    });
  }
  return out;
}

absl::Status WriteSymbolListing(const std::string& path, const ElfFile& elf,
                                const SymbolTable& syms, const SymbolListOptions& options,
                                absl::FunctionRef<void(absl::string_view)> sink) {
  const SymbolTable& t = syms;
  const int width = elf.is_64() ? 16 : 8;
  if (!options.demangle && !options.json) return WritePlain(path, elf, t, options, width, sink);
  std::vector<Row> rows;
  rows.reserve(t.size());
  ABICHECK_RETURN_IF_ERROR(
      ForEachRow(path, elf, t, options, [&](const Row& r) { rows.push_back(r); }));
  const size_t threads = ThreadsFor(rows.size() / 2048 + 1);
  if (!options.json) {
    WriteDemangled(rows, threads, width, sink);
  } else {
    WriteJson(rows, threads, options, sink);
  }
  return absl::OkStatus();
}

}  // namespace abicheck
