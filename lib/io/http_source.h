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
#include "absl/strings/string_view.h"
#include "lib/io/byte_source.h"

namespace abicheck {

// Opens `url`: one ranged GET of its last bytes learns the size (and keeps them: the central
// directory is there). A server that answers a range with the whole file (200) is read whole,
// once, into a temporary file, and that is said in notes(). Errors (kUnavailable for what a
// retry could not mend, kDataLoss for an answer that is not the file) name the URL's file name
// and what happened.
//
// Every range request after the first is pinned to the version of the file the first answer
// described: If-Match with its ETag (If-Unmodified-Since with its Last-Modified when the ETag is
// weak or absent), and each answer's ETag, Last-Modified and length compared with the first's. A
// file that changed between requests (a mirror's re-upload) ends the read with kDataLoss naming
// it: bytes of two files are never read as one. Each request, and each member's reads, end by
// their deadlines (lib/io/deadlines.h). A file no larger than kReadWholeBelow is read whole
// after its tail, and no byte is fetched twice while it is kept: a read never fetches more
// than the file.
absl::StatusOr<std::unique_ptr<ByteSource>> OpenHttpSource(const std::string& url);

// The credentials in `url` ("https://USER:TOKEN@host/simple/", an index URL pip is given) are
// used for every URL of the same scheme, host and port that this process reads, as pip uses
// them for the wheels its index links to; a URL without userinfo does nothing. Never written
// or printed. Thread-safe.
void RememberHttpCredentials(absl::string_view url);

// `text` (a URL, or a line naming URLs) as messages, notes and the cache say it: each URL in it
// without userinfo.
std::string WithoutCredentials(absl::string_view text);

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_HTTP_SOURCE_H_
