// Deadlines::Get: the defaults and the environment's overrides, read once.
#include "lib/io/deadlines.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace abicheck {
namespace {

int EnvSeconds(const char* name, int fallback, int hi) {
  const char* v = std::getenv(name);
  int n = 0;
  if (v == nullptr || !absl::SimpleAtoi(v, &n)) return fallback;
  return std::clamp(n, 1, hi);
}

}  // namespace

const Deadlines& Deadlines::Get() {
  static const Deadlines d = [] {
    Deadlines out;
    out.idle_seconds = EnvSeconds("ABICHECK_HTTP_TIMEOUT", out.idle_seconds, 3600);
    out.connect_seconds = out.idle_seconds;
    out.request_seconds = EnvSeconds("ABICHECK_HTTP_REQUEST_TIMEOUT", out.request_seconds, 86400);
    out.member_seconds = EnvSeconds("ABICHECK_HTTP_MEMBER_TIMEOUT", out.member_seconds, 86400);
    out.pip_seconds = EnvSeconds("ABICHECK_PIP_TIMEOUT", out.pip_seconds, 86400);
    return out;
  }();
  return d;
}

}  // namespace abicheck
