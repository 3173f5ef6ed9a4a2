// The smallest use of libabicheck: will MODULE load against PROVIDERs (files, torch/lib
// directories or wheels)? Prints the report and exits like the abicheck tool (0, 1, 3).
//   check_module_example MODULE PROVIDER...
#include <cstdio>

#include "abicheck/abicheck.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODULE PROVIDER...\n", argv[0]);
    return abicheck::kExitUsage;
  }
  abicheck::CheckOptions options;
  for (int i = 2; i < argc; ++i) options.providers.push_back(argv[i]);
  absl::StatusOr<abicheck::Report> report = abicheck::Check(argv[1], options);
  if (!report.ok()) {
    std::fprintf(stderr, "%s\n", std::string(report.status().message()).c_str());
    return abicheck::ExitCodeForStatus(report.status());
  }
  std::fputs(abicheck::Render(*report)->c_str(), stdout);  // text, no colors
  for (const abicheck::Problem& p : report->problems) {
    // Every problem carries its kind, the exact loader message and the mangled symbol.
    if (p.first)
      std::printf("first error: %s (%s)\n", p.message.c_str(), abicheck::ProblemKindName(p.kind));
  }
  return report->loads ? abicheck::kExitLoads : abicheck::kExitWillNotLoad;
}
