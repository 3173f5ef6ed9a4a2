// Fat binary reading (docs/gpu-model.md "The fat binary"): section headers -> .nv_fatbin ->
// containers (magic 0xBA55ED50, a 16-byte header with its own size and the size of what follows)
// -> entries (a header of at least 64 bytes: kind, header size, payload size, code version,
// architecture, flags), each followed by its payload.
#include "lib/elf/fatbin.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/elf/records.h"

namespace abicheck {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint32_t kShtNobits = 8;
constexpr uint64_t kMaxSections = 1u << 20;
constexpr size_t kMaxImages = 1u << 20;
// Entry flags, as nvcc 12-13 set them (docs/gpu-model.md).
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlagArchSpecific = 0x100000;
constexpr uint64_t kFlagFamily = 0x200000;

using Section = elf::Shdr;

// The section headers, or why they cannot be read ("" and nullopt when there are none). `read`:
// the byte ranges looked at.
std::optional<std::vector<Section>> ReadSections(const ElfFile& elf, std::string* problem,
                                                 RangeSet* read) {
  const ByteReader& r = elf.reader();
  const bool w64 = elf.is_64();
  read->Add(0, std::min(elf::EhdrSize(w64), r.size()));
  const std::optional<elf::Ehdr> h = elf::ReadEhdr(r, w64);
  if (!h || h->shoff == 0) return std::nullopt;
  const uint64_t ent = elf::ShdrSize(w64);
  if (h->shentsize != ent) {
    *problem =
        absl::StrFormat("section headers: e_shentsize is %u, expected %u", h->shentsize, ent);
    return std::nullopt;
  }
  const uint64_t shoff = h->shoff;
  auto read_one = [&](uint64_t i) -> std::optional<Section> {
    if (i > UINT64_MAX / ent || shoff > UINT64_MAX - i * ent) return std::nullopt;
    return elf::ReadShdr(r, shoff + i * ent, w64);
  };
  uint64_t count = h->shnum;
  if (count == 0) {  // PN_XNUM-style extended numbering: the count is section 0's sh_size
    std::optional<Section> s0 = read_one(0);
    if (s0) read->Add(shoff, shoff + ent);
    if (!s0) {
      *problem = absl::StrFormat("section headers at 0x%x: section 0 lies outside the file", shoff);
      return std::nullopt;
    }
    count = s0->size;
  }
  if (count > kMaxSections) {
    *problem = absl::StrFormat("section headers: %u sections, more than the cap of %u", count,
                               kMaxSections);
    return std::nullopt;
  }
  std::vector<Section> out;
  for (uint64_t i = 0; i < count; ++i) {
    std::optional<Section> s = read_one(i);
    if (!s) {
      *problem = absl::StrFormat("section header %u lies outside the file", i);
      return std::nullopt;
    }
    out.push_back(*s);
  }
  if (count != 0) read->Add(shoff, shoff + count * ent);  // inside the file: read above
  return out;
}

// The walk's replay (ReadDeviceCode, DeviceCodeOf): the layout's problems, then each walk's
// findings in section order, the cap on images counted across them, up to the first image `stop`
// takes.
DeviceCode Assemble(const FatbinLayout& layout, const std::vector<FatbinWalk>& walks,
                    const std::function<bool(const DeviceImage&)>& stop) {
  DeviceCode out;
  out.has_section_headers = layout.has_section_headers;
  out.problems = layout.problems;
  for (const FatbinWalk& w : walks) {
    for (const FatbinWalk::Finding& f : w.findings()) {
      if (f.kind == FatbinWalk::Finding::kNote) {
        out.notes.push_back(f.text);
        continue;
      }
      if (f.kind == FatbinWalk::Finding::kProblem) {
        out.problems.push_back(f.text);
        break;
      }
      if (out.images.size() >= kMaxImages) {
        out.problems.push_back(
            absl::StrFormat("%s: .nv_fatbin at 0x%x: more than %u device code entries", w.object(),
                            f.image.offset, kMaxImages));
        break;
      }
      out.images.push_back(f.image);
      if (stop && stop(f.image)) {
        out.stopped = true;
        return out;
      }
    }
  }
  return out;
}

}  // namespace

FatbinWalk::FatbinWalk(std::string object, uint64_t offset, uint64_t size, bool big_endian,
                       std::function<bool(const DeviceImage&)> stop)
    : object_(std::move(object)),
      sec_off_(offset),
      sec_size_(size),
      big_endian_(big_endian),
      stop_(std::move(stop)) {
  SeekMagic(0);
}

void FatbinWalk::Problem(uint64_t at, const std::string& what) {
  findings_.push_back(
      {Finding::kProblem,
       {},
       absl::StrFormat("%s: .nv_fatbin at 0x%x: %s", object_, sec_off_ + at, what)});
  done_ = true;
}

// Containers are 8-aligned; what lies between them is padding, looked at 4 bytes in 8 for the
// magic. Fewer than 16 bytes left: the section ends.
void FatbinWalk::SeekMagic(uint64_t at) {
  if (at > sec_size_ || sec_size_ - at < 16) {
    done_ = true;
    return;
  }
  state_ = State::kMagic;
  pos_ = at;
  need_ = 4;
}

void FatbinWalk::EntryOrNext(uint64_t e) {
  if (e >= end_) return SeekMagic(end_);
  if (end_ - e < 64)
    return Problem(e, absl::StrFormat("entry header truncated (%u bytes left)", end_ - e));
  state_ = State::kEntry;
  pos_ = e;
  need_ = 48;  // kind, header size, payload size, code version, architecture, flags
}

void FatbinWalk::Feed(uint64_t at, absl::Span<const uint8_t> bytes) {
  while (!done_) {
    // The next byte the walk needs, in the file; bytes before it are passed over unread.
    const uint64_t next = sec_off_ + pos_ + have_;
    if (next < at) return Problem(pos_ + have_, "bytes passed by unread (a reader's fault)");
    if (next - at >= bytes.size()) return;
    const size_t i = next - at;
    const size_t n = std::min<size_t>(need_ - have_, bytes.size() - i);
    std::memcpy(buf_ + have_, bytes.data() + i, n);
    have_ += n;
    if (have_ < need_) return;
    have_ = 0;
    Step(ByteReader(absl::MakeConstSpan(buf_, need_), big_endian_));
  }
}

// `h` holds the `need_` bytes at `pos_` (the walk's fields at their offsets in the format).
void FatbinWalk::Step(const ByteReader& h) {
  if (state_ == State::kMagic) {
    if (*h.ReadAt<uint32_t>(0) != kFatbinMagic) return SeekMagic(pos_ + 8);
    state_ = State::kContainer;
    pos_ += 4;
    need_ = 12;
    return;
  }
  if (state_ == State::kContainer) {
    const uint64_t off = pos_ - 4;
    const uint16_t version = *h.ReadAt<uint16_t>(0);
    const uint16_t hsize = *h.ReadAt<uint16_t>(2);
    const uint64_t fatsize = *h.ReadAt<uint64_t>(4);
    if (version != 1 || hsize < 16) {
      return Problem(off, absl::StrFormat("fat binary header version %u, header size %u "
                                          "(expected 1, >= 16)",
                                          version, hsize));
    }
    const uint64_t body = off + hsize;
    if (body > sec_size_ || fatsize > sec_size_ - body) {
      return Problem(off, absl::StrFormat("fat binary of %u bytes runs past the section end (0x%x)",
                                          fatsize, sec_size_));
    }
    end_ = body + fatsize;
    return EntryOrNext(body);
  }
  const uint64_t e = pos_;
  const uint16_t kind = *h.ReadAt<uint16_t>(0);
  const uint32_t ehs = *h.ReadAt<uint32_t>(4);
  const uint64_t size = *h.ReadAt<uint64_t>(8);
  if (ehs < 64 || ehs > end_ - e)
    return Problem(e, absl::StrFormat("entry header size %u is not within 64..%u", ehs, end_ - e));
  if (size > end_ - e - ehs) {
    return Problem(e, absl::StrFormat("entry payload of %u bytes runs past its fat binary (%u "
                                      "left)",
                                      size, end_ - e - ehs));
  }
  if (kind == 1 || kind == 2 || kind == 0x10) {
    if (images_ >= kMaxImages)
      return Problem(e, absl::StrFormat("more than %u device code entries", kMaxImages));
    const uint64_t flags = *h.ReadAt<uint64_t>(40);
    DeviceImage img;
    img.kind = kind == 1 ? DeviceCodeKind::kPtx : DeviceCodeKind::kSass;
    img.version_minor = *h.ReadAt<uint16_t>(24);
    img.version_major = *h.ReadAt<uint16_t>(26);
    img.arch = static_cast<int>(std::min<uint32_t>(*h.ReadAt<uint32_t>(28), 100000));
    img.variant = (flags & kFlagArchSpecific) ? ArchVariant::kArchSpecific
                  : (flags & kFlagFamily)     ? ArchVariant::kFamily
                                              : ArchVariant::kNone;
    img.compression = (flags & kFlagZstd)  ? DeviceCompression::kZstd
                      : (flags & kFlagLz4) ? DeviceCompression::kLz4
                                           : DeviceCompression::kNone;
    img.offset = sec_off_ + e;
    img.size = size;
    ++images_;
    findings_.push_back({Finding::kImage, img, ""});
    if (stop_ && stop_(img)) {
      stopped_ = done_ = true;
      return;
    }
  } else {
    findings_.push_back({Finding::kNote,
                         {},
                         absl::StrFormat("%s: .nv_fatbin at 0x%x: entry of unknown kind 0x%x "
                                         "skipped",
                                         object_, sec_off_ + e, kind)});
  }
  EntryOrNext(e + ehs + size);
}

FatbinLayout ReadFatbinLayout(const ElfFile& elf, RangeSet* read) {
  FatbinLayout out;
  RangeSet ignored;
  if (read == nullptr) read = &ignored;
  std::string problem;
  std::optional<std::vector<Section>> sections = ReadSections(elf, &problem, read);
  if (!problem.empty()) out.problems.push_back(absl::StrCat(elf.name(), ": ", problem));
  if (!sections || sections->empty()) return out;
  out.has_section_headers = true;
  const ByteReader& r = elf.reader();
  const uint16_t strndx16 = elf::ReadEhdr(r, elf.is_64())->shstrndx;  // read above
  if (strndx16 >= sections->size()) {
    out.problems.push_back(absl::StrFormat("%s: e_shstrndx %u names no section (%u sections)",
                                           elf.name(), strndx16, sections->size()));
    return out;
  }
  const Section& strs = (*sections)[strndx16];
  std::optional<ByteReader> names = r.Slice(strs.offset, strs.size);
  if (!names) {
    out.problems.push_back(
        absl::StrFormat("%s: section name table at 0x%x (%u bytes) lies outside the file",
                        elf.name(), strs.offset, strs.size));
    return out;
  }
  read->Add(strs.offset, strs.offset + strs.size);
  std::vector<const Section*> fatbins;
  for (const Section& s : *sections) {
    std::optional<absl::string_view> name = names->CString(s.name);
    if (!name || *name != ".nv_fatbin" || s.type == kShtNobits) continue;
    if (!r.Contains(s.offset, s.size)) {
      out.problems.push_back(absl::StrFormat(
          "%s: .nv_fatbin at 0x%x (%u bytes) lies outside the file", elf.name(), s.offset, s.size));
      continue;
    }
    fatbins.push_back(&s);
  }
  // Each byte range is read once: a linker writes one .nv_fatbin, and section headers that
  // overlap another's bytes (200,000 over one region, in a crafted file) are corrupt input, said
  // in one line; the first section of each overlapping run is still read.
  std::vector<size_t> by_offset(fatbins.size());
  for (size_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [&](size_t a, size_t b) { return fatbins[a]->offset < fatbins[b]->offset; });
  std::vector<bool> skipped(fatbins.size());
  size_t overlapping = 0;
  uint64_t end = 0;
  const Section* holder = nullptr;
  const Section* first_skipped = nullptr;
  const Section* first_holder = nullptr;
  for (size_t i : by_offset) {
    const Section* s = fatbins[i];
    if (holder != nullptr && s->offset < end) {
      skipped[i] = true;
      ++overlapping;
      if (first_skipped == nullptr) std::tie(first_skipped, first_holder) = std::tie(s, holder);
      continue;
    }
    holder = s;
    end = s->offset + s->size;
  }
  if (first_skipped != nullptr) {
    out.problems.push_back(absl::StrFormat(
        "%s: %d .nv_fatbin section headers overlap another's bytes (the first at 0x%x, inside "
        "the one at 0x%x): each range is read once",
        elf.name(), overlapping, first_skipped->offset, first_holder->offset));
  }
  for (size_t i = 0; i < fatbins.size(); ++i) {
    if (!skipped[i]) out.sections.emplace_back(fatbins[i]->offset, fatbins[i]->size);
  }
  return out;
}

DeviceCode ReadDeviceCode(const ElfFile& elf, const std::function<bool(const DeviceImage&)>& stop) {
  const FatbinLayout layout = ReadFatbinLayout(elf);
  std::vector<FatbinWalk> walks;
  for (const auto& [offset, size] : layout.sections) {
    walks.emplace_back(elf.name(), offset, size, elf.reader().big_endian(), stop);
    walks.back().Feed(offset, elf.reader().data().subspan(offset, size));
    if (walks.back().stopped()) break;
  }
  return Assemble(layout, walks, stop);
}

DeviceCode DeviceCodeOf(const StreamedDeviceCode& streamed,
                        const std::function<bool(const DeviceImage&)>& stop) {
  return Assemble(streamed.layout, streamed.walks, stop);
}

std::string ArchName(int arch, ArchVariant variant) {
  return absl::StrCat("sm_", arch,
                      variant == ArchVariant::kArchSpecific ? "a"
                      : variant == ArchVariant::kFamily     ? "f"
                                                            : "");
}

std::string CuobjdumpArchName(const DeviceImage& image) {
  // cuobjdump 13 names a family cubin without its "f" (a family PTX keeps it).
  if (image.kind == DeviceCodeKind::kSass && image.variant == ArchVariant::kFamily)
    return ArchName(image.arch, ArchVariant::kNone);
  return ArchName(image.arch, image.variant);
}

bool RunsOn(const DeviceImage& image, int target) {
  const int major = image.arch / 10, minor = image.arch % 10;
  const int tmajor = target / 10, tminor = target % 10;
  const bool same_family = tmajor == major && tminor >= minor;
  if (image.variant == ArchVariant::kArchSpecific) return target == image.arch;
  if (image.kind == DeviceCodeKind::kSass) return same_family;    // G1, G3
  if (image.variant == ArchVariant::kFamily) return same_family;  // G4
  return target >= image.arch;                                    // G2
}

std::string ImageName(const DeviceImage& image) {
  return absl::StrCat(image.kind == DeviceCodeKind::kPtx ? "compute_" : "sm_", image.arch,
                      image.variant == ArchVariant::kArchSpecific ? "a"
                      : image.variant == ArchVariant::kFamily     ? "f"
                                                                  : "");
}

std::string CudaVersion::ToString() const { return absl::StrCat(major, ".", minor); }

CudaVersion CudaForPtxIsa(int isa_major, int isa_minor) {
  // docs/gpu-model.md G6, from the PTX ISA document's release history: ISA 8.0-8.5 came with
  // CUDA 12.0-12.5, 8.6 with 12.7, 8.7 with 12.8, 8.8 with 12.9; ISA 9.M with CUDA 13.M.
  if (isa_major == 8 && isa_minor >= 6) return {12, isa_minor + 1};
  if (isa_major >= 7) return {isa_major + 4, isa_minor};
  return {isa_major + 4, 0};  // ISA 6.x and older: CUDA 9-10, older than any driver we judge
}

std::optional<CudaVersion> ParseCudaDriver(absl::string_view text) {
  std::vector<int> parts;
  for (absl::string_view p : absl::StrSplit(absl::StripAsciiWhitespace(text), '.')) {
    int n = 0;
    if (!absl::SimpleAtoi(p, &n) || n < 0 || n > 99999) return std::nullopt;
    parts.push_back(n);
  }
  if (parts.empty()) return std::nullopt;
  if (parts[0] < 100) {  // a CUDA version: "12.8", "13"
    if (parts.size() > 3 || parts[0] < 1 || (parts.size() > 1 && parts[1] > 99))
      return std::nullopt;
    return CudaVersion{parts[0], parts.size() > 1 ? parts[1] : 0};
  }
  // docs/gpu-model.md "Drivers": the first Linux driver of each CUDA release (CUDA's release
  // notes, "CUDA Toolkit and Corresponding Driver Versions"), newest first.
  struct Row {
    int major, minor, patch;
    CudaVersion cuda;
  };
  static constexpr Row kDrivers[] = {
      {580, 65, 6, {13, 0}}, {575, 51, 3, {12, 9}},  {570, 26, 0, {12, 8}}, {560, 28, 3, {12, 6}},
      {555, 42, 2, {12, 5}}, {550, 54, 14, {12, 4}}, {545, 23, 6, {12, 3}}, {535, 54, 3, {12, 2}},
      {530, 30, 2, {12, 1}}, {525, 60, 13, {12, 0}}, {520, 61, 5, {11, 8}}, {515, 43, 4, {11, 7}},
      {510, 39, 1, {11, 6}}, {495, 29, 5, {11, 5}},  {470, 42, 1, {11, 4}}, {465, 19, 1, {11, 3}},
      {460, 27, 3, {11, 2}}, {455, 23, 0, {11, 1}},  {450, 36, 6, {11, 0}},
  };
  const int minor = parts.size() > 1 ? parts[1] : 99999,
            patch = parts.size() > 2 ? parts[2] : 99999;
  for (const Row& r : kDrivers) {
    if (std::make_tuple(parts[0], minor, patch) >= std::make_tuple(r.major, r.minor, r.patch))
      return r.cuda;
  }
  return CudaVersion{10, 2};  // older than CUDA 11's first driver: at most CUDA 10.2
}

DeviceVerdict JudgeDeviceCode(const DeviceCode& code, std::optional<int> gpu,
                              std::optional<CudaVersion> driver) {
  DeviceVerdict v;
  auto add = [](std::vector<std::string>* to, const std::string& s) {
    if (std::find(to->begin(), to->end(), s) == to->end()) to->push_back(s);
  };
  for (const DeviceImage& img : code.images) {
    const std::string name = ImageName(img);
    add(&v.carried, name);
    if (!gpu || !RunsOn(img, *gpu)) continue;
    if (img.kind == DeviceCodeKind::kPtx && driver) {  // G6: the driver JIT-compiles PTX
      const CudaVersion needs = CudaForPtxIsa(img.version_major, img.version_minor);
      if (*driver < needs) {
        if (v.too_new.empty() || needs < v.driver_needed) v.driver_needed = needs;
        add(&v.too_new, absl::StrFormat("%s (PTX ISA %d.%d, CUDA %s)", name, img.version_major,
                                        img.version_minor, needs.ToString()));
        continue;
      }
    }
    add(&v.usable, name);
  }
  return v;
}

std::string RebuildHint(int gpu) {
  return absl::StrFormat(
      "rebuild with TORCH_CUDA_ARCH_LIST=\"%d.%d\" (or -gencode arch=compute_%d,code=sm_%d), or "
      "ship PTX of an older architecture (compute_XX) that this GPU can JIT-compile",
      gpu / 10, gpu % 10, gpu, gpu);
}

namespace {

// docs/gpu-model.md "GPU names": compute capabilities from NVIDIA's CUDA GPU list.
constexpr std::pair<const char*, int> kProducts[] = {{"v100", 70},
                                                     {"t4", 75},
                                                     {"rtx 2080", 75},
                                                     {"a100", 80},
                                                     {"a30", 80},
                                                     {"a10", 86},
                                                     {"a40", 86},
                                                     {"rtx 3090", 86},
                                                     {"rtx a6000", 86},
                                                     {"jetson orin", 87},
                                                     {"l4", 89},
                                                     {"l40", 89},
                                                     {"l40s", 89},
                                                     {"rtx 4090", 89},
                                                     {"rtx 6000 ada", 89},
                                                     {"h100", 90},
                                                     {"h200", 90},
                                                     {"gh200", 90},
                                                     {"b200", 100},
                                                     {"gb200", 100},
                                                     {"b300", 103},
                                                     {"gb300", 103},
                                                     {"jetson thor", 110},
                                                     {"rtx 5090", 120},
                                                     {"rtx 5080", 120},
                                                     {"rtx pro 6000 blackwell", 120},
                                                     {"rtx pro 6000", 120},
                                                     {"dgx spark", 121},
                                                     {"gb10", 121}};

// The architectures NVIDIA's compilers have targeted (nvcc --list-gpu-code of CUDA 11 to 13;
// sm_101 became sm_110 in CUDA 13): --gpu sm_12 or sm_999 names no GPU.
constexpr int kArchitectures[] = {30, 32, 35, 37, 50, 52, 53,  60,  61,  62,  70,  72, 75,
                                  80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};

// Words of a product's full name that do not change its compute capability: the vendor, the
// brand, the form factor and memory ("NVIDIA GeForce RTX 4090", "H100 SXM5 80GB", "H100 PCIe").
bool IsDecoration(absl::string_view word) {
  static constexpr const char* kWords[] = {"nvidia", "geforce", "tesla",  "quadro", "sxm",
                                           "sxm2",   "sxm4",    "sxm5",   "pcie",   "nvl",
                                           "hbm3",   "hbm3e",   "nvlink", "mig"};
  for (const char* w : kWords) {
    if (word == w) return true;
  }
  // A memory size: 16gb, 80gb, 141gb.
  return word.size() > 2 && absl::EndsWith(word, "gb") &&
         std::all_of(word.begin(), word.end() - 2, [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool IsKnownArchitecture(int cc) {
  return std::find(std::begin(kArchitectures), std::end(kArchitectures), cc) !=
         std::end(kArchitectures);
}

std::vector<std::pair<std::string, int>> KnownGpuNames() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, cc] : kProducts) out.emplace_back(name, cc);
  return out;
}

std::vector<int> KnownArchitectures() {
  return std::vector<int>(std::begin(kArchitectures), std::end(kArchitectures));
}

std::optional<int> ParseGpu(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  std::vector<std::string> words;
  for (absl::string_view w : absl::StrSplit(lower, absl::ByAnyChar(" -_"), absl::SkipEmpty())) {
    if (!IsDecoration(w)) words.emplace_back(w);
  }
  const std::string name = absl::StrJoin(words, " ");
  for (const auto& [product, cc] : kProducts) {
    if (name == product) return cc;
  }
  absl::string_view v = lower;
  // sm_90, sm90, sm_90a, compute_90, 9.0, 90.
  if (!absl::ConsumePrefix(&v, "sm_") && !absl::ConsumePrefix(&v, "sm") &&
      !absl::ConsumePrefix(&v, "compute_"))
    absl::ConsumePrefix(&v, "compute");
  if (!v.empty() && (v.back() == 'a' || v.back() == 'f')) v.remove_suffix(1);
  int cc = 0;
  if (size_t dot = v.find('.'); dot != absl::string_view::npos) {
    int major = 0, minor = 0;
    if (!absl::SimpleAtoi(v.substr(0, dot), &major) ||
        !absl::SimpleAtoi(v.substr(dot + 1), &minor) || minor < 0 || minor > 9 || major < 1 ||
        major > 99)
      return std::nullopt;
    cc = major * 10 + minor;
  } else if (!absl::SimpleAtoi(v, &cc)) {
    return std::nullopt;
  }
  if (!IsKnownArchitecture(cc)) return std::nullopt;
  return cc;
}

}  // namespace abicheck
