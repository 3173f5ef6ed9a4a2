// GatherBuildWorld: a torch wheel and the dependency wheels pip would install with it
// (docs/loader-model.md E10).
#include "lib/inputs/build_world.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/inputs/python_env.h"
#include "lib/inputs/requirements.h"
#include "lib/inputs/wheel_cache.h"
#include "lib/io/byte_source.h"
#include "lib/io/zip_archive.h"
#include "lib/util/parallel.h"
#include "lib/util/paths.h"
#include "lib/util/status_macros.h"

namespace abicheck {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxMetadata = uint64_t{16} << 20;  // as a wheel's other text members
constexpr size_t kUrlWheelsAtOnce = 6;  // a remote build's pinned wheels read at once

// How many wheels given as URLs are read at once: a read over HTTP waits on round trips more than
// on the CPU, so more than cores (docs/limits.md), unless the caller set the threads.
size_t UrlWheelThreads(const ReadLimits& limits) {
  return limits.threads > 0 ? static_cast<size_t>(limits.threads) : kUrlWheelsAtOnce;
}

struct WheelFile {
  std::string path;
  WheelName name;
};

// How specific a wheel's platform tags are, as pip prefers them: the newest manylinux glibc
// first, then plain linux, then any.
int PlatformRank(const std::string& tags) {
  int best = -1;
  for (absl::string_view t : absl::StrSplit(tags, '.')) {
    int rank = t == "any" ? -1 : 0;
    absl::string_view rest = t;
    if (absl::ConsumePrefix(&rest, "manylinux_")) {  // manylinux_2_28_x86_64
      std::vector<absl::string_view> p = absl::StrSplit(rest, absl::MaxSplits('_', 2));
      int major = 0, minor = 0;
      if (p.size() == 3 && absl::SimpleAtoi(p[0], &major) && absl::SimpleAtoi(p[1], &minor))
        rank = major * 100 + minor;
    } else if (absl::StartsWith(t, "manylinux2014")) {
      rank = 217;
    } else if (absl::StartsWith(t, "manylinux2010")) {
      rank = 212;
    } else if (absl::StartsWith(t, "manylinux1")) {
      rank = 205;
    }
    best = std::max(best, rank);
  }
  return best;
}

// Every wheel file in `dirs`, by normalized distribution name, in file name order.
absl::flat_hash_map<std::string, std::vector<WheelFile>> WheelsIn(
    const std::vector<std::string>& dirs) {
  absl::flat_hash_map<std::string, std::vector<WheelFile>> out;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& d : dirs) {
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      if (absl::EndsWith(it->path().filename().string(), ".whl"))
        files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      std::optional<WheelName> w = ParseWheelName(Basename(f));
      if (!w || !seen.insert(Basename(f)).second) continue;  // the same file in two places
      const std::string dist = w->distribution;
      out[dist].push_back({f, *std::move(w)});
    }
  }
  return out;
}

// One distribution of the world: the wheel chosen for it and what it asks for.
struct Member {
  std::vector<std::string> specifiers;  // every requirement's on it
  absl::flat_hash_set<std::string> extras;
  std::vector<Requirement> requirements;  // its own Requires-Dist, parsed
};

class Gatherer {
 public:
  Gatherer(const ExpandedInput& wheel, MarkerEnvironment target,
           absl::flat_hash_map<std::string, std::vector<WheelFile>> catalog,
           const ReadLimits& limits, const WorldPlacement* into, const PipTarget* pip)
      : wheel_(wheel),
        target_(std::move(target)),
        catalog_(std::move(catalog)),
        limits_(limits),
        into_(into) {
    if (pip != nullptr && IsUrl(wheel_.path)) {
      pip_ = *pip;
      pip_->python_version = target_.python_version;
      pip_->machine = target_.platform_machine;
    }
    for (size_t i = 0; into_ != nullptr && i < into_->installed.size(); ++i)
      installed_.emplace(into_->installed[i].name, &into_->installed[i]);
  }

  absl::StatusOr<BuildWorld> Run(const PackageMetadata& root) {
    world_.tree = into_ ? std::make_shared<FileTree>(into_->site_packages, FileTree::Kind::kOverlay)
                        : std::make_shared<FileTree>(wheel_.path);
    for (const InputFile& f : wheel_.objects) world_.tree->Add(MemberName(f.name), f);
    ABICHECK_RETURN_IF_ERROR(ChooseAll(root));
    ABICHECK_RETURN_IF_ERROR(Expand());
    for (const std::string& name : world_.replaced) {
      for (const std::string& f : installed_.at(name)->shared_objects) world_.tree->Hide(f);
    }
    if (!used_.empty()) {
      world_.notes.insert(world_.notes.begin(),
                          absl::StrCat("laid out with the ", used_.size(),
                                       " wheels its Requires-Dist pins (as pip installs them): ",
                                       absl::StrJoin(used_, ", ")));
    }
    if (!world_.not_given.empty()) {
      world_.tree->SetNotGiven(world_.not_given);  // E12
      world_.notes.push_back(absl::StrCat("its Requires-Dist pins wheels that are not given: ",
                                          absl::StrJoin(world_.not_given, ", "),
                                          "; a verdict that rests on their libraries is unknown "
                                          "(give them with --find-links DIR)"));
    }
    return std::move(world_);
  }

  // The wheels the world is laid out with, chosen as Run chooses them, without reading their
  // libraries.
  absl::StatusOr<std::vector<std::string>> Plan(const PackageMetadata& root) {
    ABICHECK_RETURN_IF_ERROR(ChooseAll(root));
    return chosen_;
  }

  // What pip is asked first, for a build given as a URL: the requirements of its own METADATA
  // that apply, no given wheel or installed distribution satisfies (Located's first question);
  // and the target pip is asked for. nullopt for a wheel whose dependencies pip does not resolve.
  std::optional<std::pair<PipTarget, std::vector<std::string>>> FirstAsked(
      const PackageMetadata& root) {
    if (!pip_) return std::nullopt;
    absl::StatusOr<std::vector<Requirement>> reqs = ParseAll(root.requirements, "");
    root_name_ = NormalizeDistName(root.name);
    if (!reqs.ok() || !Enqueue(*reqs, {}, root.name).ok()) return std::nullopt;
    std::vector<std::string> asked;
    for (const auto& [q, by] : queue_) {
      if (AsksPip(q) && std::find(asked.begin(), asked.end(), q.Short()) == asked.end())
        asked.push_back(q.Short());
    }
    return std::make_pair(*pip_, std::move(asked));
  }

 private:
  // Every requirement, transitively, to its wheel (chosen_) or what is installed.
  absl::Status ChooseAll(const PackageMetadata& root) {
    ABICHECK_ASSIGN_OR_RETURN(
        std::vector<Requirement> reqs,
        ParseAll(root.requirements, absl::StrCat(Basename(wheel_.path), "!METADATA")));
    root_name_ = NormalizeDistName(root.name);
    Replace(root_name_, root.version);
    ABICHECK_RETURN_IF_ERROR(Enqueue(reqs, {}, root.name));
    while (!queue_.empty()) {
      auto [req, by] = std::move(queue_.front());
      queue_.pop_front();
      ABICHECK_RETURN_IF_ERROR(Resolve(req, by));
    }
    return absl::OkStatus();
  }

  static std::string MemberName(const std::string& name) {
    const size_t bang = name.rfind('!');
    return bang == std::string::npos ? Basename(name) : name.substr(bang + 1);
  }

  absl::StatusOr<std::vector<Requirement>> ParseAll(const std::vector<std::string>& lines,
                                                    const std::string& where) {
    std::vector<Requirement> out;
    for (const std::string& l : lines) {
      absl::StatusOr<Requirement> r = ParseRequirement(l);
      if (!r.ok())
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", r.status().message()));
      out.push_back(*std::move(r));
    }
    return out;
  }

  // Queues those of `reqs` whose markers hold for the target with no extra (unless
  // `without_extra` is false) or with one of `extras` (what was asked of the distribution that
  // lists them).
  absl::Status Enqueue(const std::vector<Requirement>& reqs,
                       const absl::flat_hash_set<std::string>& extras, const std::string& by,
                       bool without_extra = true) {
    for (const Requirement& r : reqs) {
      bool applies = without_extra && r.marker.empty();
      MarkerEnvironment env = target_;
      if (without_extra && !applies && !r.marker.empty()) {
        ABICHECK_ASSIGN_OR_RETURN(applies, EvaluateMarker(r.marker, env));
      }
      for (auto it = extras.begin(); !applies && !r.marker.empty() && it != extras.end(); ++it) {
        env.extra = *it;
        ABICHECK_ASSIGN_OR_RETURN(applies, EvaluateMarker(r.marker, env));
      }
      if (applies && r.name != root_name_) queue_.push_back({r, by});
    }
    return absl::OkStatus();
  }

  absl::Status Resolve(const Requirement& req, const std::string& by) {
    auto [it, fresh] = members_.try_emplace(req.name);
    Member& m = it->second;
    if (!req.specifier.empty() &&
        std::find(m.specifiers.begin(), m.specifiers.end(), req.specifier) == m.specifiers.end())
      m.specifiers.push_back(req.specifier);
    absl::flat_hash_set<std::string> new_extras;
    for (const std::string& e : req.extras) {
      if (m.extras.insert(e).second) new_extras.insert(e);
    }
    // Chosen before: only what the new extras bring.
    if (!fresh) return Enqueue(m.requirements, new_extras, req.name, /*without_extra=*/false);
    // Over an environment (E11): what is installed and satisfies the requirement stays.
    if (const InstalledVersion* inst = InstalledSatisfying(req)) {
      if (world_.tree != nullptr) {
        for (const std::string& f : inst->shared_objects) world_.tree->KeepOnDisk(f);  // E12
      }
      ABICHECK_ASSIGN_OR_RETURN(
          m.requirements,
          ParseAll(inst->requirements, absl::StrCat(req.name, " (installed) METADATA")));
      return Enqueue(m.requirements, m.extras, req.name);
    }
    ABICHECK_ASSIGN_OR_RETURN(std::optional<WheelFile> chosen, Choose(req, by));
    Replace(req.name, chosen ? chosen->name.version : "", req.Short());
    if (!chosen) return absl::OkStatus();
    // Its METADATA alone now (the requirements go on from it); its libraries once every wheel
    // is chosen, all wheels at once (Expand).
    ABICHECK_ASSIGN_OR_RETURN(std::string metadata, WheelMetadata(chosen->path));
    const PackageMetadata md = ParseMetadata(metadata);
    ABICHECK_ASSIGN_OR_RETURN(
        m.requirements,
        ParseAll(md.requirements, absl::StrCat(Basename(chosen->path), "!METADATA")));
    chosen_.push_back(chosen->path);
    chosen_names_.push_back(req.name);
    return Enqueue(m.requirements, m.extras, md.name.empty() ? req.name : md.name);
  }

  // The installed distribution that satisfies `req`, when one does (E11).
  const InstalledVersion* InstalledSatisfying(const Requirement& req) const {
    auto inst = installed_.find(req.name);
    if (inst == installed_.end()) return nullptr;
    absl::StatusOr<bool> ok = VersionSatisfies(inst->second->version, req.specifier);
    return req.specifier.empty() || (ok.ok() && *ok) ? inst->second : nullptr;
  }

  // A requirement no given wheel and nothing installed satisfies: pip is asked for it (Choose).
  bool AsksPip(const Requirement& req) const {
    return !catalog_.contains(req.name) && InstalledSatisfying(req) == nullptr;
  }

  // The wheel pip gives for `req`, asked together with every queued requirement that will ask
  // pip too (the first of each name: a name is chosen once): one run of pip for a level of the
  // build's pins, not one per pin (issue 33: ~4 s each).
  const absl::StatusOr<PipWheel>& Located(const Requirement& req) {
    if (auto it = located_.find(req.Short()); it != located_.end()) return it->second;
    std::vector<std::string> asked = {req.Short()};
    absl::flat_hash_set<std::string> names = {req.name};
    for (const auto& [q, by] : queue_) {
      if (!names.insert(q.name).second || members_.contains(q.name) || !AsksPip(q) ||
          located_.contains(q.Short()))
        continue;
      asked.push_back(q.Short());
    }
    std::vector<absl::StatusOr<PipWheel>> found = LocateRequirements(asked, *pip_);
    // Their METADATA, read at once too: each is a few round trips over HTTP.
    std::vector<std::string> urls;
    for (const absl::StatusOr<PipWheel>& w : found) {
      if (w.ok() && IsUrl(w->location) && !metadata_.contains(w->location))
        urls.push_back(w->location);
    }
    std::vector<std::optional<absl::StatusOr<std::string>>> texts(urls.size());
    ParallelFor(urls.size(), ThreadsFor(urls.size(), UrlWheelThreads(limits_)),
                [&](size_t i) { texts[i] = ReadWheelMetadata(urls[i]); });
    for (size_t i = 0; i < urls.size(); ++i) metadata_.emplace(urls[i], *std::move(texts[i]));
    for (size_t i = 0; i < asked.size(); ++i) located_.emplace(asked[i], std::move(found[i]));
    return located_.at(req.Short());
  }

  // The METADATA member of a wheel, as read with its location (Located), else read now.
  absl::StatusOr<std::string> WheelMetadata(const std::string& path) const {
    if (auto it = metadata_.find(path); it != metadata_.end()) return it->second;
    return ReadWheelMetadata(path);
  }

  // The METADATA member of a wheel (at its top level), "" when it has none.
  absl::StatusOr<std::string> ReadWheelMetadata(const std::string& path) const {
    if (IsUrl(path)) {  // read before: the cache has it (and its libraries, for Expand)
      if (auto texts = CachedWheelTexts(path, limits_)) {
        for (const auto& [name, text] : *texts) {
          if (absl::EndsWith(name, ".dist-info/METADATA")) return text;
        }
        return std::string();
      }
      if (limits_.offline) {
        return absl::UnavailableError(absl::StrCat(path, ": ", CacheMissReason(path, limits_),
                                                   ", and --offline reads nothing from the "
                                                   "network"));
      }
    }
    ABICHECK_ASSIGN_OR_RETURN(std::shared_ptr<ZipArchive> zip, ZipArchive::Open(path, limits_));
    for (const ZipMember& m : zip->members()) {
      if (absl::EndsWith(m.name, ".dist-info/METADATA") &&
          std::count(m.name.begin(), m.name.end(), '/') == 1 && m.size <= kMaxMetadata)
        return zip->Head(m, m.size);
    }
    return std::string();
  }

  // A pinned requirement no wheel given satisfies (E12), named once however many ask for it.
  void NotGiven(const Requirement& req) {
    const std::string s = req.Short();
    if (std::find(world_.not_given.begin(), world_.not_given.end(), s) == world_.not_given.end())
      world_.not_given.push_back(s);
  }

  // Over an environment (E11): `name` is installed at `version` (the build's own, or a wheel
  // chosen for a requirement; "" when none was given): an installed copy of another version
  // is removed, and said so.
  void Replace(const std::string& name, const std::string& version,
               const std::string& requirement = "") {
    if (into_ == nullptr) return;
    auto it = installed_.find(name);
    if (it == installed_.end()) {
      if (!version.empty()) world_.additions.push_back(absl::StrCat(name, " ", version));
      return;
    }
    world_.replaced.push_back(name);
    if (version.empty()) world_.replaced_not_given.emplace_back(name, requirement);
    world_.replacements.push_back(absl::StrCat(name, " ", it->second->version, " -> ",
                                               version.empty() ? "(not given)" : version));
  }

  // Every chosen wheel's libraries, the wheels inflated on every core, laid out in the order
  // they were chosen.
  absl::Status Expand() {
    std::vector<std::optional<absl::StatusOr<ExpandedInput>>> expanded(chosen_.size());
    ReadLimits one = limits_;
    one.threads = 1;  // the wheels are the parallel items
    const bool urls =
        std::all_of(chosen_.begin(), chosen_.end(), [](const std::string& c) { return IsUrl(c); });
    const size_t threads = urls                  ? UrlWheelThreads(limits_)
                           : limits_.threads > 0 ? static_cast<size_t>(limits_.threads)
                                                 : 0;
    ParallelFor(chosen_.size(), ThreadsFor(chosen_.size(), threads),
                [&](size_t i) { expanded[i] = ExpandInput(chosen_[i], one); });
    for (size_t i = 0; i < chosen_.size(); ++i) {
      if (!expanded[i]->ok()) return expanded[i]->status();
      ExpandedInput in = **std::move(expanded[i]);
      for (const InputFile& f : in.objects) {
        if (!world_.tree->Add(MemberName(f.name), f))
          world_.notes.push_back(absl::StrCat(MemberName(f.name), " is in two wheels; ",
                                              Basename(chosen_[i]), "'s copy is not used"));
      }
      if (std::find(world_.replaced.begin(), world_.replaced.end(), chosen_names_[i]) !=
          world_.replaced.end()) {
        std::vector<std::string> installs;
        for (const InputFile& f : in.objects) installs.push_back(MemberName(f.name));
        world_.replaced_objects.emplace_back(chosen_names_[i], std::move(installs));
      }
      world_.dependencies.push_back(std::move(in));
    }
    return absl::OkStatus();
  }

  // The wheel pip would install for `req` among those given: the newest that satisfies it and
  // fits the target, the most specific platform among equals; else the nearest version, said.
  absl::StatusOr<std::optional<WheelFile>> Choose(const Requirement& req, const std::string& by) {
    auto it = catalog_.find(req.name);
    const bool pinned = absl::StrContains(req.specifier, "==");
    if (it == catalog_.end() && pip_) {
      // A published build: the wheel pip would install for it, read where the index has it.
      const absl::StatusOr<PipWheel>& w = Located(req);
      // --offline: a pinned wheel the cache does not hold stops the check, naming it (exit 3,
      // docs/cache.md), rather than leaving the world without it (unknown, exit 4).
      if (!w.ok() && pinned && pip_->offline && absl::IsUnavailable(w.status()))
        return absl::UnavailableError(
            absl::StrCat(req.Short(), " (required by ", by, "): ", w.status().message()));
      std::optional<WheelName> name =
          w.ok() ? ParseWheelName(Basename(UrlFileName(w->location))) : std::nullopt;
      if (name) {
        used_.push_back(absl::StrCat(name->distribution, " ", name->version, " (by pip)"));
        return WheelFile{w->location, *std::move(name)};
      }
      world_.notes.push_back(absl::StrCat(req.Short(), " (required by ", by, "): ",
                                          w.ok() ? "pip names no wheel" : w.status().message()));
    }
    if (it == catalog_.end()) {
      if (pinned) NotGiven(req);
      return std::nullopt;
    }
    std::vector<const WheelFile*> fitting, satisfying;
    std::vector<std::string> other_platform;
    for (const WheelFile& c : it->second) {
      if (!WheelFitsTarget(c.name, target_)) {
        other_platform.push_back(Basename(c.path));
        continue;
      }
      fitting.push_back(&c);
      absl::StatusOr<bool> ok = VersionSatisfies(c.name.version, req.specifier);
      if (ok.ok() && *ok) satisfying.push_back(&c);
    }
    auto better = [](const WheelFile* a, const WheelFile* b) {
      const int v = CompareVersions(a->name.version, b->name.version);
      return v != 0 ? v > 0 : PlatformRank(a->name.platform) > PlatformRank(b->name.platform);
    };
    if (fitting.empty()) {
      world_.notes.push_back(absl::StrCat(req.Short(), " (required by ", by,
                                          "): only wheels for another Python or platform are "
                                          "given: ",
                                          absl::StrJoin(other_platform, ", ")));
      if (pinned) NotGiven(req);
      return std::nullopt;
    }
    if (!satisfying.empty()) {
      std::sort(satisfying.begin(), satisfying.end(), better);
      const WheelFile* c = satisfying.front();
      std::vector<std::string> alike;
      for (const WheelFile* o : satisfying) {
        if (o != c && o->name.version == c->name.version) alike.push_back(Basename(o->path));
      }
      if (!alike.empty()) {
        world_.notes.push_back(absl::StrCat(req.Short(), ": ", alike.size() + 1, " wheels of ",
                                            c->name.version, " are given; ", Basename(c->path),
                                            " is used (the most specific "
                                            "platform tag, as pip chooses), not ",
                                            absl::StrJoin(alike, ", ")));
      }
      used_.push_back(absl::StrCat(c->name.distribution, " ", c->name.version));
      return *c;
    }
    // None satisfies: the nearest version given, said as such (never silently).
    std::sort(fitting.begin(), fitting.end(), better);
    const WheelFile* c = fitting.front();
    world_.notes.push_back(absl::StrCat(req.Short(), " (required by ", by,
                                        ") is not given; the nearest given, ", Basename(c->path),
                                        ", is used in its place"));
    used_.push_back(absl::StrCat(c->name.distribution, " ", c->name.version, " (not as pinned)"));
    return *c;
  }

  const ExpandedInput& wheel_;
  const MarkerEnvironment target_;
  const absl::flat_hash_map<std::string, std::vector<WheelFile>> catalog_;
  const ReadLimits& limits_;
  const WorldPlacement* into_;
  std::optional<PipTarget> pip_;  // a URL wheel's: dependencies resolved by pip
  absl::flat_hash_map<std::string, const InstalledVersion*> installed_;  // by normalized name
  std::string root_name_;
  std::vector<std::string> used_;          // "nvidia-cublas-cu12 12.8.4.1", in the order chosen
  std::vector<std::string> chosen_;        // their wheels' paths
  std::vector<std::string> chosen_names_;  // the distribution each stands for (normalized)
  std::deque<std::pair<Requirement, std::string>> queue_;
  absl::flat_hash_map<std::string, Member> members_;
  absl::flat_hash_map<std::string, absl::StatusOr<PipWheel>> located_;      // by requirement
  absl::flat_hash_map<std::string, absl::StatusOr<std::string>> metadata_;  // by wheel URL
  BuildWorld world_;
};

// The gatherer of `wheel`'s world and its METADATA; nullopt when it has no METADATA or its file
// name names no CPython and Linux machine.
std::optional<std::pair<Gatherer, PackageMetadata>> GathererOf(
    const ExpandedInput& wheel, const std::vector<std::string>& find_links,
    const ReadLimits& limits, const WorldPlacement* into, const PipTarget* pip) {
  if (wheel.kind != "archive") return std::nullopt;
  const std::string metadata = TextMember(wheel, ".dist-info/METADATA");
  if (metadata.empty()) return std::nullopt;
  std::optional<WheelName> name = ParseWheelName(Basename(wheel.path));
  if (!name) return std::nullopt;
  std::optional<MarkerEnvironment> target = MarkerEnvironmentOfTags(name->python, name->platform);
  if (!target) return std::nullopt;
  std::vector<std::string> dirs = find_links;
  const size_t slash = wheel.path.rfind('/');
  // Beside the wheel — not where an index's build was once indexed: an index is read with what
  // is given (IndexedWheel).
  if (!IsUrl(wheel.path) && wheel.index_wheel.empty())
    dirs.push_back(slash == std::string::npos ? "." : wheel.path.substr(0, slash));
  absl::flat_hash_map<std::string, std::vector<WheelFile>> catalog = WheelsIn(dirs);
  catalog.erase(name->distribution);  // the build itself, and other builds of it beside it
  return std::make_pair(Gatherer(wheel, *std::move(target), std::move(catalog), limits, into, pip),
                        ParseMetadata(metadata));
}

}  // namespace

std::optional<ExpandedInput> IndexedWheel(const ExpandedInput& in) {
  if (in.kind != "index" || in.index_wheel.empty()) return std::nullopt;
  ExpandedInput w;
  w.path = in.index_wheel;
  w.index_wheel = in.index_wheel;  // what GathererOf searches: only what is given
  w.kind = "archive";
  w.objects = in.objects;
  w.texts = in.texts;
  return w;
}

absl::StatusOr<std::optional<BuildWorld>> GatherBuildWorld(
    const ExpandedInput& wheel, const std::vector<std::string>& find_links,
    const ReadLimits& limits, const WorldPlacement* into, const PipTarget* pip) {
  std::optional<std::pair<Gatherer, PackageMetadata>> g =
      GathererOf(wheel, find_links, limits, into, pip);
  if (!g) return std::nullopt;
  ABICHECK_ASSIGN_OR_RETURN(BuildWorld world, g->first.Run(g->second));
  return world;
}

void PrefetchBuildWorlds(const std::vector<const ExpandedInput*>& wheels,
                         const std::vector<std::string>& find_links, const ReadLimits& limits,
                         const WorldPlacement* into, const PipTarget& pip) {
  if (pip.offline || limits.offline || CacheRoot().empty()) return;  // nothing would keep them
  // The builds' own requirements, asked of pip in one run for all (one per target Python and
  // machine): kept in the cache, where each plan below finds them.
  std::vector<std::pair<PipTarget, std::vector<std::string>>> asks;
  for (const ExpandedInput* w : wheels) {
    std::optional<std::pair<Gatherer, PackageMetadata>> g =
        IsUrl(w->path) ? GathererOf(*w, find_links, limits, into, &pip) : std::nullopt;
    auto first = g ? g->first.FirstAsked(g->second) : std::nullopt;
    if (!first) continue;
    auto it = std::find_if(asks.begin(), asks.end(), [&](const auto& a) {
      return a.first.python_version == first->first.python_version &&
             a.first.machine == first->first.machine;
    });
    if (it == asks.end()) it = asks.insert(asks.end(), {first->first, {}});
    for (std::string& r : first->second) {
      if (std::find(it->second.begin(), it->second.end(), r) == it->second.end())
        it->second.push_back(std::move(r));
    }
  }
  for (const auto& [target, reqs] : asks) {
    if (!reqs.empty()) (void)LocateRequirements(reqs, target);
  }
  // Each world planned (further levels asked of pip per build), the union read at once.
  std::vector<std::string> urls;
  for (const ExpandedInput* w : wheels) {
    std::optional<std::pair<Gatherer, PackageMetadata>> g =
        IsUrl(w->path) ? GathererOf(*w, find_links, limits, into, &pip) : std::nullopt;
    if (!g) continue;
    absl::StatusOr<std::vector<std::string>> chosen = g->first.Plan(g->second);
    if (!chosen.ok()) continue;  // said when the world is gathered
    for (const std::string& c : *chosen) {
      if (IsUrl(c) && std::find(urls.begin(), urls.end(), c) == urls.end() &&
          !CachedWheelTexts(c, limits))
        urls.push_back(c);
    }
  }
  ReadLimits one = limits;
  one.threads = 1;  // the wheels are the parallel items
  ParallelFor(urls.size(), ThreadsFor(urls.size(), UrlWheelThreads(limits)), [&](size_t i) {
    (void)ExpandInput(urls[i], one);  // kept in the cache; an error is said by the world's read
  });
}

}  // namespace abicheck
