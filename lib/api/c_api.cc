// include/abicheck/abicheck_c.h over the C++ API: handles own their C++ values, reports leave as
// JSON in malloc'd strings, errors as the command line's exit code and message. No exception or
// C++ type crosses the boundary.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "abicheck/abicheck.h"
#include "abicheck/abicheck_c.h"

struct abicheck_build {
  abicheck::Build build;
};

struct abicheck_error {
  int code = ABICHECK_BAD_INPUT;
  std::string message;
};

namespace {

void SetError(abicheck_error** error, int code, std::string message) {
  if (error == nullptr) return;
  *error = new (std::nothrow) abicheck_error{code, std::move(message)};
}

void SetError(abicheck_error** error, const absl::Status& status) {
  SetError(error, abicheck::ExitCodeForStatus(status), std::string(status.message()));
}

char* CopyOut(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

}  // namespace

extern "C" {

int abicheck_c_api_version(void) { return ABICHECK_C_API_VERSION; }

const char* abicheck_version(void) { return abicheck::Version(); }

abicheck_build* abicheck_build_open(const char* path, abicheck_error** error) {
  if (error != nullptr) *error = nullptr;
  if (path == nullptr) {
    SetError(error, ABICHECK_USAGE, "abicheck_build_open: no path");
    return nullptr;
  }
  try {
    absl::StatusOr<abicheck::Build> b = abicheck::OpenBuild(path);
    if (!b.ok()) {
      SetError(error, b.status());
      return nullptr;
    }
    return new abicheck_build{*std::move(b)};
  } catch (const std::exception& e) {  // std::bad_alloc: the input is too large for memory
    SetError(error, ABICHECK_BAD_INPUT, std::string(path) + ": " + e.what());
    return nullptr;
  }
}

void abicheck_build_close(abicheck_build* build) { delete build; }

int abicheck_check(const abicheck_build* build, const char* module, unsigned flags,
                   char** report_json, abicheck_error** error) {
  if (error != nullptr) *error = nullptr;
  if (report_json != nullptr) *report_json = nullptr;
  if (module == nullptr) {
    SetError(error, ABICHECK_USAGE, "abicheck_check: no module");
    return ABICHECK_USAGE;
  }
  try {
    abicheck::CheckOptions options;
    options.diagnose = (flags & ABICHECK_NO_DIAGNOSE) == 0;
    options.use_host = (flags & ABICHECK_NO_HOST) == 0;
    absl::StatusOr<abicheck::Report> r = build != nullptr
                                             ? abicheck::Check(module, build->build, options)
                                             : abicheck::Check(module, options);
    if (!r.ok()) {
      SetError(error, r.status());
      return abicheck::ExitCodeForStatus(r.status());
    }
    if (report_json != nullptr)
      *report_json = CopyOut(*abicheck::Render(*r, {abicheck::Format::kJson}));
    switch (r->verdict()) {
      case abicheck::Verdict::kLoads:
        return ABICHECK_LOADS;
      case abicheck::Verdict::kUnknown:
        return ABICHECK_UNKNOWN;
      case abicheck::Verdict::kFails:
        break;
    }
    return ABICHECK_WILL_NOT_LOAD;
  } catch (const std::exception& e) {
    SetError(error, ABICHECK_BAD_INPUT, std::string(module) + ": " + e.what());
    return ABICHECK_BAD_INPUT;
  }
}

void abicheck_string_free(char* s) { std::free(s); }

int abicheck_error_code(const abicheck_error* error) {
  return error != nullptr ? error->code : ABICHECK_LOADS;
}

const char* abicheck_error_message(const abicheck_error* error) {
  return error != nullptr ? error->message.c_str() : "";
}

void abicheck_error_free(abicheck_error* error) { delete error; }

}  // extern "C"
