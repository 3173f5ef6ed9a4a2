// What a matrix says beyond its cells: which build to install (the recommendation), how each
// module uses torch (E8), and which builds export what a cell lacks.

#include <algorithm>
#include <utility>

#include "abicheck/abicheck.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/api/check_internal.h"
#include "lib/api/limits.h"
#include "lib/diagnose/diagnose.h"
#include "lib/results/results.h"
#include "lib/util/paths.h"

namespace abicheck {

std::vector<int> BuildVersion(absl::string_view build) {
  auto first = [](absl::string_view s) {
    std::vector<int> v;
    for (size_t i = 0; i < s.size(); ++i) {
      if (!absl::ascii_isdigit(s[i]) || (i > 0 && absl::ascii_isalnum(s[i - 1]) && s[i - 1] != 'h'))
        continue;
      size_t j = i;
      std::vector<int> parts;
      while (j < s.size() && absl::ascii_isdigit(s[j])) {
        size_t k = j;
        int n = 0;
        while (k < s.size() && absl::ascii_isdigit(s[k]) && n < 100000) n = n * 10 + (s[k++] - '0');
        parts.push_back(n);
        j = k;
        if (j + 1 < s.size() && s[j] == '.' && absl::ascii_isdigit(s[j + 1])) {
          ++j;
        } else {
          break;
        }
      }
      if (parts.size() >= 2) return parts;
      i = j;
    }
    return v;
  };
  if (size_t hash = build.rfind('#'); hash != absl::string_view::npos)
    build.remove_prefix(hash + 1);
  const size_t slash = build.rfind('/');
  std::vector<int> v = first(slash == absl::string_view::npos ? build : build.substr(slash + 1));
  return v.empty() ? first(build) : v;
}

void MarkTorchAbi(Matrix* m) {
  const size_t nb = m->builds.size();
  if (nb == 0) return;
  std::vector<size_t> by_age(nb);
  for (size_t b = 0; b < nb; ++b) by_age[b] = b;
  std::stable_sort(by_age.begin(), by_age.end(), [&](size_t a, size_t b) {
    return BuildVersion(m->builds[a]) < BuildVersion(m->builds[b]);
  });
  for (size_t i = 0; i < m->modules.size() && i < m->module_info.size(); ++i) {
    ModuleInfo& info = m->module_info[i];
    info.torch_abi = m->cells[i * nb].report.torch_abi;
    if (info.torch_abi != TorchAbi::kStable || nb < 2) continue;
    // E8: the oldest build that exports every shim function the object itself uses.
    for (size_t b : by_age) {
      const Report& r = m->cells[i * nb + b].report;
      bool all = true;
      for (const Problem& p : r.problems) {
        all = all && !(p.kind == ProblemKind::kUndefinedSymbol && p.object == r.module &&
                       IsTorchShimName(p.symbol));
      }
      if (all) {
        info.stable_since = m->builds[b];
        break;
      }
    }
  }
}

std::string BuildLabel(absl::string_view build) {
  // The shortest tail of path components that names a version: "torch-2.10.0/torch" for a
  // torch directory, the wheel's name without .whl.
  std::string label = Basename(build);
  for (size_t end = build.size(), at = build.rfind('/'); at != absl::string_view::npos && at > 0;
       at = build.rfind('/', at - 1)) {
    const absl::string_view tail = build.substr(at + 1, end - at - 1);
    if (std::any_of(tail.begin(), tail.end(), [](char c) { return absl::ascii_isdigit(c); })) {
      label = std::string(tail);
      break;
    }
  }
  if (absl::EndsWith(label, ".whl")) label.resize(label.size() - 4);
  return label;
}

void NameRecommendation(const Matrix& m, size_t b, Recommendation* r) {
  const std::string v = b < m.build_versions.size() ? m.build_versions[b] : "";
  r->label = v.empty() ? BuildLabel(r->build) : absl::StrCat("torch ", v);
  r->requirement = v.empty() ? "" : absl::StrCat("torch==", v.substr(0, v.find('+')));
}

std::string Installable(const Recommendation& r) {
  return r.requirement.empty() ? r.label : absl::StrCat(r.requirement, " (", r.label, ")");
}

std::string SameWithEveryBuildClause(const std::vector<std::string>& names,
                                     const std::string& example_error) {
  if (names.empty()) return "";
  return absl::StrFormat(
      "; %d of them fail%s with every build given, the same way, so no torch choice fixes %s: "
      "%s (%s)",
      names.size(), names.size() == 1 ? "s" : "", names.size() == 1 ? "it" : "them",
      absl::StrJoin(names, ", "), example_error);
}

std::string SameFailureWithEveryBuild(const Matrix& m, size_t i) {
  const size_t nb = m.builds.size();
  std::string first;
  for (size_t b = 0; b < nb; ++b) {
    const Report& cell = m.cells[i * nb + b].report;
    if (cell.verdict() != Verdict::kFails) return "";
    std::string message;
    for (const Problem& p : cell.problems) {
      if (p.first) message = p.message;
    }
    if (message.empty() || (b > 0 && message != first)) return "";
    first = std::move(message);
  }
  return first;
}

void Recommend(Matrix* m, const std::vector<bool>& unusable) {
  const size_t nb = m->builds.size();
  if (nb < 2 || m->modules.empty()) return;
  // An unknown cell (C2c) counts as not loading: the recommendation never rests on it.
  std::vector<int> failing(nb, 0);
  for (size_t i = 0; i < m->modules.size(); ++i) {
    for (size_t b = 0; b < nb; ++b) {
      const bool dead = b < unusable.size() && unusable[b];
      failing[b] += (dead || !NothingInTheWay(m->cells[i * nb + b].report)) ? 1 : 0;
    }
  }
  // Fewest failing modules; among equals the newest version; among those the one given last.
  size_t best = 0;
  for (size_t b = 1; b < nb; ++b) {
    if (failing[b] < failing[best] || (failing[b] == failing[best] &&
                                       BuildVersion(m->builds[b]) >= BuildVersion(m->builds[best])))
      best = b;
  }
  Recommendation& r = m->recommendation;
  m->has_recommendation = true;
  r.build = m->builds[best];
  NameRecommendation(*m, best, &r);
  r.every_module_loads = failing[best] == 0;
  std::string first_same;  // the first error of the first that fails the same with every build
  for (size_t i = 0; i < m->modules.size(); ++i) {
    const Report& cell = m->cells[i * nb + best].report;
    if (NothingInTheWay(cell) && !(best < unusable.size() && unusable[best])) continue;
    if (cell.verdict() == Verdict::kUnknown) {
      ++r.unknown_modules;
      AddNotGiven(cell, &r.not_given);
      continue;
    }
    ++r.failing_modules;
    r.still_failing.push_back(m->modules[i]);
    if (std::string same = SameFailureWithEveryBuild(*m, i); !same.empty()) {
      r.fail_with_every_build.push_back(m->modules[i]);
      if (first_same.empty()) first_same = std::move(same);
    }
  }
  if (r.every_module_loads) {
    r.summary = absl::StrCat("install ", Installable(r), ": every module loads against it");
  } else if (r.failing_modules == 0) {
    r.summary = absl::StrFormat(
        "no build is known to load every module: against %s none fails, but %d of %d cannot be "
        "told without %s",
        r.label, r.unknown_modules, m->modules.size(), absl::StrJoin(r.not_given, ", "));
  } else {
    r.summary =
        absl::StrFormat("no build loads every module; %s leaves the fewest failing (%d of %d)",
                        r.label, r.failing_modules, m->modules.size());
    if (r.unknown_modules > 0) {
      absl::StrAppendFormat(&r.summary, ", and %d cannot be told without %s", r.unknown_modules,
                            absl::StrJoin(r.not_given, ", "));
    }
    absl::StrAppend(&r.summary, SameWithEveryBuildClause(r.fail_with_every_build, first_same));
  }
}

// For every undefined symbol of a cell: which of the builds given export that exact symbol —
// the answer to "which torch should I install instead?" (issue: explain every failure).
void MarkExportingBuilds(const std::vector<std::vector<InputFile>>& builds, Matrix* m) {
  std::vector<std::vector<ParsedElf>> tables(builds.size());
  for (size_t b = 0; b < builds.size(); ++b) {
    for (const InputFile& f : builds[b]) {
      absl::StatusOr<ParsedElf> p = ParseElf(f);
      if (p.ok()) tables[b].push_back(*std::move(p));
    }
  }
  for (MatrixCell& c : m->cells) {
    for (Problem& p : c.report.problems) {
      if (p.kind != ProblemKind::kUndefinedSymbol) continue;
      HashedName name(p.symbol);
      for (size_t b = 0; b < builds.size(); ++b) {
        bool found = false;
        for (const ParsedElf& t : tables[b]) {
          t.syms->ForEachNamedSymbol(name, [&](const Symbol& s, uint16_t vs) {
            if (!s.exported()) return false;
            const VersionSlot* slot = t.syms->Slot(vs);
            found = p.version.empty() || (slot != nullptr && slot->name == p.version);
            return found;
          });
          if (found) break;
        }
        if (found) p.exported_by.push_back(m->builds[b]);
      }
      // Not "removed": the build that exports it may as well be newer (torchao's
      // torch_dtype_float4_e2m1fn_x2, a stable-shim function of 2.15, against 2.10). What the
      // diagnosis said of it stays.
      if (!p.exported_by.empty() && p.candidates.empty()) {
        const std::string by = absl::StrCat("exported by ", absl::StrJoin(p.exported_by, ", "),
                                            " (of the builds given)");
        p.hint = p.hint.empty() || p.hint == kNotExportedHint
                     ? absl::StrCat("not in this build; ", by)
                     : absl::StrCat(p.hint, "; ", by);
      }
    }
  }
}

}  // namespace abicheck
