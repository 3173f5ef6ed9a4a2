// The output options shared by check, diff and symbols.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "lib/elf/fatbin.h"
#include "tools/abicheck/commands.h"

namespace abicheck::cli {

void OutputOptions::AddTo(CLI::App& app, std::vector<std::string> formats) {
  std::string list;
  for (const std::string& f : formats) list += (list.empty() ? "" : ", ") + f;
  app.add_option("--format", format, "report format: " + list)->check(CLI::IsMember(formats));
  app.add_option("-o,--output", output, "write the report to this file instead of stdout");
  app.add_flag("-q,--quiet", quiet, "print no report: the exit code is the answer");
  app.add_option("--color", color, "auto (a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void AddDeviceOptions(CLI::App& app, std::string* gpu, std::string* cuda_driver) {
  app.add_option("--gpu", *gpu,
                 "after loading: can this GPU run the module's device code? sm_120, 12.0, or a "
                 "product name (\"H100\", \"RTX PRO 6000 Blackwell\"; docs/gpu-model.md)");
  app.add_option("--cuda-driver", *cuda_driver,
                 "the CUDA driver: a CUDA version (12.8), a driver version (570.124.06), or "
                 "'host' (the version in the name of the host's libcuda.so.1, never loaded)");
}

bool DeviceOptionsValid(const std::string& prog, const std::string& gpu,
                        const std::string& cuda_driver) {
  if (!gpu.empty() && !ParseGpu(gpu)) {
    std::fprintf(stderr,
                 "%s: --gpu: unknown GPU '%s' (give sm_XY, X.Y, or a name from "
                 "docs/gpu-model.md)\n",
                 prog.c_str(), gpu.c_str());
    return false;
  }
  if (!cuda_driver.empty() && cuda_driver != "host" && !ParseCudaDriver(cuda_driver)) {
    std::fprintf(stderr,
                 "%s: --cuda-driver: '%s' is neither a CUDA version (12.8), a driver version "
                 "(570.124.06) nor 'host'\n",
                 prog.c_str(), cuda_driver.c_str());
    return false;
  }
  return true;
}

bool Emit(const std::string& prog, const std::string& text, const OutputOptions& out) {
  if (out.quiet) return true;
  if (out.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  FILE* f = std::fopen(out.output.c_str(), "wb");
  if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "%s: %s: %s\n", prog.c_str(), out.output.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace abicheck::cli
