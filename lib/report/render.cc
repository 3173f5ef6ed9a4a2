// Render(result, options): each result type in each format it has, by one call.
#include "lib/report/render.h"

#include "absl/strings/str_cat.h"
#include "lib/report/json_report.h"

namespace abicheck {
namespace {

absl::Status NoSuchFormat(const char* what, Format format) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " has no ", FormatName(format), " rendering (text or json)"));
}

}  // namespace

const char* FormatName(Format format) {
  switch (format) {
    case Format::kText:
      return "text";
    case Format::kJson:
      return "json";
    case Format::kSarif:
      return "sarif";
    case Format::kJunit:
      return "junit";
  }
  return "unknown";
}

absl::StatusOr<std::string> Render(const Report& report, const RenderOptions& options) {
  switch (options.format) {
    case Format::kText:
      return RenderText(report, options.color, options.all);
    case Format::kJson:
      return RenderJson(report);
    case Format::kSarif:
      return RenderSarif({report});
    case Format::kJunit: {
      // One test case: the module against the libraries it was given.
      Matrix one;
      one.modules = {report.module};
      one.builds = {"given libraries"};
      one.cells.push_back({report.module, "given libraries", report});
      return RenderJunit(one);
    }
  }
  return NoSuchFormat("a report", options.format);
}

absl::StatusOr<std::string> Render(const Matrix& matrix, const RenderOptions& options) {
  switch (options.format) {
    case Format::kText:
      return RenderMatrixText(matrix, options.color, options.all);
    case Format::kJson:
      return RenderMatrixJson(matrix);
    case Format::kSarif: {
      std::vector<Report> reports;
      std::vector<std::string> builds;
      reports.reserve(matrix.cells.size());
      for (const MatrixCell& c : matrix.cells) {
        reports.push_back(c.report);
        builds.push_back(c.build);
      }
      return RenderSarif(reports, builds);
    }
    case Format::kJunit:
      return RenderJunit(matrix);
  }
  return NoSuchFormat("a matrix", options.format);
}

absl::StatusOr<std::string> Render(const EnvironmentReport& env, const RenderOptions& options) {
  switch (options.format) {
    case Format::kText:
      return RenderEnvironmentText(env, options.color, options.all);
    case Format::kJson:
      return RenderEnvironmentJson(env);
    case Format::kSarif: {
      // `import torch` itself first, then every package's objects.
      std::vector<Report> reports = env.torch_imports;
      std::vector<std::string> builds = env.matrix.builds;
      builds.resize(reports.size());
      for (const MatrixCell& c : env.matrix.cells) {
        reports.push_back(c.report);
        builds.push_back(c.build);
      }
      return RenderSarif(reports, builds);
    }
    case Format::kJunit:
      return RenderJunit(env.matrix);
  }
  return NoSuchFormat("an environment report", options.format);
}

absl::StatusOr<std::string> Render(const AbiDiff& diff, const RenderOptions& options) {
  switch (options.format) {
    case Format::kText:
      return RenderDiffText(diff, options.color, options.all);
    case Format::kJson:
      return RenderDiffJson(diff);
    case Format::kSarif:
    case Format::kJunit:
      break;
  }
  return NoSuchFormat("a diff", options.format);
}

std::string RenderError(const std::string& message, Format format) {
  switch (format) {
    case Format::kSarif:
      return RenderSarifError(message);
    case Format::kJunit:
      return RenderJunitError(message);
    case Format::kJson:
      return DumpJson(
          nlohmann::ordered_json{{"schema_version", kJsonSchemaVersion},
                                 {"tool", {{"name", "abicheck"}, {"version", Version()}}},
                                 {"error", message}});
    case Format::kText:
      break;
  }
  return absl::StrCat(message, "\n");
}

}  // namespace abicheck
