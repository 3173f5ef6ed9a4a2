// `abicheck symbols`' listing of one parsed object: nm -D's text (or JSON), in chunks.
#ifndef ABICHECK_LIB_REPORT_SYMBOL_LISTING_H_
#define ABICHECK_LIB_REPORT_SYMBOL_LISTING_H_

#include <string>

#include "abicheck/abicheck.h"
#include "absl/functional/function_ref.h"
#include "lib/elf/elf_file.h"
#include "lib/symbols/symbol_table.h"

namespace abicheck {

// Every .dynsym entry of `elf` (named `path` in errors) as nm -D prints it, to `sink`.
absl::Status WriteSymbolListing(const std::string& path, const ElfFile& elf,
                                const SymbolTable& syms, const SymbolListOptions& options,
                                absl::FunctionRef<void(absl::string_view)> sink);
// The same entries as rows (SymbolListOptions::json does not apply).
absl::StatusOr<std::vector<SymbolRow>> SymbolRows(const std::string& path, const ElfFile& elf,
                                                  const SymbolTable& syms,
                                                  const SymbolListOptions& options);

}  // namespace abicheck

#endif  // ABICHECK_LIB_REPORT_SYMBOL_LISTING_H_
