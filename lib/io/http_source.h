// A ByteSource over HTTP range requests (libcurl, loaded on first use): the bytes of a wheel on
// a package index, fetched as the zip reader asks for them — the tail for the central directory,
// then each member's headers and tables — with read-ahead for sequential reads, so a member costs
// a few round trips, not one per table. Keep-alive per reader; bounded retries with backoff on a
// dropped connection, a timeout, a short or mismatched answer; redirects followed (a loop is an
// error); TLS as the system's libcurl is configured. docs/limits.md lists the knobs.
#ifndef ABICHECK_LIB_IO_HTTP_SOURCE_H_
#define ABICHECK_LIB_IO_HTTP_SOURCE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/io/byte_source.h"

namespace abicheck {

// Opens `url`: one ranged GET of its last bytes learns the size (and keeps them: the central
// directory is there). A server that answers a range with the whole file (200) is read whole,
// once, into a temporary file, and that is said in notes(). Errors (kUnavailable for what a
// retry could not mend, kDataLoss for an answer that is not the file) name the URL's file name
// and what happened.
absl::StatusOr<std::unique_ptr<ByteSource>> OpenHttpSource(const std::string& url);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_HTTP_SOURCE_H_
