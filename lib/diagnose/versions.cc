// What version names and sonames say: families (GLIBCXX_3.4.32 is GLIBCXX), the newest of a
// family, a torch release from a soname, what a version's number means; the [abi:cxx11] tag.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/diagnose/diagnose.h"

namespace abicheck {

absl::string_view VersionFamily(absl::string_view v) {
  size_t i = 0;
  while (i < v.size() && !absl::ascii_isdigit(static_cast<unsigned char>(v[i]))) ++i;
  return v.substr(0, i);
}

int CompareVersionNames(absl::string_view a, absl::string_view b) {
  // Numeric fields compared as numbers: GLIBCXX_3.4.9 < GLIBCXX_3.4.30.
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(static_cast<unsigned char>(a[i])) &&
        absl::ascii_isdigit(static_cast<unsigned char>(b[j]))) {
      uint64_t x = 0, y = 0;
      while (i < a.size() && absl::ascii_isdigit(static_cast<unsigned char>(a[i])))
        x = x * 10 + (a[i++] - '0');
      while (j < b.size() && absl::ascii_isdigit(static_cast<unsigned char>(b[j])))
        y = y * 10 + (b[j++] - '0');
      if (x != y) return x < y ? -1 : 1;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i, ++j;
  }
  return (i < a.size()) - (j < b.size());
}

std::string NewestInFamily(const std::vector<VersionDef>& defs, absl::string_view wanted) {
  const absl::string_view family = VersionFamily(wanted);
  std::string newest;
  for (const VersionDef& d : defs) {
    if ((d.flags & elf::VER_FLG_BASE) || VersionFamily(d.name) != family || family.empty())
      continue;
    if (newest.empty() || CompareVersionNames(newest, d.name) < 0) newest = std::string(d.name);
  }
  return newest;
}

std::string TorchReleaseOfSoname(absl::string_view soname) {
  for (absl::string_view lib :
       {"libc10.so.", "libc10_cuda.so.", "libtorch.so.", "libtorch_cpu.so.", "libtorch_cuda.so.",
        "libtorch_python.so.", "libshm.so.", "libtorch_global_deps.so."}) {
    if (!absl::StartsWith(soname, lib)) continue;
    absl::string_view v = soname.substr(lib.size());
    const size_t dot = v.find('.');
    if (dot == absl::string_view::npos || dot == 0) return "";
    const size_t end = v.find('.', dot + 1);
    absl::string_view major_minor = v.substr(0, end);
    for (char c : major_minor) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '.') return "";
    }
    return std::string(major_minor);
  }
  return "";
}

std::string VersionHint(const std::vector<VersionDef>& defs, absl::string_view wanted,
                        absl::string_view library) {
  // The library's versions of the wanted one's family, oldest and newest: the wanted version is
  // newer than all of them (the module was built against a newer library), older than all of
  // them (an older library's version that this one dropped), between them (a gap), or of a
  // family this library does not have at all (another library altogether).
  const absl::string_view family = VersionFamily(wanted);
  std::string oldest, newest;
  std::vector<std::string> others;
  for (const VersionDef& d : defs) {
    if (d.flags & elf::VER_FLG_BASE) continue;
    if (family.empty() || VersionFamily(d.name) != family) {
      if (others.size() < 4) others.emplace_back(d.name);
      continue;
    }
    if (oldest.empty() || CompareVersionNames(d.name, oldest) < 0) oldest = std::string(d.name);
    if (newest.empty() || CompareVersionNames(newest, d.name) < 0) newest = std::string(d.name);
  }
  if (newest.empty()) {
    return absl::StrCat(
        library, " defines no ", family.empty() ? std::string(wanted) : absl::StrCat(family, "*"),
        " version",
        others.empty() ? std::string(" (it has no version definitions)")
                       : absl::StrCat(" (its versions: ", absl::StrJoin(others, ", "), ")"),
        ": the module was built against another library of that name");
  }
  if (CompareVersionNames(wanted, newest) > 0) {
    return absl::StrCat("needs ", wanted, "; ", library, " provides up to ", newest, ": ",
                        VersionMeaning(wanted, library));
  }
  if (CompareVersionNames(wanted, oldest) < 0) {
    return absl::StrCat("needs ", wanted, "; ", library, "'s versions are newer (", oldest,
                        oldest == newest ? "" : absl::StrCat(" to ", newest),
                        "): the module was built against an older ", library,
                        " whose version this one no longer defines");
  }
  return absl::StrCat("needs ", wanted, "; ", library, " defines ", oldest, " to ", newest,
                      " but not ", wanted, ": the module was built against a different build of ",
                      library);
}

std::string VersionMeaning(absl::string_view version, absl::string_view library) {
  const absl::string_view family = VersionFamily(version);
  if (family == "GLIBCXX_" || family == "CXXABI_") {
    return absl::StrCat(
        "the module was built with a newer GCC (libstdc++) than the one whose ", library,
        " is loaded; build it with the target's toolchain (e.g. a manylinux image), or "
        "run where a newer libstdc++.so.6 is installed");
  }
  if (family == "GLIBC_") {
    return "the module was built against a newer glibc than this one; build it on an older base "
           "(e.g. a manylinux image for the oldest glibc you support)";
  }
  return absl::StrCat("the module was built against a newer ", library, " than this one");
}

std::vector<PartChange> DescribeDifferences(const FunctionParts& wanted,
                                            const FunctionParts& found) {
  using Kind = PartChange::Kind;
  std::vector<PartChange> out;
  if (wanted.base != found.base) {
    auto tag = [](const std::string& b) {
      size_t at = b.find("[abi:");
      return at == std::string::npos ? std::string() : b.substr(at);
    };
    out.push_back({Kind::kAbiTag, 0, tag(wanted.base), tag(found.base)});
  }
  if (wanted.context != found.context) {
    out.push_back({Kind::kScope, 0, wanted.context, found.context});
  }
  if (wanted.template_args != found.template_args) {
    out.push_back({Kind::kTemplateArguments, 0, wanted.template_args, found.template_args});
  }
  if (wanted.params.size() != found.params.size()) {
    out.push_back({Kind::kParameterCount, 0, absl::StrCat(wanted.params.size()),
                   absl::StrCat(found.params.size())});
  }
  for (size_t i = 0; i < std::min(wanted.params.size(), found.params.size()); ++i) {
    if (wanted.params[i] != found.params[i])
      out.push_back({Kind::kParameter, static_cast<int>(i + 1), wanted.params[i], found.params[i]});
  }
  if (wanted.qualifiers != found.qualifiers) {
    auto q = [](const std::string& s) { return std::string(absl::StripLeadingAsciiWhitespace(s)); };
    out.push_back({Kind::kQualifiers, 0, q(wanted.qualifiers), q(found.qualifiers)});
  }
  // Only a function template's instance mangles its return type: "" beside one is no change.
  if (wanted.return_type != found.return_type && !wanted.return_type.empty() &&
      !found.return_type.empty()) {
    out.push_back({Kind::kReturnType, 0, wanted.return_type, found.return_type});
  }
  return out;
}

std::optional<PartChange> AbiTagChange(absl::string_view from, absl::string_view to) {
  const bool a = absl::StrContains(from, "[abi:cxx11]"), b = absl::StrContains(to, "[abi:cxx11]");
  if (a == b) return std::nullopt;
  return PartChange{PartChange::Kind::kAbiTag, 0, a ? "[abi:cxx11]" : "", b ? "[abi:cxx11]" : ""};
}

}  // namespace abicheck
