// FileSystemView: see file_system_view.h.
#include "lib/resolve/file_system_view.h"

#include <sys/stat.h>

#include <utility>

namespace abicheck {

absl::StatusOr<std::shared_ptr<const LdCache>> FileSystemView::HostCache(const std::string& path) {
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

void FileSystemView::AddTree(std::shared_ptr<const FileTree> tree) {
  for (const auto& t : trees_) {
    if (t == tree) return;
  }
  trees_.push_back(std::move(tree));
}

void FileSystemView::SetOverlay(std::shared_ptr<const FileTree> overlay) {
  if (overlay == overlay_) return;
  overlay_ = std::move(overlay);
  overlay_directory_ids_.clear();
  capability_dirs_.clear();  // which subdirectories exist may differ
}

const FileTree* FileSystemView::TreeAt(absl::string_view path) const {
  if (overlay_ && overlay_->Contains(path)) return overlay_.get();
  for (const auto& t : trees_) {
    if (t->Contains(path)) return t.get();
  }
  return nullptr;
}

const std::optional<FileId>& FileSystemView::DirectoryId(const std::string& dir) {
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

std::optional<std::vector<std::string>>& FileSystemView::CapabilityDirs(
    absl::string_view dir, const std::vector<std::string>& subdirs) {
  const void* list = &subdirs;
  search_key_.assign(reinterpret_cast<const char*>(&list), sizeof list);
  search_key_.append(dir.data(), dir.size());
  return capability_dirs_[search_key_];
}

}  // namespace abicheck
