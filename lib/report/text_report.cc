// The report for people: verdict and the exact first ld.so error on top, then problems grouped by
// the object that has them, demangled first with the mangled name beside it.
#include <algorithm>
#include <map>

#include "abicheck/abicheck.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"

namespace abicheck {
namespace {

struct Style {
  bool on;
  std::string Red(absl::string_view s) const {
    return on ? absl::StrCat("\x1b[1;31m", s, "\x1b[0m") : std::string(s);
  }
  std::string Green(absl::string_view s) const {
    return on ? absl::StrCat("\x1b[1;32m", s, "\x1b[0m") : std::string(s);
  }
  std::string Yellow(absl::string_view s) const {
    return on ? absl::StrCat("\x1b[33m", s, "\x1b[0m") : std::string(s);
  }
  std::string Dim(absl::string_view s) const {
    return on ? absl::StrCat("\x1b[2m", s, "\x1b[0m") : std::string(s);
  }
  std::string Bold(absl::string_view s) const {
    return on ? absl::StrCat("\x1b[1m", s, "\x1b[0m") : std::string(s);
  }
};

const char* KindLabel(ProblemKind k) {
  switch (k) {
    case ProblemKind::kUndefinedSymbol:
      return "undefined symbol";
    case ProblemKind::kVersionNotFound:
      return "version not found";
    case ProblemKind::kMissingLibrary:
      return "missing library";
    case ProblemKind::kWrongElfClass:
      return "wrong ELF class";
    case ProblemKind::kWrongMachine:
      return "wrong machine";
    case ProblemKind::kNotLoadable:
      return "not loadable";
    case ProblemKind::kLoaderAssertion:
      return "ld.so aborts";
    case ProblemKind::kNoKernelImage:
      return "no kernel image";
    case ProblemKind::kUnsupportedPtx:
      return "PTX too new for the driver";
    case ProblemKind::kInsufficientDriver:
      return "driver too old";
  }
  return "problem";
}

// How to supply a library the providers load but that was not given: the pip wheel that ships
// it for the NVIDIA libraries torch depends on, else its directory.
std::string AssumedLoadedAdvice(const std::vector<std::string>& names) {
  static constexpr std::pair<absl::string_view, absl::string_view> kWheels[] = {
      {"libcudart.so.", "nvidia-cuda-runtime-cu"}, {"libcublasLt.so.", "nvidia-cublas-cu"},
      {"libcublas.so.", "nvidia-cublas-cu"},       {"libcudnn", "nvidia-cudnn-cu"},
      {"libnccl.so.", "nvidia-nccl-cu"},           {"libcusparseLt.so.", "nvidia-cusparselt-cu"},
      {"libcusparse.so.", "nvidia-cusparse-cu"},   {"libcufft.so.", "nvidia-cufft-cu"},
      {"libcurand.so.", "nvidia-curand-cu"},       {"libcusolver.so.", "nvidia-cusolver-cu"},
      {"libnvrtc.so.", "nvidia-cuda-nvrtc-cu"},    {"libcupti.so.", "nvidia-cuda-cupti-cu"},
      {"libnvJitLink.so.", "nvidia-nvjitlink-cu"}, {"libnvToolsExt.so.", "nvidia-nvtx-cu"},
      {"libnvshmem", "nvidia-nvshmem-cu"},         {"libcufile.so.", "nvidia-cufile-cu"},
  };
  std::vector<std::string> wheels;
  for (const std::string& n : names) {
    for (const auto& [prefix, wheel] : kWheels) {
      if (!absl::StartsWith(n, prefix)) continue;
      // The CUDA major is the soname's first number (libcudart.so.12 -> cu12); cuDNN and
      // NVSHMEM number their own releases, so they get no suffix.
      absl::string_view major = absl::string_view(n).substr(n.find(".so.") + 4);
      major = major.substr(0, major.find('.'));
      const bool cuda_major =
          !absl::StartsWith(n, "libcudnn") && !absl::StartsWith(n, "libnvshmem");
      wheels.push_back(absl::StrCat(wheel, cuda_major ? major : "<CUDA major>"));
      break;
    }
  }
  const bool one = names.size() == 1;
  if (wheels.empty())
    return one ? "give its directory with -L, or the library itself"
               : "give their directories with -L, or the libraries themselves";
  return absl::StrCat("install or give ", absl::StrJoin(wheels, ", "), ", or ",
                      one ? "its directory" : "their directories", " with -L");
}

std::string Plural(absl::string_view label) {
  if (label == "missing library") return "missing libraries";
  if (label == "version not found") return "versions not found";
  if (label == "wrong ELF class") return "libraries of the wrong ELF class";
  if (label == "wrong machine") return "libraries for another machine";
  return absl::StrCat(label, "s");
}

// The verdict line and ld.so's message.
void AppendHeadline(const Report& r, const Style& st, std::string* out) {
  if (r.verdict() == Verdict::kNotInstalled) {  // E11: the build installs no file at this path
    absl::StrAppend(out, "not installed: ", Shown(r.module), "\n");
    return;
  }
  if (r.verdict() == Verdict::kUnknown) {
    // C2c: what only an absent library could define was not read.
    const bool one_ref = r.unverified_references == 1;
    absl::StrAppend(out, st.Yellow("CANNOT TELL"), ": ", Shown(r.module), " (",
                    absl::StrJoin(r.unknown_because, ", "), " not given)\n");
    if (r.unverified_references == 0) return;  // it needs an object whose verdict is unknown
    absl::StrAppendFormat(
        out,
        "  %d %s no file given defines; %s may be defined in %s, which the given libraries load "
        "but which %s not among the files (%s)\n",
        r.unverified_references, one_ref ? "reference" : "references", one_ref ? "it" : "they",
        absl::StrJoin(r.unknown_because, ", "), r.unknown_because.size() == 1 ? "is" : "are",
        AssumedLoadedAdvice(r.unknown_because));
    return;
  }
  if (r.loads) {
    const bool runs = r.problems.empty();
    absl::StrAppend(out, runs ? st.Green("loads") : st.Red("loads, but will not run"), ": ",
                    Shown(r.module), "\n");
    const size_t libs = r.libraries.empty() ? 0 : r.libraries.size() - 1;
    absl::StrAppendFormat(out, "  %d references resolved in a scope of %d %s\n",
                          r.references_checked, libs, libs == 1 ? "library" : "libraries");
    if (!runs) {
      absl::StrAppend(out, "  its first CUDA call fails with: ",
                      st.Bold(Shown(r.problems.front().message)), "\n");
    }
  } else {
    std::map<std::string, int> by_kind;
    for (const Problem& p : r.problems) ++by_kind[KindLabel(p.kind)];
    std::vector<std::string> counts;
    counts.reserve(by_kind.size());
    for (const auto& [k, n] : by_kind)
      counts.push_back(absl::StrCat(n, " ", n == 1 ? k : Plural(k)));
    absl::StrAppend(out, st.Red("will not load"), ": ",
                    Printable(AsInstalled(r.module, SitePackagesOf(r))), " (",
                    absl::StrJoin(counts, ", "), ")\n");
    for (const Problem& p : r.problems) {
      if (p.first)
        absl::StrAppend(out, "  import fails with: ",
                        st.Bold(Printable(AsInstalled(p.message, SitePackagesOf(r)))), "\n");
    }
  }
}

// What the whole load carries: hazards, causes, assumed libraries, interpreter references.
void AppendLoadNotes(const Report& r, const Style& st, std::string* out) {
  for (const Warning& w : r.warnings) {
    // Hazards of a load that succeeds are said up front, not only among the notes at the end.
    if (w.kind == WarningKind::kSecondCopy)
      absl::StrAppend(out, "  ", st.Yellow("hazard"), ": ", Shown(w.message), "\n");
  }
  for (const Cause& c : r.causes) {
    absl::StrAppendFormat(out, "  %s %d of the problems: %s\n", st.Yellow("cause of"), c.problems,
                          c.summary);
  }
  const std::vector<std::string>& driver = r.driver_libraries;
  std::vector<std::string> other;
  for (const std::string& a : r.assumed_loaded) {
    if (std::find(driver.begin(), driver.end(), a) == driver.end()) other.push_back(a);
  }
  if (!driver.empty()) {
    // C2b, said once: the driver's libraries are assumed present, as on the GPU machine.
    const bool one = driver.size() == 1;
    absl::StrAppendFormat(
        out, "  %s %s: the GPU driver's, assumed present (docs/loader-model.md C2b); %s\n",
        st.Yellow("depends on"), absl::StrJoin(driver, ", "),
        r.driver_references == 0
            ? (one ? "nothing left to it" : "nothing left to them")
            : absl::StrFormat("%d C %s left to %s", r.driver_references,
                              r.driver_references == 1 ? "reference is" : "references are",
                              one ? "it" : "them"));
  }
  if (!other.empty() && r.unverified_references == 0) {
    // Everything resolved or failed without them.
    const bool one = other.size() == 1;
    absl::StrAppendFormat(out,
                          "  %s %s: the given libraries load %s, but %s not among the files; no "
                          "unresolved reference was left for %s to define\n",
                          st.Yellow("depends on"), absl::StrJoin(other, ", "), one ? "it" : "them",
                          one ? "it is" : "they are", one ? "it" : "them");
  }
  if (r.interpreter_symbols > 0) {
    absl::StrAppendFormat(
        out,
        "  %d Py*/_Py* references are left to the Python interpreter (--python FILE checks them)\n",
        r.interpreter_symbols);
  }
}

// One problem: what fails, the nearest candidates and what differs, the hint.
void AppendProblem(const Report& r, const Problem& p, const Style& st, std::string* out) {
  const std::string mark = p.first ? st.Red("  <- ld.so reports this one") : "";
  switch (p.kind) {
    case ProblemKind::kUndefinedSymbol:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", Shown(p.demangled),
                      p.version.empty() ? "" : absl::StrCat(" @ ", Shown(p.version)), mark, "\n");
      if (Shown(p.demangled) != p.symbol)
        absl::StrAppend(out, "      ", st.Dim(Shown(p.symbol)), "\n");
      break;
    case ProblemKind::kVersionNotFound:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", Shown(p.version), " in ",
                      Shown(p.library), mark, "\n");
      break;
    case ProblemKind::kMissingLibrary:
    case ProblemKind::kWrongElfClass:
    case ProblemKind::kWrongMachine:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", Shown(p.library), mark, "\n");
      absl::StrAppend(out, "      ", st.Dim(Shown(p.message)), "\n");
      break;
    case ProblemKind::kNotLoadable:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", Shown(p.message), mark, "\n");
      break;
    case ProblemKind::kLoaderAssertion:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)),
                      " (the process dies; import "
                      "cannot even raise)",
                      mark, "\n      ", Shown(p.message), "\n");
      if (!p.symbol.empty()) {
        absl::StrAppend(out, "      on ", Shown(p.demangled),
                        p.version.empty() ? "" : absl::StrCat(" @ ", Shown(p.version)),
                        ": its version names a file that has no version table\n");
      } else {
        absl::StrAppend(out, "      its version requirements name ", Shown(p.library),
                        ", which nothing loads (a DT_NEEDED entry removed, e.g. by patchelf "
                        "--remove-needed)\n");
      }
      break;
    case ProblemKind::kNoKernelImage:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), " for ", r.device.gpu, ": it carries ",
                      r.device.images.empty() ? "none" : absl::StrJoin(r.device.images, ", "),
                      "\n");
      break;
    case ProblemKind::kUnsupportedPtx:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", r.device.gpu,
                      " would JIT-compile ", Shown(p.version), "; the driver supports CUDA ",
                      r.device.driver_cuda, "\n");
      break;
    case ProblemKind::kInsufficientDriver:
      absl::StrAppend(out, "  ", st.Red(KindLabel(p.kind)), ": ", Shown(p.library),
                      " needs a CUDA ", Shown(p.version), " driver; it supports CUDA ",
                      r.device.driver_cuda, "\n");
      break;
  }
  for (const Candidate& c : p.candidates) {
    if (c.relation == Relation::kNotInScope) continue;  // the hint says it
    absl::StrAppend(out, "      nearest: ", Shown(c.demangled),
                    c.version.empty() ? "" : absl::StrCat(" @ ", Shown(c.version)), "  in ",
                    Shown(c.library), "\n");
    for (const Difference& d : c.differences)
      absl::StrAppend(out, "               ", st.Yellow(Shown(DifferenceText(d))), "\n");
  }
  if (!p.hint.empty()) absl::StrAppend(out, "      ", Shown(p.hint), "\n");
}

// Problems grouped by the object that has them, in the order found; a cause that explains more
// than kShownPerCause problems of one object shows that many of them, unless `all`.
void AppendProblemsByObject(const Report& r, const Style& st, bool all, std::string* out) {
  constexpr int kShownPerCause = 3;
  std::vector<std::string> objects;
  for (const Problem& p : r.problems) {
    if (std::find(objects.begin(), objects.end(), p.object) == objects.end())
      objects.push_back(p.object);
  }
  for (const std::string& obj : objects) {
    absl::StrAppend(out, "\n", st.Bold(Shown(obj)), "\n");
    std::map<std::string, int> of_cause, shown;
    for (const Problem& p : r.problems) {
      if (p.object == obj && !p.cause.empty()) ++of_cause[p.cause];
    }
    for (const Problem& p : r.problems) {
      if (p.object != obj) continue;
      if (!all && !p.cause.empty() && of_cause[p.cause] > kShownPerCause &&
          shown[p.cause]++ >= kShownPerCause) {
        if (shown[p.cause] == kShownPerCause + 1) {
          absl::StrAppendFormat(out, "  ... %d more of this cause (--all lists them)\n",
                                of_cause[p.cause] - kShownPerCause);
        }
        continue;
      }
      AppendProblem(r, p, st, out);
    }
  }
}

void AppendDeviceCode(const Report& r, std::string* out) {
  if (r.device.checked && r.problems.empty()) {
    if (!r.device.readable) {
      absl::StrAppend(out, "  device code: unknown (", Shown(r.module),
                      " has no section headers)\n");
    } else if (r.device.images.empty()) {
      absl::StrAppend(out, "  device code: none (nothing for a GPU to run)\n");
    } else if (!r.device.gpu.empty()) {
      absl::StrAppend(out, "  device code: runs on ", r.device.gpu, " (",
                      absl::StrJoin(r.device.usable, ", "), ")\n");
    } else {
      absl::StrAppend(out, "  device code: ", absl::StrJoin(r.device.images, ", "), "\n");
    }
  }
}

}  // namespace

std::string RenderText(const Report& r, bool color, bool all) {
  return RenderText(r, color, all, {});
}

std::string RenderText(const Report& r, bool color, bool all,
                       const std::vector<std::string>& said) {
  Style st{color};
  std::string out;
  AppendHeadline(r, st, &out);
  AppendLoadNotes(r, st, &out);
  AppendProblemsByObject(r, st, all, &out);
  AppendDeviceCode(r, &out);
  bool headed = false;
  for (const Warning& w : r.warnings) {
    if (w.kind == WarningKind::kNote &&
        std::find(said.begin(), said.end(), w.message) != said.end())
      continue;
    if (!headed) {
      absl::StrAppend(&out, "\n", st.Yellow("warnings"), " (the load does not fail on these)\n");
      headed = true;
    }
    absl::StrAppend(&out, "  ", Shown(w.message), "\n");
  }
  return out;
}

}  // namespace abicheck
