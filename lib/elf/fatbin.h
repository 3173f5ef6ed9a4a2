// CUDA device code inside a shared object: the fat binaries of its .nv_fatbin section — each
// entry a SASS cubin or PTX for one architecture — and whether a GPU can run any of them
// (docs/gpu-model.md). Read from the section headers, the one place nvcc records them; every
// offset and size is bounds-checked, and a bad entry ends the walk with a problem line while the
// entries before it are kept. Payloads are never decompressed: the entry headers say all we need.
#ifndef ABICHECK_LIB_ELF_FATBIN_H_
#define ABICHECK_LIB_ELF_FATBIN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/elf/elf_file.h"
#include "lib/io/blob.h"
#include "lib/io/byte_reader.h"

namespace abicheck {

enum class DeviceCodeKind { kSass, kPtx };
// sm_90 / sm_90a (architecture-specific: that GPU only) / sm_100f (family: that major version).
enum class ArchVariant { kNone, kArchSpecific, kFamily };
enum class DeviceCompression { kNone, kLz4, kZstd };

struct DeviceImage {
  DeviceCodeKind kind = DeviceCodeKind::kSass;
  int arch = 0;  // compute capability x 10: 90 for sm_90, 120 for sm_120
  ArchVariant variant = ArchVariant::kNone;
  // PTX: the PTX ISA version (9.0 from CUDA 13.0); SASS: the cubin's code version ([1,8]).
  int version_major = 0, version_minor = 0;
  DeviceCompression compression = DeviceCompression::kNone;
  uint64_t offset = 0;  // of the entry header, in the file
  uint64_t size = 0;    // of the payload as stored
};

struct DeviceCode {
  bool has_section_headers = false;
  std::vector<DeviceImage> images;  // in the order of the file, as cuobjdump lists them
  // What makes the device code unreadable (a corrupt container, section headers outside the
  // file): "FILE: .nv_fatbin at 0x..: entry 3 ...", one line each. Corrupt input.
  std::vector<std::string> problems;
  // What was passed over and is not corrupt (an entry of a kind nvcc may add later).
  std::vector<std::string> notes;
  bool stopped = false;  // ReadDeviceCode's `stop` ended the walk early
};

// What is read before the fat binaries: the section headers and their names, the .nv_fatbin
// sections to walk (offset, size; in header order, each byte range once) and what is wrong there.
struct FatbinLayout {
  bool has_section_headers = false;
  std::vector<std::string> problems;
  std::vector<std::pair<uint64_t, uint64_t>> sections;
};
// `read`, when given, gets the byte ranges looked at: an image of an archive member that holds
// them all reads exactly as the file would.
FatbinLayout ReadFatbinLayout(const ElfFile& elf, RangeSet* read = nullptr);

// The walk of one .nv_fatbin section (docs/gpu-model.md "The fat binary"), fed the file's bytes in
// ascending order: the whole section at once from a mapped file, or chunk by chunk as an archive
// member inflates, which then keeps none of them. It looks at 4 bytes in 8 of padding, 16 of a
// container header and 48 of an entry header, never at a payload; what it found is replayed by
// ReadDeviceCode and DeviceCodeOf.
class FatbinWalk {
 public:
  // `object` names the file in messages; `stop` as ReadDeviceCode's.
  FatbinWalk(std::string object, uint64_t offset, uint64_t size, bool big_endian,
             std::function<bool(const DeviceImage&)> stop = nullptr);
  // Bytes [at, at + bytes.size()) of the file. Calls come in ascending order and may skip what
  // the walk does not need; bytes it needed that a call skipped end it with a problem.
  void Feed(uint64_t at, absl::Span<const uint8_t> bytes);
  bool done() const { return done_; }
  bool stopped() const { return stopped_; }
  // The next byte of the file the walk will look at (once done: meaningless).
  uint64_t next() const { return sec_off_ + pos_ + have_; }
  uint64_t end() const { return sec_off_ + sec_size_; }
  const std::string& object() const { return object_; }

  struct Finding {
    enum Kind { kImage, kNote, kProblem } kind;
    DeviceImage image;  // kImage
    std::string text;   // kNote, kProblem (the last finding: it ended the walk)
  };
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  enum class State { kMagic, kContainer, kEntry };
  void SeekMagic(uint64_t at);
  void EntryOrNext(uint64_t e);
  void Step(const ByteReader& h);
  void Problem(uint64_t at, const std::string& what);

  std::string object_;
  uint64_t sec_off_, sec_size_;
  bool big_endian_;
  std::function<bool(const DeviceImage&)> stop_;
  State state_ = State::kMagic;
  uint64_t pos_ = 0;  // in the section: where the bytes the walk needs next begin
  size_t need_ = 0;   // how many
  size_t have_ = 0;   // of them, in buf_
  uint64_t end_ = 0;  // in the section: the end of the current container
  uint8_t buf_[48] = {};
  size_t images_ = 0;
  bool done_ = false, stopped_ = false;
  std::vector<Finding> findings_;
};

// An archive member's device code, walked as it inflated (lib/inputs: a member too large to keep
// whole), judged later by DeviceCodeOf as ReadDeviceCode judges a file.
struct StreamedDeviceCode {
  FatbinLayout layout;
  std::vector<FatbinWalk> walks;  // one per layout section, fed to their ends
};
DeviceCode DeviceCodeOf(const StreamedDeviceCode& streamed,
                        const std::function<bool(const DeviceImage&)>& stop = nullptr);

// Reads the device code of `elf`. Not an error: no section headers (then `has_section_headers` is
// false: the device code cannot be found), no .nv_fatbin (no device code). Malformed fat binaries
// are problems of the result, never a failed call.
// With `stop`: the walk ends at the first image for which it returns true (`stopped` is then
// set, and `images` ends with that one) — a verdict needs one usable image, not the listing.
DeviceCode ReadDeviceCode(const ElfFile& elf,
                          const std::function<bool(const DeviceImage&)>& stop = nullptr);

// "sm_90", "sm_90a", "sm_100f" — and as cuobjdump names the entry ("sm_100" for a family cubin).
std::string ArchName(int arch, ArchVariant variant);
std::string CuobjdumpArchName(const DeviceImage& image);

// docs/gpu-model.md G1-G4: can a GPU of compute capability `target` (x 10) run this image? SASS
// on the same major version at an equal or higher minor ('a': that architecture only; 'f': its
// family, the same major version); PTX JIT-compiled on any later GPU ('a': that architecture
// only, 'f': its family).
bool RunsOn(const DeviceImage& image, int target);

// How cuobjdump's options and nvcc's -gencode name an image: "sm_90a" (SASS), "compute_120f" (PTX).
std::string ImageName(const DeviceImage& image);

// A CUDA release (of a toolkit, or the newest a driver supports): 12.8 is {12, 8}.
struct CudaVersion {
  int major = 0, minor = 0;
  friend bool operator<(CudaVersion a, CudaVersion b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  }
  std::string ToString() const;  // "12.8"
};

// docs/gpu-model.md G6: the first CUDA release whose driver JIT-compiles PTX of ISA
// `isa_major.isa_minor` (PTX ISA 8.7 -> CUDA 12.8). ISAs newer than the table follow its last
// rule (ISA N.M -> CUDA N+4.M).
CudaVersion CudaForPtxIsa(int isa_major, int isa_minor);

// A driver as the user names it: a CUDA version ("12.8") or a Linux driver version
// ("570.124.06", or its branch "570"), which is mapped to the CUDA release it supports by the
// table of docs/gpu-model.md "Drivers". nullopt when it is neither.
std::optional<CudaVersion> ParseCudaDriver(absl::string_view text);

// docs/gpu-model.md G5-G7: what a GPU (`gpu`, compute capability x 10) would run of `code` with a
// driver of CUDA `driver` (nullopt: any). The CUDA runtime takes a SASS image that runs on the
// GPU, else JIT-compiles a PTX image it can; PTX newer than the driver cannot be compiled.
struct DeviceVerdict {
  std::vector<std::string> carried;  // ImageName of every image, distinct, in file order
  std::vector<std::string> usable;   // those the GPU can run with this driver
  // PTX the GPU could JIT but the driver is too old for: "compute_120 (PTX ISA 9.0, CUDA 13.0)".
  std::vector<std::string> too_new;
  CudaVersion driver_needed;  // with too_new: the oldest driver that would compile one of them
};
DeviceVerdict JudgeDeviceCode(const DeviceCode& code, std::optional<int> gpu,
                              std::optional<CudaVersion> driver);

// What to rebuild a module with so that `gpu` can run it (G5).
std::string RebuildHint(int gpu);

// "sm_120", "sm120", "sm_120a", "compute_120", "12.0", "120", or a product name of the documented
// table, case-insensitive, its vendor, brand, form factor and memory words ignored ("H100",
// "NVIDIA GeForce RTX 4090", "H100 SXM5 80GB") -> compute capability x 10; nullopt when unknown,
// and for an architecture no GPU has (sm_12, sm_999: docs/gpu-model.md "GPU names").
std::optional<int> ParseGpu(absl::string_view text);
// Whether some GPU has compute capability cc/10 (sm_cc): the list abicheck knows.
bool IsKnownArchitecture(int cc);
// The product names ParseGpu knows, with their compute capabilities (gpu --list).
std::vector<std::pair<std::string, int>> KnownGpuNames();
// The architectures ParseGpu accepts, ascending.
std::vector<int> KnownArchitectures();

}  // namespace abicheck

#endif  // ABICHECK_LIB_ELF_FATBIN_H_
