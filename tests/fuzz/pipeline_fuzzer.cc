// Fuzzes the whole check: the input is both the module and its one provider (so references,
// versions and lookups meet hostile tables on both sides), with every renderer run on the result;
// an odd-sized input's module has its device code judged too.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "abicheck/abicheck.h"
#include "lib/api/check_internal.h"
#include "lib/io/blob.h"
#include "lib/report/render.h"

namespace {

class BytesBlob final : public abicheck::Blob {
 public:
  BytesBlob(const uint8_t* d, size_t n) : bytes_(d, d + n) {}
  absl::Span<const uint8_t> bytes() const override { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Two objects from one input: split at a fixed point so each half can be a valid ELF.
  const size_t half = size / 2;
  auto module = std::make_shared<BytesBlob>(data, half);
  auto provider = std::make_shared<BytesBlob>(data + half, size - half);
  abicheck::InputFile m{"mod.so", "/nonexistent/mod.so", module, nullptr};
  abicheck::InputFile p{"libp.so", "/nonexistent/libp.so", provider, nullptr};
  abicheck::CheckOptions options;
  options.use_host = false;  // never open host files from a fuzzer
  // An input of odd size also judges the module's device code (its section headers and
  // .nv_fatbin: docs/gpu-model.md), as `check --gpu` does.
  if (size % 2 == 1) options.gpu = "sm_90";
  absl::StatusOr<abicheck::Report> r = abicheck::CheckObjects(m, {p}, {}, nullptr, options);
  if (r.ok()) {
    (void)abicheck::RenderText(*r, true);
    (void)abicheck::RenderJson(*r);
  }
  return 0;
}
