// The loader model: _dl_map_object's search order, _dl_map_object_deps' breadth-first closure,
// and do_lookup_x/check_match's binding rules, from glibc 2.36's elf/ (docs/loader-model.md).
#include "lib/resolve/loader.h"

#include <gnu/libc-version.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "lib/elf/elf_constants.h"
#include "lib/util/read_trace.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

std::string Multiarch(uint16_t machine) {
  switch (machine) {
    case elf::EM_X86_64:
      return "x86_64-linux-gnu";
    case elf::EM_AARCH64:
      return "aarch64-linux-gnu";
    case elf::EM_386:
      return "i386-linux-gnu";
    default:
      return "";
  }
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The directory $ORIGIN stands for: the absolute directory of the path the object was opened
// under (made absolute against `cwd`), symlinks not resolved (dl-object.c _dl_new_object).
std::string OriginOf(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path[0] == '/') return Dirname(path);
  return Dirname(cwd.empty() ? path : absl::StrCat(cwd, "/", path));
}

// fillin_rpath: an empty element is the current directory; trailing slashes are dropped and one
// is added when the name is appended.
std::string JoinDir(absl::string_view dir, absl::string_view name) {
  if (dir.empty()) dir = ".";
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir == "/") return absl::StrCat("/", name);
  return absl::StrCat(dir, "/", name);
}

// is_dst: the length of DST `ref` at `in` (just after '$'), braces included, or 0. Unbraced, it
// must not run on into identifier characters ($ORIGINAL is not $ORIGIN).
size_t DstLength(absl::string_view in, absl::string_view ref) {
  const bool curly = !in.empty() && in[0] == '{';
  absl::string_view rest = curly ? in.substr(1) : in;
  if (rest.substr(0, ref.size()) != ref) return 0;
  const char next = rest.size() > ref.size() ? rest[ref.size()] : '\0';
  if (curly && next != '}') return 0;
  if ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
      (next >= '0' && next <= '9') || next == '_')
    return 0;
  return curly ? ref.size() + 2 : ref.size();
}

}  // namespace

bool NameMatches(const Object& o, absl::string_view name) {
  return o.path == name || std::find(o.names.begin(), o.names.end(), name) != o.names.end();
}

std::pair<int, int> GlibcRelease(const LoadOptions& options) {
  const std::string v = options.glibc.empty() ? gnu_get_libc_version() : options.glibc;
  std::pair<int, int> r{2, 36};
  std::vector<absl::string_view> parts = absl::StrSplit(v, '.');
  if (parts.size() >= 2 && absl::SimpleAtoi(parts[0], &r.first) &&
      absl::SimpleAtoi(parts[1], &r.second))
    return r;
  return {2, 36};
}

MapRefusalResult MapRefusal(const ElfFile& elf, std::pair<int, int> glibc) {
  // _dl_map_object_from_fd, in its order (docs/loader-model.md A9, A10, A11, A12).
  for (const Segment& s : elf.loads()) {
    if (((s.vaddr - s.offset) & 0xfff) != 0)  // GLRO(dl_pagesize): 4 KiB on x86-64
      return {"ELF load command address/offset not page-aligned"};
  }
  if (elf.load_count() == 0) return {"object file has no loadable segments"};
  if (elf.type() == elf::ET_EXEC) return {"cannot dynamically load executable"};
  // _dl_map_segments reserves first segment's page .. last segment's end in one mmap.
  const uint64_t map_start = elf.loads().front().vaddr & ~uint64_t{0xfff};
  const uint64_t alloc_end = elf.loads().back().vaddr + elf.loads().back().memsz;
  if (alloc_end <= map_start || alloc_end - map_start > (uint64_t{1} << 40))
    return {"failed to map segment from shared object"};
  if (!elf.has_dynamic() || elf.empty_dynamic()) return {"object file has no dynamic section"};
  // elf_get_dynamic_info asserts that x86-64's PLT relocations are RELA (B7).
  if (elf.machine() == elf::EM_X86_64 && elf.is_64() &&
      elf.DynamicValue(elf::DT_PLTREL).value_or(elf::DT_RELA) != elf::DT_RELA) {
    return {
        "Inconsistency detected by ld.so: get-dynamic-info.h: 115: elf_get_dynamic_info: "
        "Assertion `info[DT_PLTREL]->d_un.d_val == DT_RELA' failed!",
        true};
  }
  // glibc 2.41: dlopen no longer makes the stack executable; a missing PT_GNU_STACK means an
  // executable stack on x86-64 and AArch64 alike.
  if (glibc >= std::pair{2, 41} && (!elf.gnu_stack_flags() || (*elf.gnu_stack_flags() & elf::PF_X)))
    return {"cannot enable executable stack as shared object requires: Invalid argument"};
  if ((elf.flags_1() & elf::DF_1_PIE) != 0)
    return {"cannot dynamically load position-independent executable"};
  if ((elf.flags_1() & elf::DF_1_NOOPEN) != 0) return {"shared object cannot be dlopen()ed"};
  return {};
}

std::optional<WantedVersion> WantedVersionOf(const SymbolTable& referrer, uint32_t symbol) {
  // elf_machine_rela: version = &l_versions[versym & 0x7fff]; unversioned when its hash is 0.
  if (!referrer.has_versym()) return std::nullopt;
  const VersionSlot* slot = referrer.Slot(referrer.Versym(symbol) & 0x7fff);
  if (slot == nullptr || slot->hash == 0) return std::nullopt;
  return WantedVersion{slot->name, slot->hash, slot->hidden, slot->file};
}

Loader::Loader(const LoadOptions& options, uint16_t machine, bool is_64,
               std::shared_ptr<const LdCache> cache, ParseCache* parses)
    : options_(options),
      cpu_(HostCpuFor(machine)),
      glibc_(GlibcRelease(options)),
      own_parses_(parses == nullptr ? std::make_unique<ParseCache>() : nullptr),
      parses_(parses == nullptr ? own_parses_.get() : parses),
      machine_(machine),
      is_64_(is_64),
      cache_(cache != nullptr ? std::move(cache) : std::make_shared<const LdCache>()) {
  // The working directory once per check, not once per object (a system call each).
  if (char buf[4096]; ::getcwd(buf, sizeof buf) != nullptr) cwd_ = buf;
  if (options_.sysroot == "/") options_.sysroot.clear();
  // Debian's system search path (`ld.so --help`): the multiarch directories, then /lib, /usr/lib.
  const std::string ma = Multiarch(machine);
  if (!ma.empty()) {
    system_dirs_.push_back(absl::StrCat(options_.sysroot, "/lib/", ma));
    system_dirs_.push_back(absl::StrCat(options_.sysroot, "/usr/lib/", ma));
  }
  system_dirs_.push_back(absl::StrCat(options_.sysroot, "/lib"));
  system_dirs_.push_back(absl::StrCat(options_.sysroot, "/usr/lib"));
}

absl::StatusOr<Object*> Loader::OpenGiven(const InputFile& input, HowFound found_by,
                                          bool preexisting) {
  auto obj = std::make_unique<Object>();
  obj->blob = input.blob;
  obj->file_id = input.blob->file_id();
  // Given twice, or given and already pulled in as a dependency: the same object (file identity).
  if (auto it = by_blob_.find(obj->blob.get()); it != by_blob_.end() && it->second != set_aside_)
    return it->second;
  if (obj->file_id) {
    if (auto it = by_file_.find({obj->file_id->dev, obj->file_id->ino});
        it != by_file_.end() && it->second != set_aside_)
      return it->second;
  }
  const ParsedObject& parsed = parses_->Given(input);
  if (!parsed.elf_status.ok()) return parsed.elf_status;
  std::vector<std::string> names{input.path};
  if (input.name != input.path) names.push_back(input.name);
  return AddObject(std::move(obj), parsed, input.name, input.path, std::move(names), found_by,
                   nullptr, preexisting);
}

bool Loader::HasFile(const InputFile& input) const {
  if (by_blob_.contains(input.blob.get())) return true;
  const std::optional<FileId> id = input.blob->file_id();
  return id && by_file_.contains({id->dev, id->ino});
}

void Loader::MoveObjects(size_t from, size_t to) {
  if (to >= from || from > objects_.size()) return;
  std::rotate(objects_.begin() + static_cast<std::ptrdiff_t>(to),
              objects_.begin() + static_cast<std::ptrdiff_t>(from), objects_.end());
  for (size_t i = to; i < objects_.size(); ++i) objects_[i]->load_index = i;
}

absl::StatusOr<Object*> Loader::AddObject(std::unique_ptr<Object> obj, const ParsedObject& parsed,
                                          const std::string& path, const std::string& opened_as,
                                          std::vector<std::string> names, HowFound found_by,
                                          const Object* loader, bool preexisting) {
  if (!parsed.syms_status.ok()) return parsed.syms_status;
  obj->elf = parsed.elf;
  obj->syms = parsed.syms;
  obj->path = path;
  obj->names = std::move(names);
  obj->origin = OriginOf(opened_as, cwd_);
  obj->found_by = found_by;
  obj->loader = loader;
  obj->preexisting = preexisting;
  obj->load_index = objects_.size();
  for (const std::string& n : obj->names) by_name_[n].push_back(obj.get());
  if (!obj->elf->soname().empty()) by_name_[obj->elf->soname()].push_back(obj.get());
  // The object set aside keeps its identity entries; one of the same file takes them over until
  // the rollback gives them back.
  if (obj->blob) {
    auto [it, added] = by_blob_.emplace(obj->blob.get(), obj.get());
    if (!added && it->second == set_aside_) it->second = obj.get();
  }
  if (obj->file_id) {
    auto [it, added] =
        by_file_.emplace(std::make_pair(obj->file_id->dev, obj->file_id->ino), obj.get());
    if (!added && it->second == set_aside_) it->second = obj.get();
  }
  if (obj->preexisting && obj->found_by == HowFound::kProvider) ++providers_changed_;
  objects_.push_back(std::move(obj));
  return objects_.back().get();
}

const Object* Loader::FindLoaded(absl::string_view name) const {
  // _dl_map_object: a loaded object matches by any name it was requested under, or its soname —
  // the first such in load order (a name can be added to an older object after a newer one).
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const Object* first = nullptr;
  for (const Object* o : it->second) {
    if (o == set_aside_ || o->elf->machine() != machine_ || o->elf->is_64() != is_64_) continue;
    if (first == nullptr || o->load_index < first->load_index) first = o;
  }
  return first;
}

const std::vector<std::string>& Loader::RpathDirs(const Object& o) const {
  Object& m = const_cast<Object&>(o);  // a memo on the loader's own object
  if (!m.rpath_dirs) m.rpath_dirs = ExpandPath(o.elf->rpath(), o);
  return *m.rpath_dirs;
}

const std::vector<std::string>& Loader::RunpathDirs(const Object& o) const {
  Object& m = const_cast<Object&>(o);
  if (!m.runpath_dirs) m.runpath_dirs = ExpandPath(o.elf->runpath(), o);
  return *m.runpath_dirs;
}

absl::string_view Loader::SubstituteDst(absl::string_view in, const Object& owner,
                                        std::string* storage) const {
  // _dl_dst_substitute; an unknown $NAME is copied as written. $LIB is DL_DST_LIB, Debian's
  // multiarch library directory. Most names hold no '$': they are returned as they are.
  if (in.find('$') == absl::string_view::npos) return in;
  std::string& out = *storage;
  out.clear();
  const std::string lib =
      Multiarch(machine_).empty() ? "lib" : absl::StrCat("lib/", Multiarch(machine_));
  for (size_t i = 0; i < in.size();) {
    if (in[i] != '$') {
      out += in[i++];
      continue;
    }
    absl::string_view rest = in.substr(i + 1);
    size_t len;
    if ((len = DstLength(rest, "ORIGIN")) != 0) {
      out += owner.origin;
    } else if ((len = DstLength(rest, "PLATFORM")) != 0) {
      if (cpu_.platform.empty()) {  // a known token without a value: the path is void
        out.clear();
        return out;
      }
      out += cpu_.platform;
    } else if ((len = DstLength(rest, "LIB")) != 0) {
      out += lib;
    } else {
      out += '$';
    }
    i += 1 + len;
  }
  return out;
}

std::vector<std::string> Loader::ExpandPath(absl::string_view list, const Object& owner) const {
  // decompose_rpath: an empty DT_RPATH/DT_RUNPATH string is no path at all; fillin_rpath: inside
  // a list, an empty element stays (the current directory), one whose tokens cannot be replaced
  // is dropped.
  std::vector<std::string> dirs;
  if (list.empty()) return dirs;
  for (absl::string_view d : absl::StrSplit(list, ':')) {
    if (d.empty()) {
      dirs.emplace_back();
      continue;
    }
    std::string storage;
    const absl::string_view e = SubstituteDst(d, owner, &storage);
    if (!e.empty()) dirs.emplace_back(e);
  }
  return dirs;
}

absl::StatusOr<Object*> Loader::TryPath(const std::string& path, absl::string_view name,
                                        HowFound found_by, Object* requester, bool preexisting,
                                        Skipped* skipped) {
  tried_a_path_ = true;
  if (const FileTree* tree = parses_->TreeAt(path)) {
    // A build laid out as pip would (docs/loader-model.md E10): the tree answers, not the disk.
    // An overlay (E11) leaves what it has no file for to the disk, but for what pip removes.
    const InputFile* file = tree->File(path);
    if (file != nullptr) {
      // One of the build's own objects, already loaded as given: the same file (identity).
      if (auto it = by_blob_.find(file->blob.get());
          it != by_blob_.end() && it->second != set_aside_)
        return SameFile(it->second, name);
      return Admit(parses_->Given(*file), file->name, file->path, name, found_by, requester,
                   preexisting, skipped);
    }
    if (!tree->overlay() || tree->Hides(path)) return nullptr;
  }
  // open_path: not there, try the next directory. The answer cannot change during one check, and
  // a build's libraries ask for the same missing sonames many times (libcudart.so.12 ...):
  // ParseCache::Found remembers a path that did not open as well as one that did.
  const ParsedObject* parsed = parses_->Found(path);
  if (parsed == nullptr) return nullptr;
  if (parsed->file_id) {  // _dl_file_id_match_p: already loaded under another name
    if (auto it = by_file_.find({parsed->file_id->dev, parsed->file_id->ino});
        it != by_file_.end() && it->second != set_aside_)
      return SameFile(it->second, name);
  }
  return Admit(*parsed, path, path, name, found_by, requester, preexisting, skipped);
}

Object* Loader::SameFile(Object* o, absl::string_view name) {
  o->names.emplace_back(name);
  by_name_[o->names.back()].push_back(o);
  if (mark_) added_names_.push_back({o, true});
  ++identity_matches_;
  return o;
}

absl::StatusOr<Object*> Loader::Admit(const ParsedObject& parsed, const std::string& path,
                                      const std::string& opened_as, absl::string_view name,
                                      HowFound found_by, Object* requester, bool preexisting,
                                      Skipped* skipped) {
  // open_verify (docs/loader-model.md A11): another class is remembered (a later "wrong ELF
  // class" error), another machine is skipped silently, anything else refused ends the search.
  const OpenVerdict verdict = OpenVerify(parsed.blob->bytes(), is_64_, machine_, big_endian_);
  switch (verdict.kind) {
    case OpenVerdict::kRefused:
      return absl::FailedPreconditionError(absl::StrCat(path, ": ", verdict.error));
    case OpenVerdict::kOtherClass:
      skipped->other_class = true;
      return nullptr;
    case OpenVerdict::kOtherMachine:
      if (skipped->other_machine.empty()) {
        skipped->other_machine = absl::StrCat(
            path, " (", MachineName(parsed.elf_status.ok() ? parsed.elf->machine() : 0), ")");
      }
      return nullptr;
    case OpenVerdict::kOk:
      break;
  }
  if (!parsed.elf_status.ok()) {
    // Accepted by open_verify, then refused when mapped: no PT_LOAD (our parser cannot place
    // PT_DYNAMIC either), or corrupt in a way ld.so would not survive.
    if (parsed.elf_status.code() == absl::StatusCode::kDataLoss &&
        absl::StrContains(parsed.elf_status.message(), "not inside a loaded segment"))
      return absl::FailedPreconditionError(
          absl::StrCat(name, ": object file has no loadable segments"));
    return parsed.elf_status;
  }
  const ElfFile& elf = *parsed.elf;
  // _dl_map_object_from_fd names the object by the name it was requested under.
  if (MapRefusalResult refusal = MapRefusal(elf, glibc_)) {
    return refusal.assertion
               ? absl::AbortedError(refusal.message)
               : absl::FailedPreconditionError(absl::StrCat(name, ": ", refusal.message));
  }
  auto obj = std::make_unique<Object>();
  obj->file_id = parsed.file_id;
  obj->blob = parsed.blob;
  return AddObject(std::move(obj), parsed, path, opened_as, {std::string(name)}, found_by,
                   requester, preexisting);
}

absl::StatusOr<Object*> Loader::TryDir(absl::string_view dir, absl::string_view name,
                                       HowFound found_by, Object* requester, bool preexisting,
                                       Skipped* skipped) {
  // open_path: dir/<each capability subdirectory>/name, then dir/name. A subdirectory that does
  // not exist is known after one stat (ld.so marks it `nonexisting`), and is skipped for the rest
  // of the call: which ones exist is found once per directory.
  std::optional<std::vector<std::string>>& subdirs = parses_->CapabilityDirs(dir, cpu_.subdirs);
  if (!subdirs) {
    subdirs.emplace();
    auto is_dir = [&](const std::string& path) { return parses_->DirectoryId(path).has_value(); };
    // A subdirectory under a first component that is not a directory is not one either: one stat
    // of "tls" answers for its eight (most directories have none of the eighteen).
    std::vector<std::pair<absl::string_view, bool>> tops;
    for (const std::string& sub : cpu_.subdirs) {
      const absl::string_view top = absl::string_view(sub).substr(0, sub.find('/'));
      auto it =
          std::find_if(tops.begin(), tops.end(), [&](const auto& t) { return t.first == top; });
      if (it == tops.end()) {
        tops.emplace_back(top, top.size() == sub.size() || is_dir(JoinDir(dir, top)));
        it = std::prev(tops.end());
      }
      if (!it->second) continue;
      std::string subdir = JoinDir(dir, sub);
      if (is_dir(subdir)) subdirs->push_back(std::move(subdir));
    }
  }
  for (const std::string& subdir : *subdirs) {
    ABICHECK_ASSIGN_OR_RETURN(Object * o, TryPath(JoinDir(subdir, name), name, found_by, requester,
                                                  preexisting, skipped));
    if (o != nullptr) return o;
  }
  return TryPath(JoinDir(dir, name), name, found_by, requester, preexisting, skipped);
}

absl::Status Loader::ForEachPathList(
    const Object& requester,
    absl::FunctionRef<absl::Status(HowFound, const std::vector<std::string>&)> f) const {
  // RPATH of the requester and of each object that loaded it, unless the requester has RUNPATH.
  if (!requester.elf->has_runpath()) {
    for (const Object* l = &requester; l != nullptr; l = l->loader) {
      if (l->elf->rpath().empty() || l->elf->has_runpath()) continue;
      ABICHECK_RETURN_IF_ERROR(f(HowFound::kRpath, RpathDirs(*l)));
    }
  }
  ABICHECK_RETURN_IF_ERROR(f(HowFound::kLibraryPath, options_.library_path));
  if (requester.elf->has_runpath())
    ABICHECK_RETURN_IF_ERROR(f(HowFound::kRunpath, RunpathDirs(requester)));
  return absl::OkStatus();
}

const Loader::MissedSearch* Loader::Missed(absl::string_view name, const Object& requester) {
  // The directories a search of `name` by `requester` tries, in MapObject's order, as the key of
  // an earlier search that found nothing. The files do not change during a check, so the same
  // directories miss again the same way: a build's libraries ask for the same missing sonames
  // (libcudart.so.12, ...) from many objects, each trying the same dozen paths.
  std::string& key = search_key_;
  key.assign(name.data(), name.size());
  (void)ForEachPathList(requester, [&](HowFound how, const std::vector<std::string>& dirs) {
    for (const std::string& d : dirs) {
      key.push_back('\0');
      key.push_back(static_cast<char>(how));
      key.append(d);
    }
    return absl::OkStatus();
  });
  key.push_back('\0');
  key.push_back((requester.elf->flags_1() & elf::DF_1_NODEFLIB) != 0 ? 'N' : 'D');
  auto it = missed_searches_.find(key);
  return it == missed_searches_.end() ? nullptr : &it->second;
}

const Object* Loader::SameStemProvider(absl::string_view name) const {
  // "libc10.so.2.6" -> "libc10.so": a provider whose soname (or file name) starts with it.
  const std::string stem = SonameStem(name);
  if (stem.empty()) return nullptr;
  for (const Object* o : loaded()) {
    if (!o->preexisting || o->found_by != HowFound::kProvider) continue;
    absl::string_view soname = o->elf->soname();
    absl::string_view file = o->path;
    if (size_t slash = file.rfind('/'); slash != absl::string_view::npos)
      file.remove_prefix(slash + 1);
    for (absl::string_view n : {soname, file}) {
      if (n.size() >= stem.size() && n.substr(0, stem.size()) == stem &&
          (n.size() == stem.size() || n[stem.size()] == '.')) {
        return o;
      }
    }
  }
  return nullptr;
}

const std::vector<const Object*>& Loader::ProcessBase(Object* requester) {
  if (process_base_) return *process_base_;
  process_base_.emplace();
  MapFailure ignored;
  // The program's own DT_NEEDED found it, with the program's search path — not the requester's
  // (its DF_1_NODEFLIB has no say over what the process loaded before: C2n).
  absl::StatusOr<Object*> libc = FindLoaded("libc.so.6") != nullptr
                                     ? MapObject("libc.so.6", requester, true, &ignored)
                                     : SystemSearch("libc.so.6", /*preexisting=*/true);
  if (!libc.ok() || *libc == nullptr) return *process_base_;
  std::vector<MapFailure> failures;  // libc's own needs: the dynamic linker, always there
  absl::StatusOr<std::vector<const Object*>> closure = MapDeps(*libc, true, &failures);
  if (closure.ok()) *process_base_ = *std::move(closure);
  return *process_base_;
}

absl::StatusOr<Object*> Loader::SystemSearch(absl::string_view name, bool preexisting) {
  Skipped skipped;
  auto memo = cache_lookups_.find(name);
  if (memo == cache_lookups_.end())
    memo = cache_lookups_.emplace(std::string(name), cache_->Lookup(name, machine_)).first;
  Object* found = nullptr;
  if (const std::optional<std::string>& p = memo->second) {
    ABICHECK_ASSIGN_OR_RETURN(found, TryPath(absl::StrCat(options_.sysroot, *p), name,
                                             HowFound::kLdCache, nullptr, preexisting, &skipped));
  }
  for (size_t i = 0; found == nullptr && i < system_dirs_.size(); ++i) {
    ABICHECK_ASSIGN_OR_RETURN(
        found, TryDir(system_dirs_[i], name, HowFound::kSystem, nullptr, preexisting, &skipped));
  }
  if (found != nullptr) found->host = true;
  return found;
}

bool InEveryProcess(absl::string_view name) {
  return name == "libc.so.6" || absl::StartsWith(name, "ld-linux");
}

bool IsSystemProvidedLibrary(absl::string_view name) {
  // manylinux2014's lib_whitelist, which the later policies keep.
  static constexpr absl::string_view kPolicy[] = {
      "libgcc_s.so.1",       "libstdc++.so.6",      "libm.so.6",        "libdl.so.2",
      "librt.so.1",          "libc.so.6",           "libnsl.so.1",      "libutil.so.1",
      "libpthread.so.0",     "libresolv.so.2",      "libX11.so.6",      "libXext.so.6",
      "libXrender.so.1",     "libICE.so.6",         "libSM.so.6",       "libGL.so.1",
      "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0", "libcuda.so.1"};
  return InEveryProcess(name) ||
         std::find(std::begin(kPolicy), std::end(kPolicy), name) != std::end(kPolicy);
}

bool IsInterpreterLibrary(absl::string_view soname) {
  return absl::StartsWith(soname, "libpython") && soname.size() > 9 &&
         absl::ascii_isdigit(static_cast<unsigned char>(soname[9])) &&
         absl::StrContains(soname, ".so");
}

bool IsGpuDriverLibrary(absl::string_view soname) {
  // The libraries libnvidia-container mounts into a container as the driver's (src/nvc_info.c:
  // utility_libs, compute_libs, video_libs, graphics_libs, graphics_libs_glvnd, ngx_libs), by
  // the name before ".so" (docs/loader-model.md C2b lists them).
  static constexpr absl::string_view kDriver[] = {"libcuda",
                                                  "libcudadebugger",
                                                  "libnvidia-ml",
                                                  "libnvidia-cfg",
                                                  "libnvidia-nscq",
                                                  "libnvidia-opencl",
                                                  "libnvidia-gpucomp",
                                                  "libnvidia-ptxjitcompiler",
                                                  "libnvidia-fatbinaryloader",
                                                  "libnvidia-allocator",
                                                  "libnvidia-compiler",
                                                  "libnvidia-pkcs11",
                                                  "libnvidia-pkcs11-openssl3",
                                                  "libnvidia-nvvm",
                                                  "libnvidia-tileiras",
                                                  "libvdpau_nvidia",
                                                  "libnvidia-encode",
                                                  "libnvidia-opticalflow",
                                                  "libnvcuvid",
                                                  "libnvidia-eglcore",
                                                  "libnvidia-glcore",
                                                  "libnvidia-tls",
                                                  "libnvidia-glsi",
                                                  "libnvidia-fbc",
                                                  "libnvidia-ifr",
                                                  "libnvidia-rtcore",
                                                  "libnvoptix",
                                                  "libGLX_nvidia",
                                                  "libEGL_nvidia",
                                                  "libGLESv2_nvidia",
                                                  "libGLESv1_CM_nvidia",
                                                  "libnvidia-glvkspirv",
                                                  "libnvidia-cbl",
                                                  "libnvidia-ngx"};
  const size_t so = soname.find(".so");
  if (so == absl::string_view::npos) return false;
  absl::string_view version = soname.substr(so + 3);
  if (!version.empty() && version.front() != '.') return false;
  return std::find(std::begin(kDriver), std::end(kDriver), soname.substr(0, so)) !=
         std::end(kDriver);
}

const Object* Loader::FirstNamed(absl::string_view name) const {
  // Every name an object answers to is a key of by_name_, except a path it was found at.
  const Object* first = nullptr;
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    for (const Object* o : it->second) {
      if (o != set_aside_ && NameMatches(*o, name) &&
          (first == nullptr || o->load_index < first->load_index))
        first = o;
    }
  }
  if (name.find('/') == absl::string_view::npos) return first;
  for (const Object* o : loaded()) {
    if (o->path == name) return first != nullptr && first->load_index < o->load_index ? first : o;
  }
  return first;
}

const Object* Loader::FindNeeded(Object* requester, absl::string_view file,
                                 bool* in_every_process) {
  *in_every_process = InEveryProcess(file) || file.empty();
  const Object* provider = FirstNamed(file);
  if (provider == nullptr && *in_every_process && !file.empty() && options_.use_host) {
    for (const Object* b : ProcessBase(requester)) {
      if (NameMatches(*b, file)) provider = b;
    }
  }
  return provider;
}

Loader::Mark Loader::Checkpoint() {
  mark_ = true;
  return Mark{objects_.size(), assumed_used_.size(), added_names_.size(), walked_.size(),
              process_base_.has_value()};
}

void Loader::Rollback(const Mark& m) {
  // Deps filled since: empty again, before the objects that go are gone.
  for (size_t i = m.walked; i < walked_.size(); ++i) {
    if (walked_[i]->load_index < m.objects) walked_[i]->deps.clear();
  }
  walked_.resize(m.walked);
  // Names given to older objects, newest first (a name added twice comes off twice).
  while (added_names_.size() > m.names) {
    auto [o, keyed] = added_names_.back();
    added_names_.pop_back();
    if (o->load_index >= m.objects) continue;  // goes with its object
    if (keyed) {  // its last entry under that name (newer objects' may follow it)
      std::vector<const Object*>& v = by_name_[o->names.back()];
      if (auto it = std::find(v.rbegin(), v.rend(), o); it != v.rend())
        v.erase(std::next(it).base());
    }
    o->names.pop_back();
  }
  while (objects_.size() > m.objects) {
    Object* o = objects_.back().get();
    auto unkey = [&](const std::string& n) {
      auto it = by_name_.find(n);
      if (it == by_name_.end()) return;
      std::erase(it->second, o);
      if (it->second.empty()) by_name_.erase(it);
    };
    for (const std::string& n : o->names) unkey(n);
    if (!o->elf->soname().empty()) unkey(std::string(o->elf->soname()));
    // Identity entries go back to the object set aside, whose they were.
    const Object* aside = set_aside_;
    if (auto it = by_blob_.find(o->blob.get());
        o->blob && it != by_blob_.end() && it->second == o) {
      if (aside != nullptr && aside->blob == o->blob)
        it->second = const_cast<Object*>(aside);
      else
        by_blob_.erase(it);
    }
    if (o->file_id) {
      const std::pair<uint64_t, uint64_t> id{o->file_id->dev, o->file_id->ino};
      if (auto it = by_file_.find(id); it != by_file_.end() && it->second == o) {
        if (aside != nullptr && aside->file_id && aside->file_id->dev == id.first &&
            aside->file_id->ino == id.second)
          it->second = const_cast<Object*>(aside);
        else
          by_file_.erase(it);
      }
    }
    if (o->preexisting && o->found_by == HowFound::kProvider) ++providers_changed_;
    objects_.pop_back();
  }
  assumed_used_.resize(m.assumed_used);
  if (!m.process_base) process_base_.reset();
  set_aside_ = nullptr;
}

// docs/loader-model.md E12: whether `found`, which a search for `name` from `requester` found in
// `found_in` ("" for the ld.so.cache) after trying `missing_dir` of `incomplete` (nullptr when
// it tried no directory of a world lacking pinned wheels), may not be the file the install would
// load; if so it says why. A file of the world itself (one pip keeps, FileTree::KeptOnDisk,
// among them) is the install's there too; no wheel stands in front of a library the system
// provides (IsSystemProvidedLibrary).
void Loader::NotTheInstalls(Object* found, absl::string_view name, const Object& requester,
                            const std::string& found_in, const FileTree* incomplete,
                            const std::string& missing_dir) const {
  if (found->host && IsSystemProvidedLibrary(name)) return;
  const std::string at = found_in.empty() ? std::string() : JoinDir(found_in, name);
  if (incomplete != nullptr &&
      (at.empty() || (incomplete->File(at) == nullptr && !incomplete->KeptOnDisk(at)))) {
    found->not_the_installs =
        absl::StrCat("after ", missing_dir,
                     ", which the build's world does not have: the wheels it pins and that are not "
                     "given (",
                     absl::StrJoin(incomplete->not_given(), ", "), ") may install ", name,
                     " there, and the loader would load that file instead");
    found->world_not_given = incomplete->not_given();
    return;
  }
  // A file of the environment under a world placed over it (E11), found by one of the world's
  // own objects, that no distribution satisfying one of its pins installed: a wheel the world
  // lacks may install the same path (nvidia-cudnn-cu13 writes nvidia-cudnn-cu12's
  // nvidia/cudnn/lib/libcudnn.so.9).
  const FileTree* over = at.empty() ? nullptr : parses_->TreeAt(at);
  if (over == nullptr || !over->overlay() || over->not_given().empty() ||
      over->File(at) != nullptr || over->KeptOnDisk(at) ||
      over->File(JoinDir(requester.origin, Basename(requester.path))) == nullptr)
    return;
  found->not_the_installs = absl::StrCat(
      "a file of the environment, which the wheels the build pins and that are not given (",
      absl::StrJoin(over->not_given(), ", "), ") may replace");
  found->world_not_given = over->not_given();
}

// Long: _dl_map_object's search order in one place — loaded objects, RPATH chain, LD_LIBRARY_PATH,
// RUNPATH, ld.so.cache, system directories — as docs/loader-model.md C2-C8 lists it.
absl::StatusOr<Object*> Loader::MapObject(absl::string_view name, Object* requester,
                                          bool preexisting, MapFailure* failure) {
  // _dl_map_object: "" is the main program's l_name, so an empty name is the program itself —
  // loaded, with nothing of it to search here (docs/loader-model.md C2).
  if (name.empty()) return nullptr;
  if (const Object* o = FindLoaded(name)) {
    // add_name_to_object: a match by soname makes it one of the object's names (find_needed and
    // check_match compare names only).
    Object* m = const_cast<Object*>(o);
    if (!NameMatches(*m, name)) {
      m->names.emplace_back(name);
      ++names_added_;
      if (mark_) added_names_.push_back({m, false});
    }
    return m;
  }
  if (options_.python.empty() && IsInterpreterLibrary(name)) {
    // E5a: the interpreter's, with no interpreter given: loaded with it where Python is built
    // shared. Not searched for (the host's libpython is not the interpreter's); no failure.
    if (!requester->preexisting &&
        std::find(assumed_used_.begin(), assumed_used_.end(), name) == assumed_used_.end())
      assumed_used_.emplace_back(name);
    return nullptr;
  }
  if (assumed_.contains(name)) {
    // Loaded with the providers, unreadable here (C2a): no failure, no object to search. Only a
    // new object's need makes the load depend on it (a provider's own was known already).
    if (!requester->preexisting &&
        std::find(assumed_used_.begin(), assumed_used_.end(), name) == assumed_used_.end())
      assumed_used_.emplace_back(name);
    return nullptr;
  }
  Skipped skipped;
  tried_a_path_ = false;
  Object* found = nullptr;
  // The real directories this search has tried: one met again under another name (merged /usr:
  // /lib is /usr/lib) answers as it did, and one that does not exist holds nothing; ld.so opens
  // there all the same, and fails (docs/loader-model.md C8).
  absl::InlinedVector<FileId, 8> searched;
  // E12: the first directory tried that a world lacking pinned wheels does not have.
  const FileTree* incomplete = nullptr;
  std::string missing_dir, found_in;
  auto attempt = [&](const std::string& dir, HowFound how) -> absl::Status {
    if (found != nullptr) return absl::OkStatus();
    const std::optional<FileId>& id = parses_->DirectoryId(dir);
    if (!id && incomplete == nullptr) {
      const FileTree* t = parses_->TreeAt(dir);
      if (t != nullptr && !t->not_given().empty()) {
        incomplete = t;
        missing_dir = dir;
      }
    }
    if (!id || std::find(searched.begin(), searched.end(), *id) != searched.end()) {
      tried_a_path_ = true;  // ld.so's open failed there: errno is set
      return absl::OkStatus();
    }
    searched.push_back(*id);
    ABICHECK_ASSIGN_OR_RETURN(found, TryDir(dir, name, how, requester, preexisting, &skipped));
    if (found != nullptr) found_in = dir;
    return absl::OkStatus();
  };
  if (name.find('/') != absl::string_view::npos) {
    ABICHECK_ASSIGN_OR_RETURN(
        found, TryPath(std::string(name), name, HowFound::kPath, requester, preexisting, &skipped));
  } else if (const MissedSearch* missed = Missed(name, *requester)) {
    skipped = missed->skipped;
    tried_a_path_ = missed->tried_a_path;
  } else {
    const absl::Status path_lists =
        ForEachPathList(*requester, [&](HowFound how, const std::vector<std::string>& dirs) {
          for (const std::string& d : dirs) ABICHECK_RETURN_IF_ERROR(attempt(d, how));
          return absl::OkStatus();
        });
    ABICHECK_RETURN_IF_ERROR(path_lists);
    const bool nodeflib = (requester->elf->flags_1() & elf::DF_1_NODEFLIB) != 0;
    if (found == nullptr && options_.use_host && nodeflib && InEveryProcess(name)) {
      // _dl_map_object matches what is loaded before it searches: the process's libc and
      // dynamic linker are, though DF_1_NODEFLIB keeps the search from the system directories
      // (docs/loader-model.md C2n). Elsewhere the search finds that same file.
      for (const Object* b : ProcessBase(requester)) {
        if (NameMatches(*b, name) || b->elf->soname() == name) found = const_cast<Object*>(b);
      }
      if (found != nullptr) {
        if (!NameMatches(*found, name)) {
          found->names.emplace_back(name);
          ++names_added_;
          if (mark_) added_names_.push_back({found, false});
        }
        return found;
      }
    }
    if (found == nullptr && options_.use_host && !nodeflib) {
      // The cache does not change during a check: each name is searched once (a build's missing
      // libraries are asked for by many of its objects).
      auto memo = cache_lookups_.find(name);
      if (memo == cache_lookups_.end())
        memo = cache_lookups_.emplace(std::string(name), cache_->Lookup(name, machine_)).first;
      if (const std::optional<std::string>& p = memo->second) {
        ABICHECK_ASSIGN_OR_RETURN(
            found, TryPath(absl::StrCat(options_.sysroot, *p), name, HowFound::kLdCache, requester,
                           preexisting, &skipped));
        if (found != nullptr) found->host = true;
      }
      for (const std::string& d : system_dirs_)
        ABICHECK_RETURN_IF_ERROR(attempt(d, HowFound::kSystem));
      if (found != nullptr && found->found_by == HowFound::kSystem) found->host = true;
    }
    if (found == nullptr) missed_searches_[search_key_] = MissedSearch{skipped, tried_a_path_};
  }
  if (found != nullptr) {
    if (found->not_the_installs.empty())
      NotTheInstalls(found, name, *requester, found_in, incomplete, missing_dir);
    return found;
  }
  if (IsGpuDriverLibrary(name) && !skipped.other_class && skipped.other_machine.empty()) {
    // C2b: the GPU driver's library, on no path searched here: loaded on the machine that has the
    // driver, whoever needs it (module, package library, torch's). No failure, no object.
    if (!requester->preexisting &&
        std::find(assumed_used_.begin(), assumed_used_.end(), name) == assumed_used_.end())
      assumed_used_.emplace_back(name);
    return nullptr;
  }
  if (options_.same_stem_stand_ins) {
    // Asked again for each object that needs the same missing library: the answer stands until
    // a provider is loaded or taken off, or another object is set aside.
    if (same_stem_loaded_ != std::make_pair(providers_changed_, set_aside_)) {
      same_stem_memo_.clear();
      same_stem_loaded_ = {providers_changed_, set_aside_};
    }
    auto memo = same_stem_memo_.find(name);
    if (memo == same_stem_memo_.end())
      memo = same_stem_memo_.emplace(std::string(name), SameStemProvider(name)).first;
    failure->stand_in = memo->second;
  }
  failure->requester = requester;
  failure->name = std::string(name);
  if (skipped.other_class) {
    failure->kind = FailureKind::kWrongElfClass;
    failure->message =
        absl::StrCat(name, ": wrong ELF class: ", is_64_ ? "ELFCLASS32" : "ELFCLASS64");
  } else if (!skipped.other_machine.empty()) {
    // ld.so skips it silently and says the file does not exist; say which file it was.
    failure->kind = FailureKind::kWrongMachine;
    failure->message =
        absl::StrCat(name, ": cannot open shared object file: No such file or directory");
    failure->skipped_file = skipped.other_machine;
  } else {
    // No directory at all to search (DF_1_NODEFLIB and no path): errno is still 0, and ld.so's
    // message has no reason.
    failure->kind = FailureKind::kMissingLibrary;
    failure->message = absl::StrCat(name, ": cannot open shared object file",
                                    tried_a_path_ ? ": No such file or directory" : "");
  }
  return nullptr;
}

namespace {

// MapDeps: a filtee goes at `insert_at`, just before its filter — moved there when it is later in
// the list; one already earlier stays where it is (found first anyway). True when it was placed.
bool PlaceFiltee(const Object* dep, size_t insert_at, std::vector<const Object*>* list,
                 std::vector<bool>* done) {
  auto at = std::find(list->begin(), list->end(), dep);
  const size_t pos = static_cast<size_t>(at - list->begin());
  if (at != list->end() && pos < insert_at) return false;
  if (at != list->end()) {  // later in the list (pos > the filter's place)
    list->erase(at);
    done->erase(done->begin() + static_cast<ptrdiff_t>(pos));
  }
  list->insert(list->begin() + static_cast<ptrdiff_t>(insert_at), dep);
  done->insert(done->begin() + static_cast<ptrdiff_t>(insert_at), false);
  return true;
}

}  // namespace

absl::StatusOr<std::vector<const Object*>> Loader::MapDeps(Object* root, bool preexisting,
                                                           std::vector<MapFailure>* failures) {
  // _dl_map_object_deps: a breadth-first list. DT_NEEDED entries are appended; a filtee
  // (DT_FILTER, DT_AUXILIARY) is put just before its filter — moved there if it is already later
  // in the list — and its own dependencies are walked next (docs/loader-model.md C6).
  std::vector<const Object*> list{root};
  std::vector<bool> done{false};
  // Which objects the list holds, for DT_NEEDED's "already there": a search of the list per
  // dependency made a 10,000-deep chain cubic (issue 37 item 10). Filtees still search it, for
  // their place.
  absl::flat_hash_set<const Object*> listed{root};
  for (size_t i = 0; i < list.size();) {
    if (done[i]) {
      ++i;
      continue;
    }
    done[i] = true;
    Object* l = const_cast<Object*>(list[i]);
    size_t insert_at = i;  // where the next filtee goes: before l
    const bool fresh = l->deps.empty();
    // An older object's first walk during a check (one whose only dependency is an auxiliary
    // filtee that was not found): its deps go with the Rollback.
    if (fresh && !l->elf->dependencies().empty()) {
      ++fresh_walks_;
      if (mark_) walked_.push_back(l);
    }
    GlobalReadTrace().dependency_visits.fetch_add(l->elf->dependencies().size(),
                                                  std::memory_order_relaxed);
    for (const Dependency& d : l->elf->dependencies()) {
      const bool filter = d.tag != elf::DT_NEEDED;
      // DSTs in the name (docs/loader-model.md C7); a name with '/' after that is a path.
      std::string substituted;
      const absl::string_view name = SubstituteDst(d.name, *l, &substituted);
      MapFailure failure;
      absl::StatusOr<Object*> dep = MapObject(name, l, preexisting, &failure);
      if (d.tag == elf::DT_AUXILIARY && (!dep.ok() || *dep == nullptr)) {
        continue;  // an auxiliary filtee that cannot be loaded is skipped silently
      }
      if (!dep.ok()) {
        // "invalid ELF header", "shared object cannot be dlopen()ed" and the like end the load
        // with their own message.
        // An assertion (AbortedError) ends the process with its own text.
        if (absl::IsFailedPrecondition(dep.status()) || absl::IsAborted(dep.status())) {
          failure.requester = l;
          failure.name = std::string(name);
          failure.kind = absl::IsAborted(dep.status()) ? FailureKind::kLoaderAssertion
                                                       : FailureKind::kNotLoadable;
          failure.message = std::string(dep.status().message());
          failures->push_back(failure);
          if (fresh) l->deps.push_back(nullptr);
          continue;
        }
        return dep.status();
      }
      if (*dep == nullptr && failure.stand_in != nullptr)
        *dep = const_cast<Object*>(failure.stand_in);
      if (fresh) l->deps.push_back(*dep);
      if (failure.requester != nullptr) failures->push_back(failure);
      if (*dep == nullptr) continue;
      if (!filter) {
        if (listed.insert(*dep).second) {
          list.push_back(*dep);
          done.push_back(false);
        }
        continue;
      }
      listed.insert(*dep);
      if (PlaceFiltee(*dep, insert_at, &list, &done)) ++insert_at;
    }
    // The next iteration looks at list[i] again: the first filtee inserted, if any, else l (done).
  }
  return list;
}

absl::Status Loader::MapProviderDeps(Object* root, std::vector<MapFailure>* failures) {
  const std::array<size_t, 5> before = State();
  if (root->walked_unchanged == before) return absl::OkStatus();
  const size_t failed = failures->size();
  ABICHECK_ASSIGN_OR_RETURN(std::vector<const Object*> list, MapDeps(root, true, failures));
  // Nothing changed: every object of this closure would walk its own (a part of it) to the same
  // nothing, while the loader stays as it is.
  if (failures->size() == failed && State() == before) {
    for (const Object* o : list) const_cast<Object*>(o)->walked_unchanged = before;
  }
  return absl::OkStatus();
}

std::optional<Symbol> Loader::LookupIn(const Object& m, const HashedName& name,
                                       const WantedVersion* version, bool plt_class,
                                       bool* asserts) const {
  const SymbolTable& t = *m.syms;
  if (!t.has_hash_table()) return std::nullopt;  // l_nbuckets == 0: nothing to find here
  std::optional<Symbol> match;
  std::optional<Symbol> versioned_sym;
  int num_versions = 0;
  t.ForEachNamedSymbol(name, [&](const Symbol& s, uint16_t vs) {
    // check_match: valueless entries, types never bound, and for PLT-class lookups undefined
    // ones are no definition.
    if (!IsLookupCandidate(s) || (plt_class && s.shndx == elf::SHN_UNDEF)) return false;
    if (version != nullptr) {
      // docs/loader-model.md B2: no .gnu.version accepts the name alone — unless this is the very
      // file the verneed names, where 2.36 dies on an assertion (B5); else the version name must
      // match, or the entry must be unversioned (its l_versions hash 0) and not hidden.
      if (!t.has_versym() && asserts != nullptr && !version->file.empty() &&
          NameMatches(m, version->file)) {
        *asserts = true;
        return true;
      }
      if (t.has_versym()) {
        const VersionSlot* slot = t.Slot(vs & 0x7fff);
        const uint32_t slot_hash = slot ? slot->hash : 0;
        const bool same =
            slot != nullptr && slot->hash == version->hash && slot->name == version->name;
        if (!same && (version->hidden || slot_hash != 0 || (vs & elf::VERSYM_HIDDEN) != 0))
          return false;
      }
    } else if (t.has_versym()) {
      // docs/loader-model.md B3: index <= 2 matches (hidden or not); otherwise remember one
      // non-hidden versioned definition, used only if it is the only one.
      if ((vs & 0x7fff) >= 3) {
        if ((vs & elf::VERSYM_HIDDEN) == 0 && num_versions++ == 0) versioned_sym = s;
        return false;
      }
    }
    match = s;
    return true;
  });
  if (!match && num_versions == 1) match = versioned_sym;
  if (!match) return std::nullopt;
  // docs/loader-model.md A: hidden/internal or local — this object offers nothing; global, weak,
  // unique bind.
  if (match->visibility() == elf::STV_HIDDEN || match->visibility() == elf::STV_INTERNAL)
    return std::nullopt;
  switch (match->bind()) {
    case elf::STB_GLOBAL:
    case elf::STB_WEAK:
    case elf::STB_GNU_UNIQUE:
      return match;
    default:
      return std::nullopt;
  }
}

std::optional<Binding> Loader::Lookup(const std::vector<const Object*>& scope,
                                      const HashedName& name, const WantedVersion* version,
                                      bool plt_class, bool* asserts) const {
  for (const Object* m : scope) {
    std::optional<Symbol> s = LookupIn(*m, name, version, plt_class, asserts);
    if (asserts != nullptr && *asserts) return std::nullopt;
    if (s) return Binding{m, *s};
  }
  return std::nullopt;
}

}  // namespace abicheck
