// A model of glibc's ld.so for one dlopen(RTLD_NOW | RTLD_LOCAL): which objects get loaded and
// from where (dl-load.c, dl-deps.c), the verneed check (dl-version.c) and symbol binding
// (dl-lookup.c). Rules are cited by their id in docs/loader-model.md.
#ifndef ABICHECK_LIB_RESOLVE_LOADER_H_
#define ABICHECK_LIB_RESOLVE_LOADER_H_

#include <algorithm>
#include <cstddef>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/io/mapped_file.h"
#include "lib/resolve/findings.h"
#include "lib/resolve/host_cpu.h"
#include "lib/resolve/ld_cache.h"
#include "lib/resolve/parse_cache.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/paths.h"

namespace abicheck {

// One loaded object: glibc's struct link_map, reduced to what binding needs.
struct Object {
  std::string path;                // l_name: the path it was opened under
  std::vector<std::string> names;  // l_libname: every name it was requested under
  std::string origin;              // $ORIGIN: absolute directory of `path`, symlinks kept
  HowFound found_by = HowFound::kModule;
  std::shared_ptr<const Blob> blob;
  std::optional<FileId> file_id;
  std::shared_ptr<const ElfFile> elf;  // shared through the ParseCache
  std::shared_ptr<const SymbolTable> syms;
  const Object* loader = nullptr;   // l_loader: whose DT_NEEDED brought it in (RPATH chain)
  size_t load_index = 0;            // its place in the load order
  bool preexisting = false;         // loaded before the dlopen: not version-checked or relocated
  bool host = false;                // from ld.so.cache or a system directory
  std::vector<const Object*> deps;  // resolved DT_NEEDED and filtees, nullptr where a load fails
  // DT_RPATH / DT_RUNPATH with $ORIGIN and $LIB substituted, made on first use.
  std::optional<std::vector<std::string>> rpath_dirs, runpath_dirs;
  // The loader's LoaderState when a provider walk that changed nothing went through this object
  // (Loader::MapProviderDeps): walking from it again, unchanged, finds nothing new.
  std::optional<std::array<size_t, 5>> walked_unchanged;
  // docs/loader-model.md E12: not the file the install would load, as far as what was read
  // tells — found outside a build's world after its search tried a directory of that world which
  // is not there (a wheel the world lacks may install it), or in the environment under the world,
  // for one of the world's own libraries (such a wheel may replace it). Why, said after "was
  // found at PATH, ", and the pins not given; empty otherwise.
  std::string not_the_installs;
  std::vector<std::string> world_not_given;
};

// How a library calls itself: its DT_SONAME, else its file name.
inline std::string LibraryName(const Object& o) {
  return o.elf->soname().empty() ? Basename(o.path) : std::string(o.elf->soname());
}

// _dl_name_match_p: `name` is the path the object was opened under or a name it was requested
// under (its soname counts once a DT_NEEDED entry matched it by soname).
bool NameMatches(const Object& o, absl::string_view name);

// What _dl_map_object_from_fd refuses after open_verify accepted the file (docs/loader-model.md
// A9, A10, A12), as ld.so's errstring; nullptr when the object maps. `glibc` is the release
// modelled (LoadOptions::glibc, {2, 36} when empty).
struct MapRefusalResult {
  const char* message = nullptr;  // ld.so's errstring, or the whole text of its assertion
  bool assertion = false;         // the process ends (Inconsistency detected by ld.so)
  explicit operator bool() const { return message != nullptr; }
};
MapRefusalResult MapRefusal(const ElfFile& elf, std::pair<int, int> glibc);

// The glibc release a check models: LoadOptions::glibc ("2.41"), else this host's.
std::pair<int, int> GlibcRelease(const LoadOptions& options);

// A failed DT_NEEDED or DT_FILTER load (docs/loader-model.md §C2, §D).
struct MapFailure {
  const Object* requester = nullptr;
  std::string name;
  FailureKind kind = FailureKind::kMissingLibrary;
  std::string message;
  const Object* stand_in = nullptr;  // a provider of the same stem, checked in its place
  std::string skipped_file;          // kWrongMachine: the file that was found but skipped
};

// Where a reference bound (docs/loader-model.md §A): object and symbol.
struct Binding {
  const Object* object = nullptr;
  Symbol symbol;
};

// The version a reference asks for: an entry of the referrer's l_versions[] with a non-zero hash.
struct WantedVersion {
  absl::string_view name;
  uint32_t hash = 0;
  bool hidden = false;
  absl::string_view file;
};

class Loader {
 public:
  // `machine`/`is_64` are those of the module: the loader that would run it.
  // `parses` is shared by the checks of one call (nullptr: this loader's own).
  Loader(const LoadOptions& options, uint16_t machine, bool is_64,
         std::shared_ptr<const LdCache> cache, ParseCache* parses = nullptr);
  // The options the loader was made with (its world's: every module checked in it uses them).
  const LoadOptions& options() const { return options_; }

  // Adds an object named by the user (a file, or a member of a directory or archive); errors
  // name it. `preexisting` objects play libraries loaded before the dlopen being predicted.
  absl::StatusOr<Object*> OpenGiven(const InputFile& input, HowFound found_by, bool preexisting);

  // The breadth-first dependency closure of `root` (_dl_map_object_deps): root first, each
  // object once. Failures are appended to `failures` in the order ld.so meets them.
  absl::StatusOr<std::vector<const Object*>> MapDeps(Object* root, bool preexisting,
                                                     std::vector<MapFailure>* failures);
  // MapDeps for a provider (loaded before the module), its closure not returned: skipped where an
  // earlier walk that loaded, named, matched and failed nothing went through `root` with the
  // loader as it is now — the same walk would find nothing again. A 10,000-deep chain of
  // providers is walked twice, not once per provider (issue 37 item 10). For the world's set-up,
  // before any Checkpoint().
  absl::Status MapProviderDeps(Object* root, std::vector<MapFailure>* failures);

  // do_lookup_x over `scope`, for a reference from `referrer`.
  // `asserts`, when given, is set where ld.so 2.36 would die on check_match's assertion instead
  // (docs/loader-model.md B5): a versioned reference met the file its verneed names, and that
  // file has no version table.
  std::optional<Binding> Lookup(const std::vector<const Object*>& scope, const HashedName& name,
                                const WantedVersion* version, bool plt_class,
                                bool* asserts = nullptr) const;
  // The candidate test of do_lookup_x for one object (check_match and the binding switch).
  std::optional<Symbol> LookupIn(const Object& m, const HashedName& name,
                                 const WantedVersion* version, bool plt_class,
                                 bool* asserts = nullptr) const;
  // _dl_dst_substitute: $ORIGIN, $PLATFORM, $LIB (and their ${} forms) in one name or path
  // element, as `owner` sees them (docs/loader-model.md C7).
  // `input` itself when it names no DST (no copy), else the result, kept in `storage`.
  absl::string_view SubstituteDst(absl::string_view input, const Object& owner,
                                  std::string* storage) const;
  const HostCpu& cpu() const { return cpu_; }

  // docs/loader-model.md C2a: `name` was loaded with the given libraries (one of their own
  // dependencies), but is not among the files: a DT_NEEDED entry of that name matches it, as an
  // already-loaded object matches, and the load then depends on a library we cannot read.
  void AssumeLoaded(const std::string& name) { assumed_.insert(name); }
  // A world made larger (ExtendWorld) maps its new providers as a new world would: before any
  // name is assumed. Taken out for that, then put back.
  absl::flat_hash_set<std::string> TakeAssumed() { return std::exchange(assumed_, {}); }
  void PutBackAssumed(const absl::flat_hash_set<std::string>& names) {
    assumed_.insert(names.begin(), names.end());
  }
  // Whether `input` is loaded already, by its bytes or its file (OpenGiven would return it).
  bool HasFile(const InputFile& input) const;
  // Whether a loaded object answers to `name` (a name it was opened or requested under, or its
  // soname), of any machine.
  bool HasName(absl::string_view name) const { return by_name_.contains(name); }
  // Moves the objects from the `from`th to the last to the `to`th place, in their order (the
  // load order and each object's load_index follow): where a new world would have opened them.
  // Between checks only.
  void MoveObjects(size_t from, size_t to);
  // What every process has loaded (docs/loader-model.md B5, C3): libc and what it needs (the
  // dynamic linker), mapped once from the system as already loaded — by name if a loaded object
  // already is it; empty when libc cannot be found.
  const std::vector<const Object*>& ProcessBase(Object* requester);
  // The assumed names a DT_NEEDED entry of a new object matched, in the order met.
  const std::vector<std::string>& assumed_used() const { return assumed_used_; }

  // The loaded objects in load order (the _ns_loaded list) from the `from`th on, without the one
  // set aside: a view over the list, no copy.
  class Loaded {
   public:
    class iterator {  // NOLINT(readability-identifier-naming): the standard's name for it
     public:
      using iterator_category = std::forward_iterator_tag;
      using value_type = const Object*;
      using difference_type = std::ptrdiff_t;
      using pointer = const Object* const*;
      using reference = const Object*;
      iterator() = default;
      iterator(const std::deque<std::unique_ptr<Object>>::const_iterator& at,
               const std::deque<std::unique_ptr<Object>>::const_iterator& end, const Object* skip)
          : at_(at), end_(end), skip_(skip) {
        Settle();
      }
      const Object* operator*() const { return at_->get(); }
      iterator& operator++() {
        ++at_;
        Settle();
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++*this;
        return old;
      }
      bool operator==(const iterator& o) const { return at_ == o.at_; }
      bool operator!=(const iterator& o) const { return at_ != o.at_; }

     private:
      void Settle() {
        while (at_ != end_ && at_->get() == skip_) ++at_;
      }
      std::deque<std::unique_ptr<Object>>::const_iterator at_, end_;
      const Object* skip_ = nullptr;
    };
    Loaded(const std::deque<std::unique_ptr<Object>>& list, size_t from, const Object* skip)
        : begin_(list.begin() + static_cast<std::ptrdiff_t>(std::min(from, list.size()))),
          end_(list.end()),
          skip_(skip) {}
    iterator begin() const { return iterator(begin_, end_, skip_); }
    iterator end() const { return iterator(end_, end_, skip_); }

   private:
    std::deque<std::unique_ptr<Object>>::const_iterator begin_, end_;
    const Object* skip_;
  };
  Loaded loaded() const { return Loaded(objects_, 0, set_aside_); }
  // find_needed's test: the first loaded object, in load order, that has `name` as its path or
  // one of its names (_dl_name_match_p); nullptr when none has.
  const Object* FirstNamed(absl::string_view name) const;
  // find_needed of _dl_check_map_versions: the object a verneed record of `requester` names.
  // Any object of the namespace counts, so also the program's libc and dynamic linker, mapped
  // from the system where the check uses the host (docs/loader-model.md B5). nullptr when none
  // is; `in_every_process` then tells a name every process has (the program "", libc, ld.so),
  // whose versions are the program's and not known here.
  const Object* FindNeeded(Object* requester, absl::string_view file, bool* in_every_process);

  // One world for many checks (docs/loader-model.md E7): the objects loaded before the dlopen
  // are mapped once, and each check runs between Checkpoint() and Rollback(), which removes
  // every object the check loaded and every name it gave an older one. SetAside(o) makes one
  // loaded object as though it had not been given — the module itself, among its package's
  // objects — until the Rollback: it is not found by name or by file, nor listed by loaded().
  struct Mark {
    size_t objects = 0, assumed_used = 0, names = 0, walked = 0;
    bool process_base = false;
  };
  Mark Checkpoint();
  // The objects loaded since `mark` (what one check added).
  Loaded loaded_since(const Mark& mark) const { return Loaded(objects_, mark.objects, nullptr); }
  size_t object_count() const { return objects_.size(); }
  // How often a search found a file already loaded under another name (_dl_file_id_match_p).
  size_t identity_matches() const { return identity_matches_; }
  // How many objects had their dependencies walked for the first time (MapDeps fills them once).
  size_t fresh_walks() const { return fresh_walks_; }
  void Rollback(const Mark& mark);
  void SetAside(const Object* o) { set_aside_ = o; }
  // The parses shared with the other checks of this call; nullptr when this loader's are its own.
  ParseCache* shared_parses() const { return own_parses_ ? nullptr : parses_; }
  uint16_t machine() const { return machine_; }
  // The byte order of the module, hence of the loader that runs it (little-endian by default).
  void SetBigEndian(bool big_endian) { big_endian_ = big_endian; }

 private:
  // _dl_map_object: an already-loaded match, or a search; nullptr with `failure` filled.
  absl::StatusOr<Object*> MapObject(absl::string_view name, Object* requester, bool preexisting,
                                    MapFailure* failure);
  void NotTheInstalls(Object* found, absl::string_view name, const Object& requester,
                      const std::string& found_in, const FileTree* incomplete,
                      const std::string& missing_dir) const;
  // Appends the parsed object to the load order (its symbol table's error, if any, is returned).
  absl::StatusOr<Object*> AddObject(std::unique_ptr<Object> obj, const ParsedObject& parsed,
                                    const std::string& path, const std::string& opened_as,
                                    std::vector<std::string> names, HowFound found_by,
                                    const Object* loader, bool preexisting);
  const Object* FindLoaded(absl::string_view name) const;
  const Object* SameStemProvider(absl::string_view name) const;
  // Tries `dir/name`; returns the object, nullptr when absent or skipped.
  // What open_verify skipped while searching: files of the other ELF class or another machine.
  struct Skipped {
    bool other_class = false;
    std::string other_machine;  // "path (AArch64)" of the first such file
  };
  // Tries each of the CPU's subdirectories of `dir` (glibc-hwcaps/..., the legacy ones), then
  // `dir` itself (docs/loader-model.md C8).
  absl::StatusOr<Object*> TryDir(absl::string_view dir, absl::string_view name, HowFound found_by,
                                 Object* requester, bool preexisting, Skipped* skipped);
  absl::StatusOr<Object*> TryPath(const std::string& path, absl::string_view name,
                                  HowFound found_by, Object* requester, bool preexisting,
                                  Skipped* skipped);
  // `name` in ld.so.cache, then the system directories, as the program's own DT_NEEDED finds
  // it (no requester's path lists or DF_1_NODEFLIB); nullptr when absent.
  absl::StatusOr<Object*> SystemSearch(absl::string_view name, bool preexisting);
  // A search found the file of `o`, loaded under another name: `name` is added to it.
  Object* SameFile(Object* o, absl::string_view name);
  // open_verify and _dl_map_object_from_fd's refusals for a file a search found, then the
  // object: named `path` in messages, its $ORIGIN made from `opened_as`.
  absl::StatusOr<Object*> Admit(const ParsedObject& parsed, const std::string& path,
                                const std::string& opened_as, absl::string_view name,
                                HowFound found_by, Object* requester, bool preexisting,
                                Skipped* skipped);
  // The directory lists a search for `requester`'s DT_NEEDED tries before ld.so.cache, in
  // _dl_map_object's order (docs/loader-model.md C2): the RPATHs of the requester and of each
  // object that loaded it (unless the requester has RUNPATH), LD_LIBRARY_PATH, its own RUNPATH.
  // Stops at the first error `f` returns.
  absl::Status ForEachPathList(
      const Object& requester,
      absl::FunctionRef<absl::Status(HowFound, const std::vector<std::string>&)> f) const;
  // A search that found nothing: what it skipped, and whether it tried a path.
  struct MissedSearch {
    Skipped skipped;
    bool tried_a_path = false;
  };
  // The earlier search of `name` along the same directories as `requester`'s that found nothing;
  // nullptr when there was none. Leaves the search's key in search_key_.
  const MissedSearch* Missed(absl::string_view name, const Object& requester);
  std::vector<std::string> ExpandPath(absl::string_view list, const Object& owner) const;
  // The object's RPATH / RUNPATH directories, expanded once per object.
  const std::vector<std::string>& RpathDirs(const Object& o) const;
  const std::vector<std::string>& RunpathDirs(const Object& o) const;

  LoadOptions options_;
  const HostCpu& cpu_;
  std::pair<int, int> glibc_;
  absl::flat_hash_set<std::string> assumed_;
  std::vector<std::string> assumed_used_;
  bool tried_a_path_ = false;  // a search opened something: errno is set (ENOENT at least)
  std::unique_ptr<ParseCache> own_parses_;
  ParseCache* parses_;
  uint16_t machine_;
  bool is_64_;
  bool big_endian_ = false;
  std::shared_ptr<const LdCache> cache_;  // never null
  absl::flat_hash_map<std::string, std::optional<std::string>> cache_lookups_;
  std::string search_key_;  // Missed()'s key of the current search
  absl::flat_hash_map<std::string, MissedSearch> missed_searches_;
  absl::flat_hash_map<std::string, const Object*> same_stem_memo_;  // SameStemProvider's answers
  // Counts every provider (SameStemProvider's candidates) added to or taken off objects_.
  uint64_t providers_changed_ = 0;
  std::pair<uint64_t, const Object*>
      same_stem_loaded_;  // the memo's providers_changed_, set_aside_
  std::string cwd_;       // for $ORIGIN of relative paths
  std::optional<std::vector<const Object*>> process_base_;
  std::vector<std::string> system_dirs_;
  std::deque<std::unique_ptr<Object>> objects_;  // load order: the _ns_loaded list
  // Every name an object answers to (requested names, soname) -> the objects: FindLoaded runs
  // for every DT_NEEDED of every object.
  absl::flat_hash_map<std::string, std::vector<const Object*>> by_name_;
  // File identity (_dl_map_object's "already loaded" test), by the bytes given and by (dev, ino):
  // looked up once per object opened, so a wheel of n libraries costs n, not n^2, per check.
  absl::flat_hash_map<const Blob*, Object*> by_blob_;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, Object*> by_file_;
  // Checkpoint() and Rollback(): names given to older objects since (true: also keyed in
  // by_name_), and the object set aside.
  bool mark_ = false;
  std::vector<std::pair<Object*, bool>> added_names_;
  std::vector<Object*> walked_;  // objects whose deps were filled since the first Checkpoint()
  const Object* set_aside_ = nullptr;
  size_t identity_matches_ = 0;
  size_t fresh_walks_ = 0;
  size_t names_added_ = 0;  // names given to loaded objects (add_name_to_object)
  // What a walk can change: objects, identity matches, first walks, names, assumed libraries used.
  std::array<size_t, 5> State() const {
    return {objects_.size(), identity_matches_, fresh_walks_, names_added_, assumed_used_.size()};
  }
};

// What every process has loaded before any dlopen: libc.so.6 and the dynamic linker (C3).
bool InEveryProcess(absl::string_view name);

// The libraries the manylinux policy (PEP 600; auditwheel's policy) lets a wheel take from the
// system and never ship — the C and C++ runtimes, the dynamic linker — and the GPU driver: no
// wheel pip installs puts one of them in front of the host's (docs/loader-model.md E12).
bool IsSystemProvidedLibrary(absl::string_view name);

// docs/loader-model.md C2b: a library the NVIDIA GPU driver installs (libcuda.so.1,
// libnvidia-ml.so.1, libnvidia-ptxjitcompiler.so.1, libnvcuvid.so.1, …) — never a wheel's, absent
// from every machine without the driver. Found on the host when there; else assumed loaded, as on
// the GPU machine, defining C names only.
bool IsGpuDriverLibrary(absl::string_view soname);

// docs/loader-model.md E5a: the Python interpreter's own library (libpython3.12.so.1.0,
// libpython3.8m.so.1.0, libpython3.so), named in DT_NEEDED by modules linked against it. In
// every process that imports them it is loaded with the interpreter where Python is built shared,
// and absent where it is not: without --python it is the interpreter's, assumed loaded, as its
// Py* references are (E5).
bool IsInterpreterLibrary(absl::string_view soname);

// The version wanted by reference `symbol` of `referrer` (nullptr when unversioned).
std::optional<WantedVersion> WantedVersionOf(const SymbolTable& referrer, uint32_t symbol);

}  // namespace abicheck

#endif  // ABICHECK_LIB_RESOLVE_LOADER_H_
