// ParseCache: see parse_cache.h.
#include "lib/resolve/parse_cache.h"

#include <utility>

#include "lib/io/mapped_file.h"

namespace abicheck {

void ParseCache::Parse(const std::string& name, const ExternalLibrary* external, ParsedObject* p) {
  absl::StatusOr<ElfFile> elf = ElfFile::Parse(name, p->blob->bytes());
  if (!elf.ok()) {
    p->elf_status = elf.status();
    return;
  }
  p->elf = std::make_shared<const ElfFile>(*std::move(elf));
  absl::StatusOr<SymbolTable> syms =
      external ? SymbolTable::ReadExternal(*p->elf, *external) : SymbolTable::Read(*p->elf);
  if (!syms.ok()) {
    p->syms_status = syms.status();
    return;
  }
  p->syms = std::make_shared<const SymbolTable>(*std::move(syms));
}

const ParsedObject& ParseCache::Given(const InputFile& input) {
  std::unique_ptr<ParsedObject>& slot = given_[input.blob.get()];
  if (slot == nullptr && shared_ != nullptr && shared_->IsMember(input)) {
    slot = std::make_unique<ParsedObject>(shared_->Given(input));
  } else if (slot == nullptr) {
    slot = std::make_unique<ParsedObject>();
    slot->blob = input.blob;
    slot->file_id = input.blob->file_id();
    Parse(input.name, input.external.get(), slot.get());
  }
  return *slot;
}

const ParsedObject* ParseCache::Found(const std::string& path) {
  auto [it, fresh] = found_.try_emplace(path);
  if (fresh) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(path, MappedFile::Absent::kQuiet);
    if (file.ok()) {
      auto p = std::make_unique<ParsedObject>();
      p->file_id = file->id();
      p->blob = std::make_shared<MappedBlob>(*std::move(file));
      Parse(path, nullptr, p.get());
      it->second = std::move(p);
    }
  }
  return it->second.get();
}

}  // namespace abicheck
