// The file system as one call's loaders see it: which directories exist (and are the same
// directory), which capability subdirectories they hold, the wheels laid out as pip would lay them
// out and the torch installed over an environment (trees answered without the disk), and the
// host's ld.so.cache. Read once per call: every world's loader searches the same directories.
#ifndef ABICHECK_LIB_RESOLVE_FILE_SYSTEM_VIEW_H_
#define ABICHECK_LIB_RESOLVE_FILE_SYSTEM_VIEW_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/io/blob.h"
#include "lib/io/file_tree.h"
#include "lib/resolve/ld_cache.h"

namespace abicheck {

class FileSystemView {
 public:
  // Which of the capability subdirectories `subdirs` (docs/loader-model.md C8) exist in `dir`,
  // as paths, in order: found by the loader the first time it searches `dir` (nullopt until
  // then) and kept for the call. Most search directories have none, and every search of every
  // world looks there again.
  std::optional<std::vector<std::string>>& CapabilityDirs(absl::string_view dir,
                                                          const std::vector<std::string>& subdirs);
  // The identity of the directory `dir` (one stat per call), or nullopt when it is no directory:
  // the loader searches each real directory once per name, and finds which capability
  // subdirectories exist with it (docs/loader-model.md C8).
  const std::optional<FileId>& DirectoryId(const std::string& dir);
  // A build laid out as pip would lay it out, under a wheel's path (docs/loader-model.md E10):
  // paths under its root are answered by the tree, never by the disk.
  void AddTree(std::shared_ptr<const FileTree> tree);
  // The tree whose root `path` lies under, or nullptr: the overlay first.
  const FileTree* TreeAt(absl::string_view path) const;
  // Another torch installed over an environment's site-packages (docs/loader-model.md E11), for
  // the checks that follow, until the next call (null: none). What depends on which files the
  // overlay has is forgotten.
  void SetOverlay(std::shared_ptr<const FileTree> overlay);
  // The host's ld.so.cache at `path`, read once per call (every world's loader searches it).
  absl::StatusOr<std::shared_ptr<const LdCache>> HostCache(const std::string& path);

 private:
  // By (subdirs' address, dir): the subdirectory lists are the host CPU's, one per machine.
  absl::node_hash_map<std::string, std::optional<std::vector<std::string>>> capability_dirs_;
  absl::flat_hash_map<std::string, absl::StatusOr<std::shared_ptr<const LdCache>>> host_caches_;
  absl::node_hash_map<std::string, std::optional<FileId>> directory_ids_;
  std::vector<std::shared_ptr<const FileTree>> trees_;
  std::shared_ptr<const FileTree> overlay_;
  absl::node_hash_map<std::string, std::optional<FileId>> overlay_directory_ids_;
  absl::flat_hash_map<std::string, uint64_t> tree_dirs_;  // a tree directory's identity
  std::string search_key_;  // reused: a search's key is made without allocating
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_FILE_SYSTEM_VIEW_H_
