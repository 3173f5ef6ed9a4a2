// `abicheck symbols`: every .dynsym entry as nm -D prints it (value, type letter, name with its
// version), read through PT_DYNAMIC like the loader — no section headers needed.
#include "lib/report/symbol_listing.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
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

// The two hex digits of every byte value, for writing a value a byte at a time.
constexpr std::array<char, 512> kHexPairs = [] {
  std::array<char, 512> t{};
  constexpr char kDigits[] = "0123456789abcdef";
  for (size_t b = 0; b < 256; ++b) {
    t[2 * b] = kDigits[b >> 4];
    t[2 * b + 1] = kDigits[b & 0xf];
  }
  return t;
}();

// `value` as `width` (8 or 16) lowercase hex digits at `p`; returns the end.
char* AppendHex(uint64_t value, int width, char* p) {
  for (int k = width / 2 - 1; k >= 0; --k) {
    std::memcpy(p, &kHexPairs[2 * ((value >> (8 * k)) & 0xff)], 2);
    p += 2;
  }
  return p;
}

// One nm-style line: value (blank when undefined), type letter, name, @version or @@version.
// Made in a buffer on the stack and appended once (a listing is 46,528 lines of torch's largest
// library): per byte only the control-byte test and two copies.
void AppendLine(const Row& r, absl::string_view name, int width, std::string* out) {
  char line[1024];
  const size_t head = static_cast<size_t>(width) + 3;
  const size_t tail = r.version.empty() ? 1 : r.version.size() + 3;
  // Control bytes only in hostile files: escape them, copy everything else as is.
  const bool escape = HasControlByte(name) || HasControlByte(r.version);
  if (!escape && head + name.size() + tail <= sizeof(line)) {
    char* p = line;
    if (r.sym.defined()) {
      p = AppendHex(r.sym.value, width, p);
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
    AppendHex(r.sym.value, width, hex);
    out->append(hex, width);
    out->push_back(' ');
  } else {
    out->append(width + 1, ' ');
  }
  out->push_back(r.letter);
  out->push_back(' ');
  if (escape) {
    out->append(Printable(name));
  } else {
    out->append(name.data(), name.size());
  }
  if (!r.version.empty()) {
    out->append(r.default_version ? "@@" : "@");
    out->append(Printable(r.version));
  }
  out->push_back('\n');
}

}  // namespace

namespace {

// Entry `i` (= s) as nm lists it, with its version suffix; nullopt when nm leaves it out (a
// section symbol) or a filter does.
std::optional<Row> RowOf(const ElfFile& elf, const SymbolTable& t, const SymbolListOptions& options,
                         uint32_t i, const Symbol& s) {
  if (s.name.empty() && s.type() == elf::STT_SECTION) return std::nullopt;
  if ((options.defined_only && !s.defined()) || (options.undefined_only && s.defined()))
    return std::nullopt;
  Row row{s, {}, false, TypeLetter(s, elf)};
  if (t.has_versym()) {
    const uint16_t vs = t.Versym(i);
    const VersionSlot* slot = t.Slot(vs & 0x7fff);
    // Like nm, a version node's own ABS symbol (GLIBC_2.34 in GLIBC_2.34) carries no suffix.
    if ((vs & 0x7fff) > 1 && slot != nullptr && !slot->name.empty() &&
        !(s.shndx == elf::SHN_ABS && s.name == slot->name)) {
      row.version = slot->name;
      row.default_version = s.defined() && (vs & elf::VERSYM_HIDDEN) == 0;
    }
  }
  return row;
}

// nm's rows one by one, in table order; the first entry whose name is unreadable is an error.
template <typename F>
absl::Status ForEachRow(const std::string& path, const ElfFile& elf, const SymbolTable& t,
                        const SymbolListOptions& options, F&& f) {
  for (uint32_t i = 1; i < t.size(); ++i) {
    std::optional<Symbol> s = t.Get(i);
    if (!s) {
      return absl::DataLossError(
          absl::StrFormat("%s: .dynsym entry %u: name offset is outside .dynstr", path, i));
    }
    if (std::optional<Row> row = RowOf(elf, t, options, i, *s)) f(*row);
  }
  return absl::OkStatus();
}

// Text listings are made in parallel, in chunks of entries: each core takes the next chunk and
// formats it (demangling it first with -C) into the chunk's own text; the texts go out in table
// order as they are done (about 130 KB each on libtorch_cuda.so), and their buffers are reused.
// Smaller chunks keep fewer pages alive (measured: 512 entries beat 1,024 and 2,048). Demangled
// text runs to about three times the mangled name (libtorch_cuda.so: 3.3), so most chunks
// allocate once.
constexpr size_t kEntriesPerChunk = 512, kDemangledPerChunk = 128;

void AppendRow(const Row& r, bool demangle, int width, std::string* text) {
  if (!demangle) return AppendLine(r, r.sym.name, width, text);
  // A listed table is an ELF file's (WriteSymbolListing takes no index's): its names were read
  // up to their NUL in .dynstr (ByteReader::CString), which follows them in place.
  // Its demangled text is checked for control bytes itself: Rust's demangling decodes escapes
  // and Punycode, which can make one.
  const absl::string_view name = DemangleLikeNm(r.sym.name, /*nul_terminated=*/true);
  AppendLine(r, name, width, text);
}

// A chunk's rows into its text, reserved first for their guessed length plus room for reuse.
void AppendRows(absl::Span<const Row> rows, bool demangle, int width, std::string* text) {
  size_t guess = 0;
  for (const Row& r : rows) guess += (demangle ? 3 : 1) * r.sym.name.size() + 64;
  if (text->capacity() < guess) text->reserve(guess + guess / 4);
  for (const Row& r : rows) AppendRow(r, demangle, width, text);
}

// The listing straight from the table, once EveryNameReadable() says no entry can fail: chunks
// of entries, so reading the table is split over the cores too.
void WriteTableInParallel(const ElfFile& elf, const SymbolTable& t,
                          const SymbolListOptions& options, int width,
                          absl::FunctionRef<void(absl::string_view)> sink) {
  const size_t per_chunk = options.demangle ? kDemangledPerChunk : kEntriesPerChunk;
  const size_t entries = t.size() > 0 ? t.size() - 1 : 0;
  const size_t chunks = (entries + per_chunk - 1) / per_chunk;
  ParallelForInOrder(
      chunks, ThreadsFor(chunks),
      [&](size_t c, std::string* text) {
        const uint32_t first = static_cast<uint32_t>(1 + c * per_chunk);
        const uint32_t end = static_cast<uint32_t>(std::min<size_t>(t.size(), first + per_chunk));
        // One vector of rows per thread, reused from chunk to chunk rather than allocated and
        // faulted in per chunk.
        thread_local std::vector<Row> rows;
        rows.clear();
        for (uint32_t i = first; i < end; ++i) {
          const std::optional<Symbol> s = t.Get(i);
          if (!s) continue;  // cannot happen: EveryNameReadable()
          if (std::optional<Row> row = RowOf(elf, t, options, i, *s)) rows.push_back(*row);
        }
        AppendRows(rows, options.demangle, width, text);
      },
      [&](const std::string& text) { sink(text); });
}

// The same over rows already read (a table with an unreadable name is refused before anything
// is written, so its rows are all read first).
void WriteRows(const std::vector<Row>& rows, bool demangle, int width,
               absl::FunctionRef<void(absl::string_view)> sink) {
  const size_t per_chunk = demangle ? kDemangledPerChunk : kEntriesPerChunk;
  const size_t chunks = (rows.size() + per_chunk - 1) / per_chunk;
  ParallelForInOrder(
      chunks, ThreadsFor(chunks),
      [&](size_t c, std::string* text) {
        const size_t begin = c * per_chunk;
        AppendRows(absl::MakeConstSpan(rows).subspan(begin, per_chunk), demangle, width, text);
      },
      [&](const std::string& text) { sink(text); });
}

void WriteJson(const std::vector<Row>& rows, size_t threads, const SymbolListOptions& options,
               absl::FunctionRef<void(absl::string_view)> sink) {
  std::vector<std::string> demangled;
  if (options.demangle) {
    demangled.resize(rows.size());
    constexpr size_t kRowsPerChunk = 512;
    ParallelFor((rows.size() + kRowsPerChunk - 1) / kRowsPerChunk, threads, [&](size_t c) {
      for (size_t i = c * kRowsPerChunk; i < std::min(rows.size(), (c + 1) * kRowsPerChunk); ++i)
        demangled[i] = std::string(DemangleLikeNm(rows[i].sym.name));
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
        out[i].demangled = std::string(DemangleLikeNm(out[i].name));
    });
  }
  return out;
}

absl::Status WriteSymbolListing(const std::string& path, const ElfFile& elf,
                                const SymbolTable& syms, const SymbolListOptions& options,
                                absl::FunctionRef<void(absl::string_view)> sink) {
  const SymbolTable& t = syms;
  if (t.external()) {  // ListSymbolsTo refuses an index first; its names end at no NUL (AppendRow)
    return absl::InvalidArgumentError(absl::StrCat(path, ": an index keeps no symbol table"));
  }
  const int width = elf.is_64() ? 16 : 8;
  if (!options.json && t.EveryNameReadable()) {
    WriteTableInParallel(elf, t, options, width, sink);
    return absl::OkStatus();
  }
  std::vector<Row> rows;
  rows.reserve(t.size());
  ABICHECK_RETURN_IF_ERROR(
      ForEachRow(path, elf, t, options, [&](const Row& r) { rows.push_back(r); }));
  if (options.json) {
    WriteJson(rows, ThreadsFor(rows.size() / 2048 + 1), options, sink);
  } else {
    WriteRows(rows, options.demangle, width, sink);
  }
  return absl::OkStatus();
}

}  // namespace abicheck
