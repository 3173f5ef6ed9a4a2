// `abicheck symbols`: every .dynsym entry as nm -D prints it (value, type letter, name with its
// version), read through PT_DYNAMIC like the loader — no section headers needed.
#include <string>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/demangle/demangle.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/io/mapped_file.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/status_macros.h"
#include "lib/report/json_report.h"
#include "lib/report/text_util.h"

namespace abicheck {
namespace {

// nm's letter for a dynamic symbol, from what the symbol itself says (no section flags).
char TypeLetter(const Symbol& s) {
  if (!s.defined()) {
    if (s.bind() == elf::STB_WEAK) return s.type() == elf::STT_OBJECT ? 'v' : 'w';
    return 'U';
  }
  if (s.bind() == elf::STB_GNU_UNIQUE) return 'u';
  if (s.type() == elf::STT_GNU_IFUNC) return 'i';
  if (s.bind() == elf::STB_WEAK) return s.type() == elf::STT_OBJECT ? 'V' : 'W';
  char c = 'T';
  if (s.shndx == elf::SHN_ABS) c = 'A';
  else if (s.shndx == elf::SHN_COMMON) c = 'C';
  else if (s.type() == elf::STT_OBJECT || s.type() == elf::STT_TLS) c = 'D';
  return s.bind() == elf::STB_LOCAL ? static_cast<char>(c + ('a' - 'A')) : c;
}

}  // namespace

absl::StatusOr<std::string> ListSymbols(const std::string& path, const SymbolListOptions& options) {
  ABICHECK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  ABICHECK_ASSIGN_OR_RETURN(ElfFile elf, ElfFile::Parse(path, file.bytes()));
  ABICHECK_ASSIGN_OR_RETURN(SymbolTable t, SymbolTable::Read(elf));
  std::string out;
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  out.reserve(size_t{t.size()} * 48);
  const int width = elf.is_64() ? 16 : 8;
  for (uint32_t i = 1; i < t.size(); ++i) {
    std::optional<Symbol> s = t.Get(i);
    if (!s) {
      return absl::DataLossError(absl::StrFormat("%s: .dynsym entry %u: name offset is outside .dynstr", path, i));
    }
    if (s->name.empty() && s->type() == elf::STT_SECTION) continue;
    if ((options.defined_only && !s->defined()) || (options.undefined_only && s->defined())) continue;
    std::string version;
    bool default_version = false;
    if (t.has_versym()) {
      const uint16_t vs = t.Versym(i);
      const VersionSlot* slot = t.Slot(vs & 0x7fff);
      // Like nm, a version node's own ABS symbol (GLIBC_2.34 in GLIBC_2.34) carries no suffix.
      if ((vs & 0x7fff) > 1 && slot != nullptr && !slot->name.empty() &&
          !(s->shndx == elf::SHN_ABS && s->name == slot->name)) {
        version = std::string(slot->name);
        default_version = s->defined() && (vs & elf::VERSYM_HIDDEN) == 0;
      }
    }
    const std::string name = options.demangle ? Demangle(s->name) : std::string(s->name);
    if (options.json) {
      nlohmann::ordered_json j;
      j["name"] = std::string(s->name);
      if (options.demangle) j["demangled"] = name;
      if (!version.empty()) {
        j["version"] = version;
        j["default"] = default_version;
      }
      j["type"] = std::string(1, TypeLetter(*s));
      j["defined"] = s->defined();
      j["value"] = s->value;
      j["size"] = s->size;
      json.push_back(std::move(j));
      continue;
    }
    if (s->defined()) {
      absl::StrAppendFormat(&out, "%0*x ", width, s->value);
    } else {
      out.append(width + 1, ' ');
    }
    out.push_back(TypeLetter(*s));
    out.push_back(' ');
    out.append(Printable(name));
    if (!version.empty()) absl::StrAppend(&out, default_version ? "@@" : "@", Printable(version));
    out.push_back('\n');
  }
  if (options.json) return DumpJson(json);
  return out;
}

}  // namespace abicheck
