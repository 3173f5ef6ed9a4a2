// ListSymbols: the file (or wheel member) named, refused when it is an index or a whole wheel,
// parsed, then listed by lib/report/symbol_listing.
#include <memory>
#include <optional>
#include <string>

#include "abicheck/abicheck.h"
#include "absl/strings/str_cat.h"
#include "lib/api/limits.h"
#include "lib/index/index_file.h"
#include "lib/inputs/inputs.h"
#include "lib/io/mapped_file.h"
#include "lib/report/symbol_listing.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/status_macros.h"

namespace abicheck {

namespace {

// The object `path` names, parsed: a file, or WHEEL!MEMBER, with the bytes the parse points into.
struct Opened {
  std::shared_ptr<const Blob> member;
  std::optional<MappedFile> file;
  ParsedElf parsed;
};

absl::StatusOr<std::unique_ptr<Opened>> OpenForListing(const std::string& path,
                                                       const InputLimits& limits) {
  auto o = std::make_unique<Opened>();
  std::shared_ptr<const Blob>& member = o->member;
  std::optional<MappedFile>& file = o->file;
  // WHEEL!MEMBER names one shared object inside a wheel (as the reports name it); a wheel alone
  // is answered with its members to choose from.
  if (const size_t bang = path.find(".whl!"); bang != std::string::npos) {
    ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in,
                              ExpandInput(path.substr(0, bang + 4), ToReadLimits(limits)));
    for (const InputFile& f : in.objects) {
      if (f.name == path) member = f.blob;
    }
    if (member == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(path, ": no shared object of that name in ", path.substr(0, bang + 4)));
    }
  } else {
    ABICHECK_ASSIGN_OR_RETURN(file, MappedFile::Open(path));
  }
  const absl::Span<const uint8_t> bytes = member ? member->bytes() : file->bytes();
  if (HasIndexMagic(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": an abicheck index, which keeps no symbol values: "
                     "list the build's libraries themselves"));
  }
  if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) {
    absl::StatusOr<ExpandedInput> in = ExpandInput(path, ToReadLimits(limits));
    std::string which;
    if (in.ok() && !in->objects.empty()) {
      which = absl::StrCat(
          ": name one of its ", in->objects.size(),
          in->objects.size() == 1 ? " shared object" : " shared objects", " as ",
          in->objects.front().name,
          in->objects.size() > 1 ? absl::StrCat(" (or ", in->objects[1].name, ", ...)") : "");
    } else {
      which = ": it holds no shared object";
    }
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a zip archive (wheel), not an ELF file", which));
  }
  ABICHECK_ASSIGN_OR_RETURN(o->parsed, ParseElf(path, bytes));
  return o;
}

}  // namespace

absl::Status ListSymbolsTo(const std::string& path, const SymbolListOptions& options,
                           absl::FunctionRef<void(absl::string_view)> sink,
                           const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<Opened> o, OpenForListing(path, limits));
  return WriteSymbolListing(path, *o->parsed.elf, *o->parsed.syms, options, sink);
}

absl::StatusOr<std::vector<SymbolRow>> ListSymbols(const std::string& path,
                                                   const SymbolListOptions& options,
                                                   const InputLimits& limits) {
  ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<Opened> o, OpenForListing(path, limits));
  return SymbolRows(path, *o->parsed.elf, *o->parsed.syms, options);
}

}  // namespace abicheck
