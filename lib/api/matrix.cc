// CheckMatrix(): module inputs (files, directories, wheels, pip: releases) x builds, each
// input's modules sharing their package's objects and a world per package and build.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <utility>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/api/build.h"
#include "lib/api/check_internal.h"
#include "lib/api/findings.h"
#include "lib/api/given_loads.h"
#include "lib/api/limits.h"
#include "lib/inputs/inputs.h"
#include "lib/inputs/pip.h"
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/io/byte_source.h"
#include "lib/resolve/world.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {

// How a row of the matrix is shown: the member's path inside a wheel, the path below a
// directory, the file name of a file.
std::vector<std::string> PackagesOf(const ExpandedInput& ex) {
  // One package for a wheel, a file or a package's own directory; per top-level entry for a
  // directory of installed packages (it has a *.dist-info or *.egg-info directory).
  std::vector<std::string> out(ex.objects.size());
  if (ex.kind != "directory") return out;
  std::error_code ec;
  bool site = false;
  for (const auto& d : std::filesystem::directory_iterator(ex.path, ec)) {
    const std::string n = d.path().filename().string();
    if (absl::EndsWith(n, ".dist-info") || absl::EndsWith(n, ".egg-info")) site = true;
  }
  if (!site) return out;
  for (size_t i = 0; i < ex.objects.size(); ++i) {
    absl::string_view rest = ex.objects[i].name;
    if (!absl::ConsumePrefix(&rest, ex.path)) continue;
    while (absl::ConsumePrefix(&rest, "/")) {
    }
    std::string top(rest.substr(0, rest.find('/')));
    if (absl::EndsWith(top, ".libs"))
      top.resize(top.size() - 5);  // auditwheel's vendored libraries
    out[i] = top;
  }
  return out;
}

// One module input's objects and their packages, shared by its modules.
struct ModuleGroup {
  std::vector<InputFile> objects;    // everything the input expanded to
  std::vector<std::string> package;  // per object, its package
  std::vector<size_t> place;         // per object, its place among its package's objects
  // File name -> the objects of that name, in order (E9's test).
  absl::flat_hash_map<std::string, std::vector<size_t>> by_basename;
  // An archive's objects where pip installs them (E10): a vendored library's $ORIGIN search
  // (auditwheel's torchvision.libs/libz.cac6d5fc.so.1) finds its siblings there.
  std::shared_ptr<FileTree> tree;
};

void MarkOrderDependent(const ModuleGroup& g, const std::string& package, Report* r) {
  // docs/loader-model.md E9: a missing library that another package in the same directory
  // ships is there only if that package was imported first.
  for (Problem& p : r->problems) {
    if (p.kind != ProblemKind::kMissingLibrary) continue;
    auto it = g.by_basename.find(p.library);
    if (it == g.by_basename.end()) continue;
    for (size_t j : it->second) {
      if (g.package[j] == package) continue;
      p.hint = absl::StrCat("order-dependent: ", g.objects[j].name, " provides ", p.library,
                            ", but it belongs to another package: this loads only if that "
                            "package is imported first (and loads it RTLD_GLOBAL or by this "
                            "name); depend on it explicitly, or bundle the library");
      break;
    }
  }
}

std::string ModuleLabel(const ExpandedInput& in, const InputFile& f) {
  if (size_t bang = f.name.rfind('!'); bang != std::string::npos) return f.name.substr(bang + 1);
  if (in.kind == "directory" && absl::StartsWith(f.name, in.path)) {
    absl::string_view rest = absl::string_view(f.name).substr(in.path.size());
    while (absl::ConsumePrefix(&rest, "/")) {
    }
    if (!rest.empty()) return std::string(rest);
  }
  return Basename(f.name);
}

namespace {

// The same input given twice (by the same name, or another name of the same file) is checked
// once, with a note.
std::vector<std::string> Dedupe(const std::vector<std::string>& args, const char* role,
                                std::vector<Warning>* notes) {
  std::vector<std::string> kept;
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  for (const std::string& a : args) {
    struct stat st;
    const bool have = ::stat(a.c_str(), &st) == 0;
    const std::pair<uint64_t, uint64_t> id{have ? st.st_dev : 0, have ? st.st_ino : 0};
    const bool dup = std::find(kept.begin(), kept.end(), a) != kept.end() ||
                     (have && std::find(ids.begin(), ids.end(), id) != ids.end());
    if (dup) {
      notes->push_back({a, absl::StrCat("given twice as ", role, ": checked once")});
      continue;
    }
    kept.push_back(a);
    if (have) ids.push_back(id);
  }
  return kept;
}

// A module of the matrix: one object of a module input, with the input's other objects (its
// package's own libraries) shared by the input's modules — a wheel of n objects would otherwise
// hold n^2 of them.
struct ModuleEntry {
  std::shared_ptr<const ModuleGroup> group;
  size_t self = 0;
  ModuleInfo info;
  const InputFile& module() const { return group->objects[self]; }
  const std::string& package() const { return group->package[self]; }
};

// docs/loader-model.md E6, E7: every shared object a package ships is loaded and checked; its
// siblings count as loaded for it. A directory that holds installed packages (a site-packages:
// it has *.dist-info) is several packages, one per top-level entry ("torchvision" with its
// "torchvision.libs"): a module sees its own package's objects; what only another package
// provides depends on import order (E9).
absl::Status ExpandModules(const std::string& in, const InputLimits& limits,
                           std::vector<ModuleEntry>* modules, std::vector<Warning>* notes) {
  ABICHECK_ASSIGN_OR_RETURN(std::vector<std::string> in_index, IndexBuilds(in));
  if (!in_index.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(in, ": an index holds builds to check against (--against), not modules"));
  }
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput ex, ExpandInput(in, ToReadLimits(limits)));
  for (const std::string& n : ex.notes) notes->push_back({in, n});
  if (ex.objects.empty()) {
    // A pure-Python wheel among dist/*.whl has nothing the loader could refuse: it passes, said.
    if (ex.kind == "archive") {
      notes->push_back({in,
                        "no shared object in this archive (pure Python): nothing to load, "
                        "nothing that can fail to"});
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(in, ": no module to check in this ", ex.kind,
                                                   " (it holds no ELF shared object)"));
  }
  const PackageMetadata md = ParseMetadata(TextMember(ex, ".dist-info/METADATA"));
  auto group = std::make_shared<ModuleGroup>();
  group->package = PackagesOf(ex);
  group->objects = std::move(ex.objects);
  if (ex.kind == "archive") {
    group->tree = std::make_shared<FileTree>(ex.path);
    for (const InputFile& f : group->objects)
      group->tree->Add(f.name.substr(f.name.rfind('!') + 1), f);
  }
  absl::flat_hash_map<absl::string_view, size_t> count;
  for (size_t i = 0; i < group->objects.size(); ++i) {
    group->place.push_back(count[group->package[i]]++);
    group->by_basename[Basename(group->objects[i].name)].push_back(i);
  }
  for (size_t i = 0; i < group->objects.size(); ++i) {
    ModuleEntry e;
    e.group = group;
    e.self = i;
    e.info.label = ModuleLabel(ex, e.module());
    e.info.package = md.name;
    e.info.version = md.version;
    e.info.torch_requirements = md.torch_requirements;
    e.info.extension_module = DefinesPyInit(e.module());
    modules->push_back(std::move(e));
  }
  return absl::OkStatus();
}

// The matrix's columns: per build, its providers and global-scope objects (the common ones
// first); one column of the common ones alone when no build is given.
struct Columns {
  std::vector<std::vector<InputFile>> providers, preload;
  std::vector<std::shared_ptr<const FileTree>> trees;  // the wheel builds' (E10)
};

// One world per package and build (docs/loader-model.md E7): the package's objects and the
// build's libraries loaded once, each module checked in it with its own object set aside —
// linear in the package's size. A module the world cannot stand for (another object needs it, it
// brought something in, another machine) is checked in a world of its own.
class PackageChecks {
 public:
  PackageChecks(const Columns& columns, const CommonInputs& common, const CheckOptions& options,
                const std::vector<ModuleEntry>& modules)
      : columns_(columns), common_(common), options_(options) {
    for (const ModuleEntry& e : modules) ++worlds_[{e.group.get(), e.package()}].remaining;
    for (const auto& t : columns.trees) parses_.AddTree(t);
    for (const ModuleEntry& e : modules) {
      if (e.group->tree) parses_.AddTree(e.group->tree);
    }
  }

  // The module's report against every build, in column order.
  absl::StatusOr<std::vector<Report>> Check(const ModuleEntry& e) {
    const std::pair<const ModuleGroup*, std::string> key{e.group.get(), e.package()};
    PackageWorlds& pw = worlds_[key];
    if (pw.inputs.empty()) Prepare(e, &pw);
    const size_t own = e.group->place[e.self];  // its place among its package's objects
    LoadFindings refused_findings;              // the module's header, read once for all builds
    ABICHECK_ASSIGN_OR_RETURN(std::optional<ElfFile> probe,
                              ProbeModule(e.module(), &refused_findings));
    const Report refused = probe ? Report() : ToReport(std::move(refused_findings));
    std::vector<Report> reports;
    for (size_t b = 0; b < columns_.providers.size(); ++b) {
      Report r;
      if (!probe) {
        r = refused;
      } else {
        ABICHECK_ASSIGN_OR_RETURN(r, CheckOne(e, *probe, own, b, pw));
      }
      if (probe) {
        ABICHECK_ASSIGN_OR_RETURN(std::optional<Warning> note, GivenOf(b).Apply(&r));
        if (note && said_.insert(absl::StrCat(b, "\n", note->object)).second)
          notes_.push_back(*std::move(note));
      }
      if (!r.loads) MarkOrderDependent(*e.group, e.package(), &r);
      reports.push_back(std::move(r));
    }
    if (--pw.remaining == 0) worlds_.erase(key);  // its objects are done with
    return reports;
  }

  // E7: `e` against build `b` again, without the objects of its package in `not_loaded` (their
  // own rows fail: they are not loaded, and its own search decides, as in the process) nor those
  // that need it; the build's libraries and its package's other objects stay loaded.
  absl::StatusOr<Report> CheckWithout(const ModuleEntry& e, size_t b,
                                      const absl::flat_hash_set<std::string>& not_loaded) {
    const std::vector<InputFile>& all = e.group->objects;
    std::vector<size_t> own;  // the package's objects that may have loaded before it
    for (size_t j = 0; j < all.size(); ++j) {
      if (j != e.self && e.group->package[j] == e.package() && !IsVendoredLibrary(all[j].name) &&
          !not_loaded.contains(all[j].path))
        own.push_back(j);
    }
    const absl::flat_hash_set<size_t> needing = NeedingIt(*e.group, e.self, own);
    std::vector<InputFile> providers;
    for (size_t j : own) {
      if (!needing.contains(j)) providers.push_back(all[j]);
    }
    const size_t own_package = providers.size();
    providers.insert(providers.end(), columns_.providers[b].begin(), columns_.providers[b].end());
    ABICHECK_ASSIGN_OR_RETURN(
        Report r, CheckObjects(e.module(), providers, columns_.preload[b], common_.python_file(),
                               options_, ModuleAlreadyLoaded::kIsAnError, &parses_, own_package));
    ABICHECK_ASSIGN_OR_RETURN(std::optional<Warning> note, GivenOf(b).Apply(&r));
    (void)note;  // said when the row was first checked
    if (!r.loads) MarkOrderDependent(*e.group, e.package(), &r);
    return r;
  }

  // What the checks found to say once, above the table: a build's library that cannot load.
  const std::vector<Warning>& notes() const { return notes_; }

 private:
  static constexpr size_t kNotGiven = ~size_t{0};
  struct PackageWorlds {
    std::vector<InputFile> objects;  // the package's, in order
    // Per object, its place among a world's given objects; kNotGiven for a vendored library
    // (E7: it loads only as what another object needs, found where pip installs it).
    std::vector<size_t> slot;
    size_t given = 0;                            // how many of the package's a world is given
    std::vector<std::vector<InputFile>> inputs;  // per build: the given objects + build providers
    std::vector<std::optional<World>> worlds;    // per build; nullopt: none could be made
    size_t remaining = 0;                        // modules still to check
  };

  void Prepare(const ModuleEntry& e, PackageWorlds* pw) {
    const std::vector<InputFile>& all = e.group->objects;
    for (size_t j = 0; j < all.size(); ++j) {
      if (e.group->package[j] == e.package()) pw->objects.push_back(all[j]);
    }
    std::optional<ElfFile> probe;
    for (const InputFile& f : pw->objects) {
      LoadFindings refused;
      absl::StatusOr<std::optional<ElfFile>> p = ProbeModule(f, &refused);
      if (p.ok() && *p) {
        probe = std::move(**p);
        break;
      }
    }
    std::vector<InputFile> own;
    for (const InputFile& f : pw->objects) {
      pw->slot.push_back(IsVendoredLibrary(f.name) ? kNotGiven : own.size());
      if (pw->slot.back() != kNotGiven) own.push_back(f);
    }
    pw->given = own.size();
    for (size_t b = 0; b < columns_.providers.size(); ++b) {
      std::vector<InputFile> inputs = own;
      inputs.insert(inputs.end(), columns_.providers[b].begin(), columns_.providers[b].end());
      absl::StatusOr<World> w =
          probe ? PrepareWorld(*probe, inputs, columns_.preload[b], common_.python_file(),
                               ToLoadOptions(options_), &parses_, pw->given)
                : absl::StatusOr<World>(absl::UnknownError("no module to make it"));
      pw->inputs.push_back(std::move(inputs));
      pw->worlds.push_back(w.ok() ? std::optional<World>(*std::move(w)) : std::nullopt);
    }
  }

  absl::StatusOr<Report> CheckOne(const ModuleEntry& e, const ElfFile& probe, size_t own, size_t b,
                                  PackageWorlds& pw) {
    std::optional<World>& w = pw.worlds[b];
    const size_t slot = pw.slot[own];
    // E7: a vendored library the module names by its soname is loaded only because another of
    // the package's objects needed it (by its hashed file name): the import meets this module
    // without it, so those objects are not in its world.
    absl::flat_hash_set<size_t> bringers;
    if (w) {
      for (const Object* o : w->loader->loaded()) {
        if (!IsVendoredLibrary(o->path) || !o->elf || o->elf->soname().empty()) continue;
        const absl::string_view soname = o->elf->soname();
        if (soname == Basename(o->path)) continue;  // found by its own name: a search finds it
        if (std::find(probe.needed().begin(), probe.needed().end(), soname) == probe.needed().end())
          continue;
        for (size_t j : DependentsOf(*w, o, pw.given)) bringers.insert(j);
      }
    }
    if (w && slot != kNotGiven && bringers.empty() && w->set_aside_ok[slot] &&
        probe.machine() == w->machine && probe.is_64() == w->is_64 &&
        probe.big_endian() == w->big_endian) {
      return CheckInWorld(*w, e.module(), pw.inputs[b], options_, ModuleAlreadyLoaded::kIsAnError,
                          w->given[slot]);
    }
    // E7: the package's objects that need this one, directly or through others (its $ORIGIN
    // siblings, found where pip installs them), cannot have loaded before it: they are not in
    // its world. A vendored library is in the world only as what another object needed.
    const Object* self = nullptr;
    if (w && slot != kNotGiven) {
      self = w->given[slot];
    } else if (w) {  // loaded as what another needed: the same bytes, or the same file on disk
      const std::optional<FileId>& id = parses_.Given(e.module()).file_id;
      for (const Object* o : w->loader->loaded()) {
        if (o->blob == e.module().blob || (id && o->file_id && *o->file_id == *id)) self = o;
      }
    }
    const absl::flat_hash_set<size_t> dependents =
        self ? DependentsOf(*w, self, pw.given) : absl::flat_hash_set<size_t>{};
    std::vector<InputFile> providers;
    providers.reserve(pw.inputs[b].size());
    size_t own_package = 0;
    for (size_t j = 0; j < pw.inputs[b].size(); ++j) {
      if (j == slot || dependents.contains(j) || bringers.contains(j)) continue;
      providers.push_back(pw.inputs[b][j]);
      own_package += j < pw.given ? 1 : 0;
    }
    return CheckObjects(e.module(), providers, columns_.preload[b], common_.python_file(), options_,
                        ModuleAlreadyLoaded::kIsAnError, &parses_, own_package);
  }

  // Of the first `count` given objects (the package's), those whose dependency closure in `w`
  // holds `self`.
  static absl::flat_hash_set<size_t> DependentsOf(const World& w, const Object* self,
                                                  size_t count) {
    absl::flat_hash_set<const Object*> needing = {self};
    for (bool grew = true; grew;) {
      grew = false;
      for (const Object* o : w.loader->loaded()) {
        if (needing.contains(o)) continue;
        for (const Object* d : o->deps) {
          if (d != nullptr && needing.contains(d)) {
            needing.insert(o);
            grew = true;
            break;
          }
        }
      }
    }
    absl::flat_hash_set<size_t> out;
    for (size_t j = 0; j < count && j < w.given.size(); ++j) {
      if (w.given[j] != self && needing.contains(w.given[j])) out.insert(j);
    }
    return out;
  }

  // Of `among` (objects of `g`), those that name `self` in DT_NEEDED (by soname or file name),
  // directly or through others of `among`.
  absl::flat_hash_set<size_t> NeedingIt(const ModuleGroup& g, size_t self,
                                        const std::vector<size_t>& among) {
    absl::flat_hash_set<size_t> needing;
    std::vector<size_t> wanted = {self};
    while (!wanted.empty()) {
      const size_t w = wanted.back();
      wanted.pop_back();
      const ParsedObject& target = parses_.Given(g.objects[w]);
      const std::string file = Basename(g.objects[w].name);
      for (size_t j : among) {
        if (needing.contains(j)) continue;
        const ParsedObject& o = parses_.Given(g.objects[j]);
        if (!o.elf) continue;
        for (absl::string_view n : o.elf->needed()) {
          if (n == file || (target.elf && n == target.elf->soname())) {
            needing.insert(j);
            wanted.push_back(j);
            break;
          }
        }
      }
    }
    return needing;
  }

  // The build's own libraries, each one's load checked once (E2a).
  GivenLoads& GivenOf(size_t b) {
    while (given_.size() <= b) {
      const size_t c = given_.size();
      given_.push_back(std::make_unique<GivenLoads>(
          GivenLoads::Inputs{&columns_.providers[c], &columns_.preload[c], common_.python_file()},
          options_, &parses_));
    }
    return *given_[b];
  }

  const Columns& columns_;
  const CommonInputs& common_;
  const CheckOptions& options_;
  ParseCache parses_;  // each build's libraries are parsed once for all the modules
  std::vector<std::unique_ptr<GivenLoads>> given_;
  absl::flat_hash_set<std::string> said_;  // build and library of each note made
  std::vector<Warning> notes_;
  absl::flat_hash_map<std::pair<const ModuleGroup*, std::string>, PackageWorlds> worlds_;
};

}  // namespace

namespace {

// E7: a package's own object whose row fails did not load, so it is no provider for the others:
// each row that relied on one (found it as a provider) is checked again without those, until no
// row changes (each pass only adds failing objects).
absl::Status WithoutWhatDoesNotLoad(const std::vector<ModuleEntry>& modules, PackageChecks& checks,
                                    Matrix* m) {
  const size_t nb = m->builds.size();
  for (size_t b = 0; b < nb; ++b) {
    // Each pass fails more objects, never fewer; the bound only guards that.
    bool changed = true;
    for (size_t pass = 0; changed && pass <= modules.size(); ++pass) {
      changed = false;
      absl::flat_hash_map<std::pair<const ModuleGroup*, std::string>,
                          absl::flat_hash_set<std::string>>
          failing;  // per package, the paths of its objects whose rows fail
      for (size_t i = 0; i < modules.size(); ++i) {
        if (m->cells[i * nb + b].report.verdict() != Verdict::kFails) continue;
        // A load names a given object as it was given (`x.whl!pkg/lib.so`); its path is where the
        // tree places it (`x.whl/pkg/lib.so`): either may be met.
        auto& f = failing[{modules[i].group.get(), modules[i].package()}];
        f.insert(modules[i].module().path);
        f.insert(modules[i].module().name);
      }
      for (size_t i = 0; i < modules.size(); ++i) {
        auto it = failing.find({modules[i].group.get(), modules[i].package()});
        if (it == failing.end()) continue;
        const Report& r = m->cells[i * nb + b].report;
        const bool relied =
            std::any_of(r.libraries.begin(), r.libraries.end(), [&](const LoadedLibrary& l) {
              return l.found_by == FoundBy::kProvider && it->second.contains(l.path);
            });
        if (!relied) continue;
        ABICHECK_ASSIGN_OR_RETURN(m->cells[i * nb + b].report,
                                  checks.CheckWithout(modules[i], b, it->second));
        changed = true;
      }
    }
  }
  return absl::OkStatus();
}

// Several releases of one package among the modules (`check 'pip:sgl-kernel>=0.3' --against
// VENV`, or wheels of several versions): the newest whose every object loads against every build
// (an unknown verdict is not loading), said first among the notes (issue 33).
void NewestLoadingReleases(Matrix* m) {
  const size_t nb = m->builds.size();
  std::vector<std::string> packages;
  absl::flat_hash_map<std::string, std::vector<std::string>> versions;  // newest first
  absl::flat_hash_map<std::string, bool> loads;                         // "name version"
  for (size_t i = 0; i < m->module_info.size(); ++i) {
    const ModuleInfo& info = m->module_info[i];
    if (info.package.empty() || info.version.empty()) continue;
    std::vector<std::string>& v = versions[info.package];
    if (v.empty()) packages.push_back(info.package);
    if (std::find(v.begin(), v.end(), info.version) == v.end()) v.push_back(info.version);
    bool ok = true;
    for (size_t b = 0; b < nb; ++b) ok = ok && m->cells[i * nb + b].report.ok();
    auto [it, fresh] = loads.try_emplace(absl::StrCat(info.package, " ", info.version), ok);
    if (!fresh) it->second = it->second && ok;
  }
  std::vector<Warning> said;
  for (const std::string& p : packages) {
    std::vector<std::string>& v = versions[p];
    if (v.size() < 2) continue;
    std::sort(v.begin(), v.end(),
              [](const std::string& a, const std::string& b) { return CompareVersions(a, b) > 0; });
    const auto newest = std::find_if(v.begin(), v.end(), [&](const std::string& ver) {
      return loads[absl::StrCat(p, " ", ver)];
    });
    const std::string against = nb == 1 ? "against the build" : "against every build";
    said.push_back({p, newest == v.end()
                           ? absl::StrFormat("none of the %d releases checked loads %s (%s)",
                                             v.size(), against, absl::StrJoin(v, ", "))
                           : absl::StrFormat("newest release that loads %s: %s (of %d checked: %s)",
                                             against, *newest, v.size(), absl::StrJoin(v, ", "))});
  }
  m->notes.insert(m->notes.begin(), said.begin(), said.end());
}

// The Python pip: modules resolve for: an environment's, when a build is one and no
// --python-version says otherwise (pip's own interpreter may be another); "" for pip's own.
std::string TargetPython(const std::vector<std::string>& module_inputs,
                         const std::vector<std::string>& build_args, const CheckOptions& options,
                         std::vector<Warning>* notes) {
  if (!options.pip_python_version.empty()) return "";
  for (const std::string& b : build_args) {
    if (IsPipInput(b) || IsUrl(b)) continue;
    if (std::string v = EnvironmentPythonVersion(b); !v.empty()) {
      if (std::any_of(module_inputs.begin(), module_inputs.end(), IsPipInput)) {
        notes->push_back({b, absl::StrCat("pip: modules are resolved for Python ", v,
                                          ", the Python of this environment")});
      }
      return v;
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<Matrix> CheckMatrix(const std::vector<std::string>& module_inputs,
                                   const std::vector<std::string>& build_args,
                                   const CheckOptions& options, const InputLimits& limits) {
  Matrix m;
  ABICHECK_ASSIGN_OR_RETURN(
      const std::vector<std::string> module_args,
      ExpandPipInputs(module_inputs, options, limits,
                      TargetPython(module_inputs, build_args, options, &m.notes), &m.notes));
  ABICHECK_ASSIGN_OR_RETURN(const std::vector<std::string> build_paths,
                            ExpandPipInputs(build_args, options, limits, "", &m.notes));
  const std::vector<std::string> unique_modules = Dedupe(module_args, "a module input", &m.notes);
  const std::vector<std::string> unique_builds =
      Dedupe(build_paths, "a build (--against)", &m.notes);
  // Each build input read once; an index of several builds is several columns.
  std::vector<Build> builds;
  const PipTarget pip = PipTargetOf(options, limits, "");
  ABICHECK_ASSIGN_OR_RETURN(std::vector<std::vector<Build>> opened,
                            OpenBuildInputs(unique_builds, limits, WheelDependencies::kLaidOut,
                                            options.find_links, &pip));
  for (std::vector<Build>& o : opened) {
    for (Build& b : o) builds.push_back(std::move(b));
  }
  std::vector<ModuleEntry> modules;
  // A module's device code lies in the middle of the file: with a GPU to judge, archive members
  // are kept whole (docs/gpu-model.md).
  InputLimits module_limits = limits;
  module_limits.whole_members = limits.whole_members || !options.gpu.empty();
  for (size_t i = 0; i < unique_modules.size(); ++i) {
    SayInputBegins(limits, "modules", i, unique_modules.size(), unique_modules[i]);
    ABICHECK_RETURN_IF_ERROR(ExpandModules(unique_modules[i], module_limits, &modules, &m.notes));
  }
  ABICHECK_ASSIGN_OR_RETURN(CommonInputs common, ReadCommonInputs(options, limits, &m.notes));
  Columns columns;
  for (const Build& b : builds) {
    ABICHECK_RETURN_IF_ERROR(NeedObjects(b));
    for (const std::string& n : b.state().input.notes) m.notes.push_back({b.name(), n});
    columns.providers.push_back(common.providers);
    columns.preload.push_back(common.preload);
    const Build::State& s = b.state();
    columns.providers.back().insert(columns.providers.back().end(), s.providers.begin(),
                                    s.providers.end());
    columns.preload.back().insert(columns.preload.back().end(), s.preload.begin(), s.preload.end());
    if (s.tree) columns.trees.push_back(s.tree);
    m.builds.push_back(b.name());
    m.build_versions.push_back(s.torch_version);
  }
  if (builds.empty()) {
    columns.providers.push_back(common.providers);
    columns.preload.push_back(common.preload);
    m.builds.push_back(common.providers.empty() && common.preload.empty() ? "(the host's libraries)"
                                                                          : "(given libraries)");
    m.build_versions.push_back("");
  }
  for (const ModuleEntry& e : modules) {
    m.modules.push_back(e.module().name);
    m.module_info.push_back(e.info);
  }
  PackageChecks checks(columns, common, options, modules);
  for (const ModuleEntry& e : modules) {
    ABICHECK_ASSIGN_OR_RETURN(std::vector<Report> reports, checks.Check(e));
    for (size_t b = 0; b < reports.size(); ++b)
      m.cells.push_back({e.module().name, m.builds[b], std::move(reports[b])});
  }
  ABICHECK_RETURN_IF_ERROR(WithoutWhatDoesNotLoad(modules, checks, &m));
  m.notes.insert(m.notes.end(), checks.notes().begin(), checks.notes().end());
  MarkTorchAbi(&m);
  if (columns.providers.size() > 1) {
    MarkExportingBuilds(columns.providers, &m);
    Recommend(&m);
  }
  NewestLoadingReleases(&m);
  return m;
}

}  // namespace abicheck
