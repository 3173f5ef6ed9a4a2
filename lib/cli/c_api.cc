// include/abicheck/abicheck_c.h over the C++ API and the command table: handles own their C++
// values, reports leave as JSON in malloc'd strings, errors as the command line's exit code and
// message. No exception or C++ type crosses the boundary.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "abicheck/abicheck.h"
#include "abicheck/abicheck_c.h"
#include "lib/cli/commands.h"
#include "lib/io/mapped_file.h"
#include "nlohmann/json.hpp"

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

constexpr unsigned kKnownFlags = ABICHECK_NO_DIAGNOSE | ABICHECK_NO_HOST;

// A stream the command writes into, handed to the caller as a malloc'd string (open_memstream's
// buffer is malloc'd: abicheck_string_free frees it) or discarded.
class Capture {
 public:
  explicit Capture(char** to) : to_(to) {
    if (to_ != nullptr) *to_ = nullptr;
    file_ = ::open_memstream(&buf_, &size_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  ~Capture() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(buf_);
  }
  FILE* file() const { return file_; }
  // Closes the stream; false when it could not hold what was written (out of memory).
  bool Finish() {
    if (file_ == nullptr) return false;
    const bool had_error = std::ferror(file_) != 0;
    const bool ok = std::fclose(file_) == 0 && !had_error;  // closed either way
    file_ = nullptr;
    if (ok && to_ != nullptr) *to_ = std::exchange(buf_, nullptr);
    return ok;
  }

 private:
  char** to_;
  char* buf_ = nullptr;
  size_t size_ = 0;
  FILE* file_ = nullptr;
};

int RunCaptured(std::vector<std::string> args, char** out, char** err) {
  Capture o(out), e(err);
  if (o.file() == nullptr || e.file() == nullptr) return ABICHECK_BAD_INPUT;  // no memory
  int rc;
  try {
    rc = abicheck::cli::Main({"abicheck", o.file(), e.file()}, std::move(args));
  } catch (const std::exception& ex) {  // std::bad_alloc: an input too large for memory
    std::fprintf(e.file(), "abicheck: %s\n", ex.what());
    rc = ABICHECK_BAD_INPUT;
  }
  const bool out_ok = o.Finish();
  if (!out_ok) std::fputs("abicheck: out of memory for the output\n", e.file());
  e.Finish();
  return out_ok ? rc : ABICHECK_BAD_INPUT;
}

// The request of abicheck_run_json as the command line's words (include/abicheck/abicheck_c.h);
// a usage error's message in *error.
bool RequestArgs(const char* request, std::vector<std::string>* args, std::string* error) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    *error = "abicheck_run_json: the request is not a JSON object";
    return false;
  }
  std::string command = "check";
  const nlohmann::json* positional = nullptr;
  const nlohmann::json* options = nullptr;
  for (const auto& [key, value] : j.items()) {
    if (key == "command" && value.is_string()) {
      command = value.get<std::string>();
    } else if (key == "args" && value.is_array()) {
      positional = &value;
    } else if (key == "options" && value.is_object()) {
      options = &value;
    } else {
      *error = "abicheck_run_json: unknown or mistyped key \"" + key +
               "\" (command: a string, args: an array, options: an object)";
      return false;
    }
  }
  args->push_back(command);
  bool has_format = false;
  auto scalar = [](const nlohmann::json& v, std::string* s) {
    if (v.is_string())
      *s = v.get<std::string>();
    else if (v.is_number_unsigned())
      *s = std::to_string(v.get<uint64_t>());
    else if (v.is_number_integer())
      *s = std::to_string(v.get<int64_t>());
    else
      return false;
    return true;
  };
  if (options != nullptr) {
    for (const auto& [name, value] : options->items()) {
      const std::string flag = "--" + name;
      has_format = has_format || name == "format";
      std::string s;
      if (value.is_null() || (value.is_boolean() && !value.get<bool>())) continue;
      if (value.is_boolean()) {
        args->push_back(flag);
      } else if (scalar(value, &s)) {
        args->insert(args->end(), {flag, s});
      } else if (value.is_array()) {
        for (const nlohmann::json& v : value) {
          if (!scalar(v, &s)) {
            *error = "abicheck_run_json: option \"" + name + "\": an array of strings or numbers";
            return false;
          }
          args->insert(args->end(), {flag, s});
        }
      } else {
        *error = "abicheck_run_json: option \"" + name +
                 "\": give true, a string, a number or an array of them";
        return false;
      }
    }
  }
  const bool formats = command == "check" || command == "env" || command == "gpu" ||
                       command == "diff" || command == "symbols";
  if (formats && !has_format) args->insert(args->end(), {"--format", "json"});
  if (positional != nullptr) {
    if (command != "cache") args->push_back("--");  // cache's words are its subcommands
    for (const nlohmann::json& v : *positional) {
      if (!v.is_string()) {
        *error = "abicheck_run_json: \"args\" holds a value that is not a string";
        return false;
      }
      args->push_back(v.get<std::string>());
    }
  }
  return true;
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
  if ((flags & ~kKnownFlags) != 0) {
    SetError(error, ABICHECK_USAGE,
             "abicheck_check: unknown flag bits " + std::to_string(flags & ~kKnownFlags) +
                 " (a newer caller's flags are not ignored: this library is " +
                 abicheck::Version() + ")");
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
    if (report_json != nullptr) {
      absl::StatusOr<std::string> json = abicheck::Render(*r, {abicheck::Format::kJson});
      if (!json.ok()) {
        SetError(error, json.status());
        return abicheck::ExitCodeForStatus(json.status());
      }
      *report_json = CopyOut(*json);
      if (*report_json == nullptr) {  // a verdict is never returned without its report
        SetError(error, ABICHECK_BAD_INPUT, std::string(module) + ": out of memory for the report");
        return ABICHECK_BAD_INPUT;
      }
    }
    switch (r->verdict()) {
      case abicheck::Verdict::kLoads:
        return ABICHECK_LOADS;
      case abicheck::Verdict::kUnknown:
      case abicheck::Verdict::kNotInstalled:  // (an environment's cell, never one check's)
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

int abicheck_run(int nargs, const char* const* args, char** out, char** err) {
  std::vector<std::string> words;
  for (int i = 0; i < nargs; ++i) {
    if (args == nullptr || args[i] == nullptr) {
      Capture e(err);
      if (e.file() != nullptr) std::fputs("abicheck_run: a NULL argument\n", e.file());
      e.Finish();
      if (out != nullptr) *out = nullptr;
      return ABICHECK_USAGE;
    }
    words.emplace_back(args[i]);
  }
  return RunCaptured(std::move(words), out, err);
}

int abicheck_run_json(const char* request, char** out, char** err) {
  std::vector<std::string> words;
  std::string error;
  bool ok = false;
  try {
    ok = request != nullptr ? RequestArgs(request, &words, &error)
                            : (error = "abicheck_run_json: no request", false);
  } catch (const std::exception& e) {  // nlohmann's type errors, std::bad_alloc
    error = std::string("abicheck_run_json: ") + e.what();
  }
  if (!ok) {
    if (out != nullptr) *out = nullptr;
    Capture e(err);
    if (e.file() != nullptr) std::fprintf(e.file(), "%s\n", error.c_str());
    e.Finish();
    return ABICHECK_USAGE;
  }
  return RunCaptured(std::move(words), out, err);
}

void abicheck_guard_sigbus(void) { abicheck::ExitOnShrunkenInput("abicheck"); }

int abicheck_error_code(const abicheck_error* error) {
  // No error object is no verdict: never ABICHECK_LOADS (0), which a caller could take for one
  // (issue 37 item 20).
  return error != nullptr ? error->code : ABICHECK_USAGE;
}

const char* abicheck_error_message(const abicheck_error* error) {
  return error != nullptr ? error->message.c_str() : "";
}

void abicheck_error_free(abicheck_error* error) { delete error; }

}  // extern "C"
