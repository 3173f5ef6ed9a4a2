// Parse once: the ELF headers and symbol table of every object one call loads (a matrix, an
// environment) are read once, however many of its checks load that object. A check's Loader
// borrows the parses; nothing in them changes during a call.
#ifndef ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_
#define ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/io/file_tree.h"
#include "lib/resolve/ld_cache.h"
#include "lib/symbols/symbol_table.h"

namespace abicheck {

struct ParsedObject {
  std::shared_ptr<const Blob> blob;
  std::optional<FileId> file_id;
  // The headers, or why they could not be read (elf is null then).
  absl::Status elf_status;
  std::shared_ptr<const ElfFile> elf;
  // The symbol table, or why it could not be read (syms is null then).
  absl::Status syms_status;
  std::shared_ptr<const SymbolTable> syms;
};

class SharedParseCache;

class ParseCache {
 public:
  // `shared`: parses of given objects that outlive this cache and serve other threads' caches
  // too (an opened Build's); its members are parsed there, once, and borrowed here.
  explicit ParseCache(SharedParseCache* shared = nullptr) : shared_(shared) {}
  // An object given as input, by its bytes' identity.
  const ParsedObject& Given(const InputFile& input);
  // The file at `path`, opened and parsed on first use; nullptr when it cannot be opened (the
  // loader then tries its next directory).
  const ParsedObject* Found(const std::string& path);
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
  // the checks that follow, until the next call (null: none). The disk's parses stay; what
  // depends on which files the overlay has is forgotten.
  void SetOverlay(std::shared_ptr<const FileTree> overlay);
  // The host's ld.so.cache at `path`, read once per call (every world's loader searches it).
  absl::StatusOr<std::shared_ptr<const LdCache>> HostCache(const std::string& path);

  // A slot for what a later stage derives from a symbol table and wants to keep for the rest of
  // the call: relocation's references of an object (an environment's passes check a module, and
  // load a host library, many times), diagnosis' exported names by base name and its candidates
  // split. The reference is into a hash map: fill it before asking for another slot.
  enum class MemoKind : uint8_t { kReferences, kSourceNames, kSplitNames };
  // Empty until filled by its user, or by what Pending() handed over (waited for here).
  std::shared_ptr<const void>& Memo(const SymbolTable* table, MemoKind kind);
  // A memo being made on another thread: Memo() waits for it when it is first asked for.
  // KeepUntilDone: the work of that thread, waited for before this cache's parses are freed.
  using MemoFuture = std::shared_future<std::shared_ptr<const void>>;
  void Pending(const SymbolTable* table, MemoKind kind, MemoFuture value);
  void KeepUntilDone(std::future<void> work) { background_.push_back(std::move(work)); }
  size_t given_count() const { return given_.size(); }

 private:
  static void Parse(const std::string& name, const ExternalLibrary* external, ParsedObject* p);

  SharedParseCache* shared_ = nullptr;

  absl::flat_hash_map<const Blob*, std::unique_ptr<ParsedObject>> given_;
  absl::flat_hash_map<std::string, std::unique_ptr<ParsedObject>> found_;  // null: absent
  absl::flat_hash_map<std::pair<const SymbolTable*, MemoKind>, std::shared_ptr<const void>> memo_;
  absl::flat_hash_map<std::pair<const SymbolTable*, MemoKind>, MemoFuture> pending_;
  // By (subdirs' address, dir): the subdirectory lists are the host CPU's, one per machine.
  absl::node_hash_map<std::string, std::optional<std::vector<std::string>>> capability_dirs_;
  absl::flat_hash_map<std::string, absl::StatusOr<std::shared_ptr<const LdCache>>> host_caches_;
  absl::node_hash_map<std::string, std::optional<FileId>> directory_ids_;
  std::vector<std::shared_ptr<const FileTree>> trees_;
  std::shared_ptr<const FileTree> overlay_;
  absl::node_hash_map<std::string, std::optional<FileId>> overlay_directory_ids_;
  absl::flat_hash_map<std::string, uint64_t> tree_dirs_;  // a tree directory's identity
  std::string search_key_;  // reused: a search's key is made without allocating
  // Last: destroyed first, so that work on other threads ends before the parses it reads.
  std::vector<std::future<void>> background_;
};

// The parses of one build's libraries, shared by the checks against it on any thread. Only the
// build's own objects are kept here: a check's module and its other inputs stay in the check's
// cache, so a build kept open for many checks does not grow with them.
class SharedParseCache {
 public:
  // Before any check: `input` is one of the build's objects.
  void AddMember(const InputFile& input) { members_.insert(input.blob.get()); }
  bool IsMember(const InputFile& input) const { return members_.contains(input.blob.get()); }
  ParsedObject Given(const InputFile& input) {
    absl::MutexLock lock(&mu_);
    return cache_.Given(input);
  }
  size_t parsed() {  // how many members were parsed so far
    absl::MutexLock lock(&mu_);
    return cache_.given_count();
  }

 private:
  absl::flat_hash_set<const Blob*> members_;  // written before the build is shared, then read
  absl::Mutex mu_;
  ParseCache cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_PARSE_CACHE_H_
