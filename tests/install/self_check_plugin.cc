// A plugin that calls libabicheck: `abicheck self_check_plugin.so libabicheck.so` must say it
// loads.
#include "abicheck/abicheck.h"

extern "C" int plugin_entry(const char* module) {
  absl::StatusOr<abicheck::Report> r = abicheck::Check(module, abicheck::CheckOptions{});
  return r.ok() && r->loads ? 0 : 1;
}
