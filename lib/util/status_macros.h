// Debian's abseil (20220623) has no ABSL_RETURN_IF_ERROR / ABSL_ASSIGN_OR_RETURN: these are ours.
#ifndef ABICHECK_LIB_UTIL_STATUS_MACROS_H_
#define ABICHECK_LIB_UTIL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ABICHECK_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    ::absl::Status abicheck_status_ = (expr);            \
    if (!abicheck_status_.ok()) return abicheck_status_; \
  } while (0)

#define ABICHECK_CONCAT_INNER_(a, b) a##b
#define ABICHECK_CONCAT_(a, b) ABICHECK_CONCAT_INNER_(a, b)

#define ABICHECK_ASSIGN_OR_RETURN(lhs, expr) \
  ABICHECK_ASSIGN_OR_RETURN_IMPL_(ABICHECK_CONCAT_(abicheck_statusor_, __LINE__), lhs, expr)

// `statusor` is a name being declared and `lhs` a declaration: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ABICHECK_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                    \
  if (!statusor.ok()) return std::move(statusor).status();   \
  lhs = *std::move(statusor)
// NOLINTEND(bugprone-macro-parentheses)

#endif  // ABICHECK_LIB_UTIL_STATUS_MACROS_H_
