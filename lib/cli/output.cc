// The output options shared by check, diff and symbols.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/cli/commands.h"
#include "lib/elf/fatbin.h"
#include "lib/io/output_file.h"
#include "lib/report/render.h"
#include "lib/report/text_util.h"

namespace abicheck::cli {

void OutputOptions::AddTo(CLI::App& app, const std::vector<std::string>& formats) {
  std::string list;
  for (const std::string& f : formats) list += (list.empty() ? "" : ", ") + f;
  app.add_option("--format", format, "report format: " + list)->check(CLI::IsMember(formats));
  app.add_option("-o,--output", output, "write the report to this file instead of stdout");
  app.add_flag("-q,--quiet", quiet,
               "print no report on stdout: the exit code is the answer (-o still writes it)");
  app.add_option("--color", color, "auto (a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void ReadOptions::AddTo(CLI::App& app) {
  app.add_flag("--fast", fast,
               "read wheel members only where their loader tables are (a large member's end is "
               "decoded from the end of its deflate stream), without checking their CRC-32 (the "
               "report's notes say so)");
  app.add_flag("--verify", verify,
               "read wheels given as URLs (and pip: builds) whole and check every shared "
               "object's CRC-32; by default only the bytes the loader needs are fetched, as --fast "
               "reads a file (the notes say so); it overrides --fast");
}

void AddDetailOptions(CLI::App& app, bool* all, bool* summary) {
  app.add_flag("--all", *all,
               "list every problem of a cause (by default a cause shows three and how many more)");
  app.add_flag("--summary", *summary,
               "text, with --against (check) or for env: the table, the recommendation and one "
               "line per failing object (its first error) instead of every failing object's "
               "report");
}

void AddDeviceOptions(CLI::App& app, std::string* gpu, std::string* cuda_driver) {
  app.add_option("--gpu", *gpu,
                 "after loading: can this GPU run the module's device code? sm_120, 12.0, or a "
                 "product name (\"H100\", \"RTX PRO 6000 Blackwell\"; docs/gpu-model.md)");
  app.add_option("--cuda-driver", *cuda_driver,
                 "the CUDA driver: a CUDA version (12.8), a driver version (570.124.06), or "
                 "'host' (the version in the name of the host's libcuda.so.1, never loaded)");
}

void AddIndexOptions(CLI::App& app, CheckOptions* options, InputLimits* limits) {
  app.add_option("--find-links", options->find_links,
                 "a directory of wheels where a wheel build's pinned dependencies (its "
                 "Requires-Dist: nvidia-*, cuda-toolkit, ...) are looked for, besides the "
                 "wheel's own directory; they are laid out as pip installs them; also given to "
                 "pip for pip: inputs (repeatable)");
  app.add_option_function<std::vector<std::string>>(
      "--index-url",
      [options](const std::vector<std::string>& urls) {
        for (const std::string& u : urls)
          options->pip_index_args.insert(options->pip_index_args.end(), {"--index-url", u});
      },
      "given to pip for pip:REQ inputs (a module, or a build with --against: "
      "pip:torch==2.10.0, 'pip:torch>=2.8,<2.13'), which are read by HTTP range requests");
  app.add_option_function<std::vector<std::string>>(
      "--extra-index-url",
      [options](const std::vector<std::string>& urls) {
        for (const std::string& u : urls)
          options->pip_index_args.insert(options->pip_index_args.end(), {"--extra-index-url", u});
      },
      "given to pip for pip:REQ inputs (repeatable)");
  app.add_flag_callback(
      "--no-index", [options] { options->pip_index_args.push_back("--no-index"); },
      "given to pip for pip:REQ inputs: no index, only --find-links");
  app.add_option("--python-version", options->pip_python_version,
                 "the Python the pip:REQ wheels are for (X.Y; default: pip's own interpreter's, "
                 "or the environment's with env)");
  app.add_flag("--offline", limits->offline,
               "read nothing from the network and run no pip: pip: inputs and wheels given as "
               "URLs come from abicheck's cache ($XDG_CACHE_HOME/abicheck, filled by earlier "
               "runs; `abicheck cache list`), else exit 3");
}

void AddLoaderOptions(CLI::App& app, CheckOptions* options, bool* ignore_env) {
  app.add_option("--sysroot", options->sysroot,
                 "search the host directories and ld.so.cache under this root")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--ignore-env", *ignore_env,
               "do not search LD_LIBRARY_PATH from the environment (searched by default, after -L, "
               "as the loader would)");
  app.add_option("--glibc", options->glibc,
                 "the glibc release whose loader is modelled where releases differ (2.41 and later "
                 "refuse objects that need an executable stack); default: this host's")
      ->check(CLI::Validator(
          [](std::string& v) {
            int a, b;
            char end;
            return std::sscanf(v.c_str(), "%d.%d%c", &a, &b, &end) == 2
                       ? std::string()
                       : std::string("give a release such as 2.36 or 2.41");
          },
          "MAJOR.MINOR"));
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<int> Parse(const Invocation& io, CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector's words from its back
  // An option takes one value per occurrence (--against B --against C): `check --against .venv
  // a.so b.so`, the pre-commit hook's form, took a.so and b.so as builds (issue 55 item 7).
  for (CLI::Option* o : app.get_options()) {
    if (!o->get_positional()) o->allow_extra_args(false);
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return ParseErrorExit(io, app, e);
  }
  return std::nullopt;
}

int ParseErrorExit(const Invocation& io, const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) {  // --help: CLI11 prints it on a stream, written to io.out
    std::ostringstream out, err;
    const int rc = app.exit(e, out, err);
    std::fputs(out.str().c_str(), io.out);
    std::fputs(err.str().c_str(), io.err);
    return rc;
  }
  // A mistyped option (--agains): the nearest one the command has, as a mistyped command gets.
  std::string hint;
  for (std::string word : app.remaining()) {
    if (!word.starts_with("--") || !hint.empty()) continue;
    word = word.substr(0, word.find('='));
    size_t best = 3;
    for (const CLI::Option* o : app.get_options()) {
      for (const std::string& name : o->get_lnames()) {
        if (const size_t d = EditDistance(word, "--" + name); d > 0 && d < best) {
          best = d;
          hint = absl::StrCat("; did you mean --", name, "?");
        }
      }
    }
  }
  std::fprintf(io.err, "%s: %s%s\nRun '%s --help' for more information.\n", io.prog.c_str(),
               e.what(), hint.c_str(), app.get_name().c_str());
  return kExitUsage;
}

void AddEnvironmentLibraryPath(bool ignore, CheckOptions* options) {
  const char* env = std::getenv("LD_LIBRARY_PATH");
  if (ignore || env == nullptr || *env == '\0') return;
  // The loader splits on ':' and ';' (_dl_init_paths: LD_LIBRARY_PATH's separators).
  for (absl::string_view part : absl::StrSplit(env, absl::ByAnyChar(":;")))
    options->library_path.emplace_back(part);
  options->notes.push_back(
      absl::StrCat("LD_LIBRARY_PATH from the environment is searched, as the "
                   "loader would search it: ",
                   env, " (--ignore-env leaves it out)"));
}

std::string UnknownGpuMessage(const std::string& gpu) {
  return absl::StrCat("unknown GPU '", Printable(gpu),
                      "' (give an architecture, sm_90 or 9.0, or a product name such as H100; "
                      "`abicheck gpu --list` lists them)");
}

bool DeviceOptionsValid(const Invocation& io, const std::string& gpu,
                        const std::string& cuda_driver) {
  if (!gpu.empty() && !ParseGpu(gpu)) {
    std::fprintf(io.err, "%s: --gpu: %s\n", io.prog.c_str(), UnknownGpuMessage(gpu).c_str());
    return false;
  }
  if (!cuda_driver.empty() && cuda_driver != "host" && !ParseCudaDriver(cuda_driver)) {
    std::fprintf(io.err,
                 "%s: --cuda-driver: '%s' is neither a CUDA version (12.8), a driver version "
                 "(570.124.06) nor 'host'\n",
                 io.prog.c_str(), Printable(cuda_driver).c_str());
    return false;
  }
  return true;
}

bool OutputIsAnInput(const Invocation& io, const std::string& output,
                     const std::vector<std::string>& inputs) {
  struct stat out_st;
  if (output.empty() || ::stat(output.c_str(), &out_st) != 0) return false;  // a new file
  for (const std::string& in : inputs) {
    struct stat in_st;
    if (::stat(in.c_str(), &in_st) != 0) continue;
    if (in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
      std::fprintf(io.err, "%s: -o %s is an input (%s): refusing to overwrite it\n",
                   io.prog.c_str(), Printable(output).c_str(), Printable(in).c_str());
      return true;
    }
  }
  return false;
}

void AddLimitOptions(CLI::App& app, InputLimits* limits) {
  app.add_option("--max-member-size", limits->max_member_bytes,
                 "bytes one archive member may inflate to (docs/limits.md)");
  app.add_option("--max-total-size", limits->max_total_inflated,
                 "bytes all shared objects of one archive may inflate to");
  app.add_option("--max-members", limits->max_members, "entries one archive may hold");
  app.add_option("--max-files", limits->max_files, "files read under one directory");
  app.add_option("--max-depth", limits->max_depth, "directory nesting followed");
}

void PrintError(const Invocation& io, const absl::Status& status) {
  std::fprintf(io.err, "%s: %s\n", io.prog.c_str(), Printable(status.message()).c_str());
}

RenderOptions OutputOptions::render(bool all) const {
  RenderOptions r;
  r.format = format == "json"    ? Format::kJson
             : format == "sarif" ? Format::kSarif
             : format == "junit" ? Format::kJunit
                                 : Format::kText;
  r.color = color_on();
  r.all = all;
  return r;
}

int FailWith(const Invocation& io, const absl::Status& status, const OutputOptions& out) {
  PrintError(io, status);
  // A tool reading a machine format gets a document that says what failed, where the report
  // would have gone: -o, else stdout (issue 36: JSON wrote nothing).
  const Format format = out.render().format;
  if (format != Format::kText) {
    const std::string doc = RenderError(absl::StrCat(io.prog, ": ", status.message()), format);
    if (!out.output.empty()) {
      if (absl::Status s = WriteFileAtomically(out.output, doc); !s.ok()) PrintError(io, s);
    } else if (!out.quiet) {
      std::fwrite(doc.data(), 1, doc.size(), io.out);
    }
  }
  return ExitCodeForStatus(status);
}

bool Emit(const Invocation& io, const std::string& text, const OutputOptions& out) {
  // -q silences stdout, not -o: `-q -o report.sarif` writes the report and exits with the verdict.
  if (out.quiet && out.output.empty()) return true;
  if (out.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), io.out);
    return true;
  }
  if (absl::Status s = WriteFileAtomically(out.output, text); !s.ok()) {
    PrintError(io, s);
    return false;
  }
  return true;
}

namespace {

// --summary's text for a matrix and an environment (lib/report's renderers); the rest as Render.
template <typename Result>
absl::StatusOr<std::string> RenderFor(const Result& result, const OutputOptions& out, bool all) {
  return Render(result, out.render(all));
}
template <>
absl::StatusOr<std::string> RenderFor(const Matrix& m, const OutputOptions& out, bool all) {
  if (out.summary && out.format == "text") return RenderMatrixText(m, out.color_on(), all, true);
  return Render(m, out.render(all));
}
template <>
absl::StatusOr<std::string> RenderFor(const EnvironmentReport& env, const OutputOptions& out,
                                      bool all) {
  if (out.summary && out.format == "text")
    return RenderEnvironmentText(env, out.color_on(), all, true);
  return Render(env, out.render(all));
}

template <>
absl::StatusOr<std::string> RenderFor(const AbiDiff& diff, const OutputOptions& out, bool all) {
  if (out.format == "text") return RenderDiffText(diff, out.color_on(), all, out.summary);
  return Render(diff, out.render(all));
}

}  // namespace

template <typename Result>
bool EmitResult(const Invocation& io, const Result& result, const OutputOptions& out, bool all) {
  absl::StatusOr<std::string> text = RenderFor(result, out, all);
  if (!text.ok()) {
    PrintError(io, text.status());
    return false;
  }
  return Emit(io, *text, out);
}
template bool EmitResult(const Invocation&, const Report&, const OutputOptions&, bool);
template bool EmitResult(const Invocation&, const Matrix&, const OutputOptions&, bool);
template bool EmitResult(const Invocation&, const EnvironmentReport&, const OutputOptions&, bool);
template bool EmitResult(const Invocation&, const AbiDiff&, const OutputOptions&, bool);

}  // namespace abicheck::cli
