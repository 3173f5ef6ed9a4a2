// What the user names — a .so, a directory, a wheel or any zip — expanded into ELF objects whose
// bytes are known to be complete wherever the loader model will read them.
#ifndef ABICHECK_LIB_INPUTS_INPUTS_H_
#define ABICHECK_LIB_INPUTS_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/io/blob.h"
#include "lib/io/read_limits.h"

namespace abicheck {

struct ExpandedInput {
  std::string path;                // as named
  std::string kind;                // "file", "directory", "archive", "index"
  std::vector<InputFile> objects;  // the ELF objects, in a stable (sorted) order
  std::vector<std::string> notes;  // what was skipped and why (for --verbose and JSON)
  uint64_t inflated_bytes = 0;     // archive members: bytes streamed through inflate
  uint64_t retained_bytes = 0;     // ... of which kept in memory
  // A URL's archive: the bytes read by range requests, and its size (0, 0: not a URL).
  uint64_t fetched_bytes = 0, remote_size = 0;
  std::string remote_etag;  // ... and the version its server named (ETag; "" none)
  // Read from abicheck's cache (lib/inputs/wheel_cache.h) instead: fetched_bytes is 0, and this
  // is what range requests read when the entry was written.
  bool from_cache = false;
  uint64_t cached_fetched_bytes = 0;
  // Archives: entries, the bytes their shared objects declare, the largest (the limits they met).
  uint64_t archive_members = 0, declared_bytes = 0, largest_member = 0;
  // Archives: small text members that say what the wheel is — "x.dist-info/METADATA",
  // "torch/__init__.py", "torch/version.py" — by member name.
  std::vector<std::pair<std::string, std::string>> texts;
  std::string index_build;  // one build of an index (ExpandBuilds): its name there, "torch-2.6.0"
  // A build of an index made from a wheel: that wheel's path or URL when indexed, under which its
  // objects' paths lie — its world is laid out there as the wheel's would be (E10, E12); the
  // wheel's texts are kept with it. "" otherwise.
  std::string index_wheel;
};

// The text member of `in` whose name ends with `suffix` ("" when none).
std::string TextMember(const ExpandedInput& in, absl::string_view suffix);

// Expands `path`. A named file that is not ELF (and not a zip) is an error; inside a directory
// or an archive, non-ELF files are skipped. Archive members are considered when their name
// contains ".so" (shared objects and extension modules; executables are not loadable anyway).
absl::StatusOr<ExpandedInput> ExpandInput(const std::string& path, const ReadLimits& limits);
// Every build `path` holds: its one expansion, or each build of an index from one read (named
// "INDEX#NAME" when it holds several).
absl::StatusOr<std::vector<ExpandedInput>> ExpandBuilds(const std::string& path,
                                                        const ReadLimits& limits);
// ExpandInput's error for an index of several builds, none (or no such one) selected.
absl::Status NoBuildSelected(const std::string& path, const std::string& selected,
                             const std::vector<std::string>& names);

// A package directory as pip installed it (site-packages/torch): like ExpandInput, but only files
// whose name contains ".so" are opened — the rule for a wheel's members, whose unpacking it is.
// torch's thousands of headers and Python files are not read, and directories that hold nothing
// a package loads (InstalledNothingToLoad) are not walked.
// An installed package's directory of C++ headers (torch/include: 262 of torch's 594
// directories) or of bytecode: it holds nothing the package loads.
bool InstalledNothingToLoad(absl::string_view dir_name);
absl::StatusOr<ExpandedInput> ExpandInstalledDirectory(const std::string& path,
                                                       const ReadLimits& limits);

// The build names an index file holds (empty when `path` is not an index).
absl::StatusOr<std::vector<std::string>> IndexBuilds(const std::string& path);

// Whether an object is a Python extension module (defines PyInit_*), rather than a library its
// package loads. Both are checked; the report says which is which.
bool DefinesPyInit(const InputFile& f);

}  // namespace abicheck

#endif  // ABICHECK_LIB_INPUTS_INPUTS_H_
