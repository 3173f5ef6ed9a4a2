// ParseCache: see parse_cache.h.
#include "lib/resolve/parse_cache.h"

#include <sys/stat.h>

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

std::shared_ptr<const void>& ParseCache::Memo(const SymbolTable* table, MemoKind kind) {
  std::shared_ptr<const void>& slot = memo_[{table, kind}];
  if (slot == nullptr) {
    if (auto it = pending_.find({table, kind}); it != pending_.end()) {
      slot = it->second.get();
      pending_.erase(it);
    }
  }
  return slot;
}

void ParseCache::Pending(const SymbolTable* table, MemoKind kind, MemoFuture value) {
  pending_.insert_or_assign({table, kind}, std::move(value));
}

absl::StatusOr<std::shared_ptr<const LdCache>> ParseCache::HostCache(const std::string& path) {
  auto [it, fresh] = host_caches_.try_emplace(path, nullptr);
  if (fresh) {
    absl::StatusOr<LdCache> cache = LdCache::Read(path);
    if (cache.ok()) {
      it->second = std::make_shared<const LdCache>(*std::move(cache));
    } else {
      it->second = cache.status();
    }
  }
  return it->second;
}

void ParseCache::AddTree(std::shared_ptr<const FileTree> tree) {
  for (const auto& t : trees_) {
    if (t == tree) return;
  }
  trees_.push_back(std::move(tree));
}

void ParseCache::SetOverlay(std::shared_ptr<const FileTree> overlay) {
  if (overlay == overlay_) return;
  overlay_ = std::move(overlay);
  overlay_directory_ids_.clear();
  capability_dirs_.clear();  // which subdirectories exist may differ
}

const FileTree* ParseCache::TreeAt(absl::string_view path) const {
  if (overlay_ && overlay_->Contains(path)) return overlay_.get();
  for (const auto& t : trees_) {
    if (t->Contains(path)) return t.get();
  }
  return nullptr;
}

const std::optional<FileId>& ParseCache::DirectoryId(const std::string& dir) {
  if (overlay_ && overlay_->Contains(dir)) {
    // An overlay's directory (E11), else the disk's (below).
    if (std::optional<std::string> normal = overlay_->Directory(dir)) {
      auto [it, added] = overlay_directory_ids_.try_emplace(dir);
      if (added) {
        auto [id, fresh] = tree_dirs_.try_emplace(*normal, tree_dirs_.size());
        it->second = FileId{~uint64_t{0}, id->second};
      }
      return it->second;
    }
  }
  auto [it, added] = directory_ids_.try_emplace(dir);
  if (added && !trees_.empty()) {
    if (const FileTree* tree = TreeAt(dir)) {
      // A directory of a tree (E10): its identity is its normalized path's, which no device of
      // the disk has.
      if (std::optional<std::string> normal = tree->Directory(dir)) {
        auto [id, fresh] = tree_dirs_.try_emplace(*normal, tree_dirs_.size());
        it->second = FileId{~uint64_t{0}, id->second};
      }
      return it->second;
    }
  }
  if (added) {
    struct stat st;
    // An empty element of a search path is the current directory (fillin_rpath).
    if (::stat(dir.empty() ? "." : dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      it->second = FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  }
  return it->second;
}

std::optional<std::vector<std::string>>& ParseCache::CapabilityDirs(
    absl::string_view dir, const std::vector<std::string>& subdirs) {
  const void* list = &subdirs;
  search_key_.assign(reinterpret_cast<const char*>(&list), sizeof list);
  search_key_.append(dir.data(), dir.size());
  return capability_dirs_[search_key_];
}

}  // namespace abicheck
