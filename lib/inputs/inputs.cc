// Files, directories and archives to InputFiles. Archive members go through up to three
// retention passes (ARCHITECTURE.md "Wheels"): a prefix plus PT_DYNAMIC; then the hull of the
// dynamic tables; then everything. A pass is accepted only when the parsed symbol table's whole
// footprint was retained, which makes the parse exact.
#include "lib/inputs/inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/elf/elf_constants.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/fatbin.h"
#include "lib/index/index_file.h"
#include "lib/inputs/wheel_cache.h"
#include "lib/io/byte_source.h"
#include "lib/io/zip_archive.h"
#include "lib/symbols/symbol_table.h"
#include "lib/util/parallel.h"
#include "lib/util/paths.h"
#include "lib/util/read_trace.h"
#include "lib/util/status_macros.h"

namespace fs = std::filesystem;

namespace abicheck {
namespace {

constexpr uint64_t kMaxTextMember = uint64_t{16} << 20;

bool HasZipMagic(absl::Span<const uint8_t> b) {
  return b.size() >= 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4;
}

// Parses `img` and says whether everything the parse read (and lookups will read) is retained.
// On success, `hull` is unused; when not covered, it is the span of the dynamic tables to retain.
bool ParseIsExact(const std::string& name, const SparseImage& img,
                  std::pair<uint64_t, uint64_t>* hull) {
  const RangeSet& kept = *img.retained();
  absl::StatusOr<ElfFile> elf = ElfFile::Parse(name, img.bytes());
  std::vector<std::pair<uint64_t, uint64_t>> fp;
  if (elf.ok()) {
    absl::StatusOr<SymbolTable> t = SymbolTable::Read(*elf);
    fp = t.ok() ? t->Footprint() : elf->Footprint();
    bool covered = true;
    for (const auto& [off, len] : fp) covered = covered && kept.Covers(off, off + len);
    // Covered: exact. A table that failed to read is never taken as corrupt from a partial image:
    // its footprint stops where the read stopped, so the bytes it misread (a hash table's zeros,
    // past what was retained: patchelf moves the tables of auditwheel-repaired libraries) are
    // not in it. It is retained as the tables' hull, then whole; the error is real only then
    // (reported when the loader parses it).
    if (covered && t.ok()) return true;
    // Not covered: retain from the first table to past the last one. Unsized tables (symbols,
    // hash, versions) sit before the sized ones (strings, relocations) in every linker's layout;
    // if not, the next pass retains everything.
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int64_t tag :
         {elf::DT_SYMTAB, elf::DT_STRTAB, elf::DT_HASH, elf::DT_GNU_HASH, elf::DT_VERSYM,
          elf::DT_VERDEF, elf::DT_VERNEED, elf::DT_RELA, elf::DT_REL, elf::DT_JMPREL}) {
      if (std::optional<uint64_t> v = elf->DynamicValue(tag)) {
        if (std::optional<ByteReader> r = elf->VaddrToSegmentEnd(*v)) {
          lo = std::min(lo, elf->OffsetOf(*r));
          hi = std::max(hi, elf->OffsetOf(*r) + 1);
        }
      }
    }
    for (auto [a, sz] :
         {std::pair{elf::DT_STRTAB, elf::DT_STRSZ}, std::pair{elf::DT_RELA, elf::DT_RELASZ},
          std::pair{elf::DT_REL, elf::DT_RELSZ}, std::pair{elf::DT_JMPREL, elf::DT_PLTRELSZ},
          std::pair{elf::DT_INIT_ARRAY, elf::DT_INIT_ARRAYSZ},
          std::pair{elf::DT_FINI_ARRAY, elf::DT_FINI_ARRAYSZ}}) {
      std::optional<uint64_t> v = elf->DynamicValue(a), n = elf->DynamicValue(sz);
      if (!v || !n) continue;
      if (std::optional<ByteReader> r = elf->VaddrSlice(*v, *n))
        hi = std::max(hi, elf->OffsetOf(*r) + r->size());
    }
    for (const auto& [off, len] : fp) hi = std::max(hi, off + len);
    if (lo < hi) *hull = {lo, hi};
    return false;
  }
  return false;  // even the headers were not retained (or the member is corrupt): retain all
}

// The dynamic tables `img`'s dynamic section names, as file ranges: sized ones exactly, the
// others (symbols, hash, versions) to the next table's start, or to the end of their segment
// when none follows in it. Read once PT_DYNAMIC has streamed by, so that tables patchelf moved
// past it (auditwheel's torch libraries: .dynstr and .gnu.hash in a segment at the end of the
// file) are kept in the same pass. (Bounded by the next table, the ranges of libcublasLt.so.13,
// whose first segment is its 390 MB of code too, end at 8 MB; a table that reaches past the next
// one's start fails ParseIsExact's footprint, and the next pass keeps more.)
RangeSet DynamicTableRanges(const std::string& name, const SparseImage& img) {
  RangeSet out;
  absl::StatusOr<ElfFile> elf = ElfFile::Parse(name, img.bytes());
  if (!elf.ok()) return out;
  std::vector<uint64_t> starts;
  std::vector<std::pair<uint64_t, uint64_t>> unsized;  // (start, segment end)
  // The constructor and destructor arrays (the relocation pass reads their slots), sized, in
  // the data segment: they bound no other table.
  for (auto [tag, size_tag] : {std::pair{elf::DT_INIT_ARRAY, elf::DT_INIT_ARRAYSZ},
                               std::pair{elf::DT_FINI_ARRAY, elf::DT_FINI_ARRAYSZ}}) {
    std::optional<uint64_t> v = elf->DynamicValue(tag), n = elf->DynamicValue(size_tag);
    if (!v || !n) continue;
    if (std::optional<ByteReader> r = elf->VaddrSlice(*v, *n))
      out.Add(elf->OffsetOf(*r), elf->OffsetOf(*r) + r->size());
  }
  for (int64_t tag :
       {elf::DT_SYMTAB, elf::DT_STRTAB, elf::DT_HASH, elf::DT_GNU_HASH, elf::DT_VERSYM,
        elf::DT_VERDEF, elf::DT_VERNEED, elf::DT_RELA, elf::DT_REL, elf::DT_JMPREL}) {
    std::optional<uint64_t> v = elf->DynamicValue(tag);
    if (!v) continue;
    std::optional<ByteReader> r = elf->VaddrToSegmentEnd(*v);
    if (!r) continue;
    const uint64_t at = elf->OffsetOf(*r), segment_end = at + r->size();
    starts.push_back(at);
    const int64_t size_tag = tag == elf::DT_STRTAB   ? elf::DT_STRSZ
                             : tag == elf::DT_RELA   ? elf::DT_RELASZ
                             : tag == elf::DT_REL    ? elf::DT_RELSZ
                             : tag == elf::DT_JMPREL ? elf::DT_PLTRELSZ
                                                     : 0;
    std::optional<uint64_t> n = size_tag ? elf->DynamicValue(size_tag) : std::nullopt;
    if (n) {
      out.Add(at, at + std::min(*n, r->size()));
    } else {
      unsized.emplace_back(at, segment_end);
    }
  }
  for (const auto& [at, segment_end] : unsized) {
    uint64_t end = segment_end;
    for (uint64_t s : starts) {
      if (s > at && s < end) end = s;
    }
    out.Add(at, end);
  }
  return out;
}

// A member whose device code is asked for is kept whole up to this size; a larger one keeps its
// loader tables and section headers, and its .nv_fatbin is walked as it inflates (issue 37 item
// 9: a 4 GiB member took 4.2 GB).
constexpr uint64_t kWholeMemberMax = uint64_t{64} << 20;
// Where linkers put .shstrtab: just before the section headers (GNU ld), or before .strtab (lld):
// kept with them on the first pass, so that the names are in without a pass of their own.
constexpr uint64_t kSectionNamesGuess = uint64_t{1} << 20;

// Whether the ranges ReadFatbinLayout reads of `img` are all kept; if not, adds them to `extra`.
bool LayoutIsExact(const std::string& name, const SparseImage& img, RangeSet* extra) {
  absl::StatusOr<ElfFile> elf = ElfFile::Parse(name, img.bytes());
  if (!elf.ok()) return true;  // corrupt: said when the object is parsed
  RangeSet read;
  ReadFatbinLayout(*elf, &read);
  bool covered = true;
  for (const auto& [lo, hi] : read.ranges()) {
    if (img.retained()->Covers(lo, hi)) continue;
    covered = false;
    extra->Add(lo, hi);
  }
  return covered;
}

// The .nv_fatbin sections of the member `img` was kept from, walked in one more inflation that
// keeps nothing (issue 37 item 9).
absl::StatusOr<std::shared_ptr<const StreamedDeviceCode>> WalkDeviceCode(
    const ZipArchive& zip, const ZipMember& m, const std::string& name, const SparseImage& img,
    const RetainPlan& kept, uint64_t* inflated) {
  ABICHECK_ASSIGN_OR_RETURN(ElfFile elf, ElfFile::Parse(name, img.bytes()));
  auto out = std::make_shared<StreamedDeviceCode>();
  out->layout = ReadFatbinLayout(elf);
  RetainPlan walk;
  walk.prefix = 0;
  walk.verify_crc = kept.verify_crc;  // the bytes walked are checked as those kept were
  walk.on_bytes = kept.on_bytes;
  for (const auto& [offset, size] : out->layout.sections) {
    out->walks.emplace_back(name, offset, size, elf.reader().big_endian());
    walk.scan_to = std::max(walk.scan_to, offset + size);
  }
  if (out->walks.empty()) return out;
  walk.watch = [&](uint64_t at, absl::Span<const uint8_t> bytes) {
    for (FatbinWalk& w : out->walks) {
      if (!w.done() && w.next() < at + bytes.size()) w.Feed(at, bytes);
    }
  };
  ABICHECK_RETURN_IF_ERROR(zip.Inflate(m, walk).status());
  *inflated += m.size;
  return out;
}

absl::StatusOr<InputFile> LoadMember(const ZipArchive& zip, const ZipMember& m, bool whole,
                                     bool verify_crc, uint64_t* inflated, uint64_t* retained,
                                     std::function<void(uint64_t)> on_bytes) {
  const std::string name = absl::StrCat(zip.path(), "!", m.name);
  const bool walk_device_code = whole && m.size > kWholeMemberMax;
  RetainPlan plan;
  plan.everything = whole && !walk_device_code;
  plan.verify_crc = verify_crc;
  // Each pass inflates from the member's start: progress counts the furthest byte any pass
  // reached, so a member read again is not counted again (the walk below is counted apart).
  uint64_t pass_bytes = 0, counted = 0;
  if (on_bytes) {
    plan.on_bytes = [&pass_bytes, &counted, &on_bytes](uint64_t n) {
      pass_bytes += n;
      if (pass_bytes <= counted) return;
      on_bytes(pass_bytes - counted);
      counted = pass_bytes;
    };
  }
  plan.dynamic_range = DynamicSegmentRange;
  if (zip.remote()) {
    // Each byte read is a byte fetched: the first segment's tables, not the first 32 MiB
    // (libtorch_python.so's are 1.7 MB; the 32 MiB were all of it).
    plan.prefix = 65536;
    plan.head_end = FirstSegmentEnd;
  }
  plan.on_dynamic = [&name](const SparseImage& so_far, uint64_t) {
    return DynamicTableRanges(name, so_far);
  };
  if (walk_device_code) {
    plan.head_ranges = [](absl::Span<const uint8_t> head) {
      RangeSet r;
      if (std::optional<std::pair<uint64_t, uint64_t>> sh = SectionHeaderRange(head)) {
        const auto [at, size] = *sh;
        r.Add(at - std::min(at, kSectionNamesGuess), at + std::min(size, UINT64_MAX - at));
      }
      return r;
    };
  }
  // The loader's passes (a prefix with PT_DYNAMIC, the hull of the tables, everything), and with
  // device code to walk, up to three for the section headers and their names.
  int layout_passes = 0;
  for (int pass = 0; pass < 6; ++pass) {
    pass_bytes = 0;
    ABICHECK_ASSIGN_OR_RETURN(std::unique_ptr<SparseImage> img, zip.Inflate(m, plan));
    *inflated += m.size;
    std::pair<uint64_t, uint64_t> hull{0, 0};
    const bool exact = plan.everything || ParseIsExact(name, *img, &hull);
    if (exact && !plan.everything && walk_device_code && !LayoutIsExact(name, *img, &plan.extra)) {
      if (++layout_passes == 3) plan.everything = true;  // what the ELF stage reads, no more
      continue;
    }
    if (exact) {
      *retained += img->retained()->TotalBytes();
      std::shared_ptr<const StreamedDeviceCode> device_code;
      if (walk_device_code && !plan.everything) {
        plan.on_bytes = on_bytes;  // the walk's bytes: counted again, as `declared` counts them
        ABICHECK_ASSIGN_OR_RETURN(device_code, WalkDeviceCode(zip, m, name, *img, plan, inflated));
      }
      return InputFile{name, absl::StrCat(zip.path(), "/", m.name),
                       std::shared_ptr<const Blob>(std::move(img)), nullptr,
                       std::move(device_code)};
    }
    if (pass == 0 && hull.second > hull.first) {
      plan.extra.Add(hull.first, hull.second);
    } else {
      plan.everything = true;
    }
  }
  return absl::InternalError(absl::StrCat(name, ": retention did not converge"));
}

// A URL's archive, read by range requests (issue 33): how much, and what was not checked.
void AddRangeReadNotes(const ZipArchive& zip, const ReadLimits& limits, ExpandedInput* out) {
  for (const std::string& n : zip.source_notes()) out->notes.push_back(n);
  out->fetched_bytes = zip.fetched();
  out->remote_size = zip.size();
  out->remote_etag = zip.identity();
  const double share =
      zip.size() ? 100.0 * static_cast<double>(zip.fetched()) / static_cast<double>(zip.size())
                 : 0.0;
  out->notes.push_back(absl::StrFormat(
      "read by HTTP range requests: %d of its %d bytes (%.1f %%); the local headers of the "
      "members not read were not compared with the central directory%s",
      zip.fetched(), zip.size(), share,
      limits.verify_crc ? "" : ", and the members read in part have no CRC-32 checked"));
}

// What the shared objects of an archive declare they inflate to, within --max-total-size.
absl::Status CountDeclared(const std::string& path, const std::vector<const ZipMember*>& candidates,
                           const ReadLimits& limits, ExpandedInput* out) {
  for (const ZipMember* m : candidates) {
    out->declared_bytes += m->size;
    out->largest_member = std::max(out->largest_member, m->size);
  }
  if (out->declared_bytes > limits.max_total_inflated) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: its shared objects declare %d bytes in all, more than the cap of %d "
                        "(raise it with --max-total-size)",
                        path, out->declared_bytes, limits.max_total_inflated));
  }
  return absl::OkStatus();
}

absl::Status ExpandArchive(const std::string& path, const ReadLimits& given, ExpandedInput* out) {
  out->kind = "archive";
  // A URL's wheel is read in part whatever --fast says (every byte is a byte fetched: a CRC-32
  // needs the whole member); --verify (verify_remote) reads it whole and checks them (issue 33).
  ReadLimits limits = given;
  if (IsUrl(path)) limits.verify_crc = given.verify_crc && given.verify_remote;
  ABICHECK_ASSIGN_OR_RETURN(std::shared_ptr<ZipArchive> zip, ZipArchive::Open(path, limits));
  for (const std::string& n : zip->notes()) out->notes.push_back(n);
  std::vector<const ZipMember*> candidates;
  out->archive_members = zip->members().size();
  for (const ZipMember& m : zip->members()) {
    // What the wheel says it is: its METADATA (at the top level) and torch's own version files.
    const bool metadata = absl::EndsWith(m.name, ".dist-info/METADATA") &&
                          std::count(m.name.begin(), m.name.end(), '/') == 1;
    if ((metadata || m.name == "torch/__init__.py" || m.name == "torch/version.py") &&
        m.size <= kMaxTextMember) {
      ABICHECK_ASSIGN_OR_RETURN(std::string text, zip->Head(m, m.size));
      out->texts.emplace_back(m.name, std::move(text));
    }
    if (Basename(m.name).find(".so") == std::string::npos || m.size < 4) continue;
    candidates.push_back(&m);
  }
  // Members are independent: inflate them on every core.
  const size_t threads =
      ThreadsFor(candidates.size(), limits.threads > 0 ? static_cast<size_t>(limits.threads) : 0);
  std::vector<std::optional<absl::StatusOr<InputFile>>> results(candidates.size());
  std::vector<std::string> skipped(candidates.size());
  std::atomic<uint64_t> inflated{0}, retained{0}, done{0};
  ABICHECK_RETURN_IF_ERROR(CountDeclared(path, candidates, limits, out));
  // What progress counts to: each member once, and again where its device code is walked.
  uint64_t declared = out->declared_bytes;
  for (const ZipMember* m : candidates) {
    if (limits.whole_members && m->size > kWholeMemberMax) declared += m->size;
  }
  ParallelFor(candidates.size(), threads, [&](size_t i) {
    {
      const ZipMember& m = *candidates[i];
      absl::StatusOr<std::string> head = zip->Head(m, 4);
      if (!head.ok()) {
        results[i] = head.status();
        return;
      }
      if (!HasElfMagic({reinterpret_cast<const uint8_t*>(head->data()), head->size()})) {
        skipped[i] = absl::StrCat(m.name, ": not an ELF file");
        return;
      }
      uint64_t inf = 0, ret = 0;
      results[i] =
          LoadMember(*zip, m, limits.whole_members, limits.verify_crc, &inf, &ret, [&](uint64_t n) {
            const uint64_t d = done.fetch_add(n) + n;
            if (limits.progress) limits.progress(d, declared);
          });
      inflated += inf;
      retained += ret;
    }
  });
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!skipped[i].empty()) out->notes.push_back(skipped[i]);
    if (!results[i]) continue;
    if (!results[i]->ok()) return results[i]->status();
    out->objects.push_back(**std::move(results[i]));
  }
  std::sort(out->objects.begin(), out->objects.end(),
            [](const InputFile& a, const InputFile& b) { return a.name < b.name; });
  if (!limits.verify_crc && !out->objects.empty()) {
    out->notes.push_back(absl::StrFormat(
        "%s: the CRC-32 of its %d shared objects was not checked (they were read in part%s)",
        given.verify_crc ? "a URL" : "--fast", out->objects.size(),
        given.verify_crc ? "; --verify reads them whole" : ""));
  }
  out->inflated_bytes = inflated;
  out->retained_bytes = retained;
  if (IsUrl(path)) AddRangeReadNotes(*zip, limits, out);
  return absl::OkStatus();
}

// `named_only`: only files whose name contains ".so" are looked at, as for archive members (an
// installed package is its wheel's members unpacked).
absl::Status ExpandDirectory(const std::string& path, const ReadLimits& limits, bool named_only,
                             ExpandedInput* out) {
  out->kind = "directory";
  std::error_code ec;
  // A symlinked directory is followed as the kernel follows it (a symlinked torch/lib is where
  // import torch finds its libraries, issue 37); each directory is walked once, so a link back
  // up the tree ends there.
  fs::recursive_directory_iterator it(path,
                                      fs::directory_options::skip_permission_denied |
                                          fs::directory_options::follow_directory_symlink,
                                      ec),
      end;
  if (ec) return absl::UnavailableError(absl::StrCat(path, ": ", ec.message()));
  absl::flat_hash_set<std::pair<uint64_t, uint64_t>> seen, walked;
  if (struct stat root; ::stat(path.c_str(), &root) == 0)
    walked.insert({static_cast<uint64_t>(root.st_dev), static_cast<uint64_t>(root.st_ino)});
  std::vector<std::string> files;
  uint64_t count = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) return absl::UnavailableError(absl::StrCat(path, ": ", ec.message()));
    if (it.depth() > limits.max_depth) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("%s: nested deeper than %d directories (raise it with --max-depth)", path,
                          limits.max_depth));
    }
    if (++count > limits.max_files) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: more than %d files (raise it with --max-files)", path, limits.max_files));
    }
    if (named_only && it->path().filename().string().find(".so") == std::string::npos &&
        !it->is_directory(ec))
      continue;  // the type the listing gave: no system call
    // Symlinks to files are followed (libc10.so -> libc10.so.2.6.0); each file is listed once.
    // A dangling symlink is no file; anything else that cannot be looked at — a name longer than
    // PATH_MAX, a directory that cannot be listed — is an input error naming it (never skipped
    // without a word: the answer would be about fewer files than were given).
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT) continue;
      return absl::UnavailableError(absl::StrCat(it->path().string(), ": ", std::strerror(err)));
    }
    if (S_ISDIR(st.st_mode) && named_only &&
        InstalledNothingToLoad(it->path().filename().string())) {
      it.disable_recursion_pending();
      continue;
    }
    if (S_ISDIR(st.st_mode) && ::access(it->path().c_str(), R_OK | X_OK) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          it->path().string(), ": Permission denied (a directory that cannot be listed)"));
    }
    if (S_ISDIR(st.st_mode) &&
        !walked.insert({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)})
             .second) {
      it.disable_recursion_pending();  // met before, through another name
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (!seen.insert({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)}).second)
      continue;
    files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    absl::StatusOr<MappedFile> m = MappedFile::Open(f);
    if (!m.ok()) return m.status();  // unreadable: "FILE: Permission denied"
    if (!HasElfMagic(m->bytes())) continue;
    out->objects.push_back(InputFile{f, f, std::make_shared<MappedBlob>(*std::move(m)), nullptr});
  }
  return absl::OkStatus();
}

}  // namespace

bool InstalledNothingToLoad(absl::string_view dir_name) {
  return dir_name == "include" || dir_name == "__pycache__";
}

absl::StatusOr<ExpandedInput> ExpandInstalledDirectory(const std::string& path,
                                                       const ReadLimits& limits) {
  ExpandedInput out;
  out.path = path;
  ABICHECK_RETURN_IF_ERROR(ExpandDirectory(path, limits, /*named_only=*/true, &out));
  return out;
}

absl::StatusOr<std::vector<std::string>> IndexBuilds(const std::string& path) {
  absl::StatusOr<MappedFile> f = MappedFile::Open(path);
  if (!f.ok() || !HasIndexMagic(f->bytes())) return std::vector<std::string>{};
  ABICHECK_ASSIGN_OR_RETURN(std::vector<IndexedBuild> builds, ReadIndex(path));
  std::vector<std::string> names;
  names.reserve(builds.size());
  for (const IndexedBuild& b : builds) names.push_back(b.name);
  return names;
}

absl::Status NoBuildSelected(const std::string& path, const std::string& selected,
                             const std::vector<std::string>& names) {
  return absl::InvalidArgumentError(absl::StrCat(
      path,
      selected.empty() ? ": holds several builds; name one as "
                       : absl::StrCat(": has no build named ", selected, "; its builds: "),
      selected.empty() ? absl::StrCat(path, "#BUILD: ") : "", absl::StrJoin(names, ", ")));
}

absl::StatusOr<std::vector<ExpandedInput>> ExpandBuilds(const std::string& path,
                                                        const ReadLimits& limits) {
  std::vector<ExpandedInput> out;
  if (absl::StatusOr<MappedFile> f = MappedFile::Open(path); f.ok() && HasIndexMagic(f->bytes())) {
    // Every build of the index from one read (ExpandInput would read it once per build).
    GlobalReadTrace().expansions.fetch_add(1, std::memory_order_relaxed);
    ABICHECK_ASSIGN_OR_RETURN(std::vector<IndexedBuild> builds, ReadIndex(path));
    for (IndexedBuild& b : builds) {
      ExpandedInput in;
      in.path = builds.size() > 1 ? absl::StrCat(path, "#", b.name) : path;
      in.kind = "index";
      in.index_build = b.name;
      in.objects = std::move(b.objects);
      in.index_wheel = std::move(b.wheel);
      in.texts = std::move(b.texts);
      out.push_back(std::move(in));
    }
    if (out.empty())
      return absl::InvalidArgumentError(absl::StrCat(path, ": an index of no build"));
    return out;
  }
  ABICHECK_ASSIGN_OR_RETURN(ExpandedInput in, ExpandInput(path, limits));
  out.push_back(std::move(in));
  return out;
}

namespace {

// A wheel on a server, read by HTTP range requests — or from abicheck's cache, as it was read.
absl::StatusOr<ExpandedInput> ExpandUrl(const std::string& path_arg, const ReadLimits& limits) {
  ExpandedInput out;
  out.path = path_arg;
  // "URL#sha256=HEX", as an index's links carry it: the digest names the archive in the cache.
  std::string url = path_arg;
  if (const size_t f = url.find("#sha256="); f != std::string::npos) {
    RememberDigest(url.substr(0, f), absl::AsciiStrToLower(url.substr(f + 8)));
    url.resize(f);
    out.path = url;
  }
  // Read before (its sha256 known from the index): from abicheck's cache, as it was read.
  if (std::optional<ExpandedInput> cached = LoadCachedWheel(url, limits)) return *std::move(cached);
  if (limits.offline) {
    return absl::UnavailableError(absl::StrCat(url, ": ", CacheMissReason(url, limits),
                                               ", and --offline reads nothing from the network"));
  }
  ABICHECK_RETURN_IF_ERROR(ExpandArchive(url, limits, &out));
  StoreCachedWheel(url, out, limits);
  RememberFetchedNow(url);
  return out;
}

}  // namespace

absl::StatusOr<ExpandedInput> ExpandInput(const std::string& path_arg, const ReadLimits& limits) {
  GlobalReadTrace().expansions.fetch_add(1, std::memory_order_relaxed);
  ExpandedInput out;
  out.path = path_arg;
  // "index.abix#build" selects one build of an index.
  std::string path = path_arg, selected;
  if (size_t hash = path_arg.rfind('#');
      hash != std::string::npos && ::access(path_arg.c_str(), F_OK) != 0) {
    path = path_arg.substr(0, hash);
    selected = path_arg.substr(hash + 1);
  }
  // WHEEL!MEMBER, the name reports give a wheel's shared object, is that one object, wherever a
  // path is taken (issue 36: only `symbols` took it).
  if (const size_t bang = path_arg.find(".whl!");
      bang != std::string::npos && ::access(path_arg.c_str(), F_OK) != 0) {
    const std::string wheel = path_arg.substr(0, bang + 4);
    ABICHECK_ASSIGN_OR_RETURN(ExpandedInput whole, ExpandInput(wheel, limits));
    for (InputFile& f : whole.objects) {
      if (f.name != path_arg) continue;
      out.kind = "file";
      out.notes = std::move(whole.notes);
      out.objects.push_back(std::move(f));
      return out;
    }
    return absl::NotFoundError(absl::StrCat(
        path_arg, ": no shared object of that name in ", wheel,
        whole.objects.empty() ? " (it holds none)"
                              : absl::StrCat(" (it holds ", whole.objects.size(), ", e.g. ",
                                             whole.objects.front().name, ")")));
  }
  if (IsUrl(path_arg)) return ExpandUrl(path_arg, limits);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    ABICHECK_RETURN_IF_ERROR(ExpandDirectory(path, limits, /*named_only=*/false, &out));
    return out;
  }
  ABICHECK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  if (HasIndexMagic(file.bytes())) {
    out.kind = "index";
    ABICHECK_ASSIGN_OR_RETURN(std::vector<IndexedBuild> builds, ReadIndex(path));
    std::vector<std::string> names;
    for (IndexedBuild& b : builds) {
      names.push_back(b.name);
      if (b.name == selected || (selected.empty() && builds.size() == 1)) {
        out.objects = std::move(b.objects);
        out.index_wheel = std::move(b.wheel);
        out.texts = std::move(b.texts);
      }
    }
    if (out.objects.empty()) return NoBuildSelected(path, selected, names);
    return out;
  }
  if (!selected.empty())
    return absl::NotFoundError(absl::StrCat(path_arg, ": No such file or directory"));
  if (HasZipMagic(file.bytes()) || absl::EndsWith(path, ".whl") || absl::EndsWith(path, ".zip")) {
    ABICHECK_RETURN_IF_ERROR(ExpandArchive(path, limits, &out));
    return out;
  }
  out.kind = "file";
  if (!HasElfMagic(file.bytes())) return NotElfError(path);
  out.objects.push_back(
      InputFile{path, path, std::make_shared<MappedBlob>(std::move(file)), nullptr});
  return out;
}

bool DefinesPyInit(const InputFile& f) {
  absl::StatusOr<ParsedElf> p = ParseElf(f);
  if (!p.ok()) return false;
  bool init = false;
  p->syms->ForEachSymbol(
      [&](const Symbol& s) { init |= s.defined() && absl::StartsWith(s.name, "PyInit_"); });
  return init;
}

std::string TextMember(const ExpandedInput& in, absl::string_view suffix) {
  for (const auto& [name, text] : in.texts) {
    if (absl::EndsWith(name, suffix)) return text;
  }
  return "";
}

}  // namespace abicheck
