// Every wait on something outside the process has a deadline, set here and nowhere else
// (docs/limits.md "Deadlines"): a server that stops sending, one that sends five bytes a second,
// one that never answers, and a pip that never exits each end the run with exit 3 and one line,
// never a hang. Each is read from the environment once per process.
#ifndef ABICHECK_LIB_IO_DEADLINES_H_
#define ABICHECK_LIB_IO_DEADLINES_H_

namespace abicheck {

struct Deadlines {
  // Seconds to connect, and seconds without a byte before a transfer is abandoned
  // (ABICHECK_HTTP_TIMEOUT, 1-3600).
  int connect_seconds = 30;
  int idle_seconds = 30;
  // Seconds one HTTP request may take in all, bytes arriving or not (a range of at most 16 MiB;
  // ABICHECK_HTTP_REQUEST_TIMEOUT, 1-86400).
  int request_seconds = 300;
  // Seconds all the requests that read one archive member may take, retries included — or the
  // whole archive, where a server ignores ranges (ABICHECK_HTTP_MEMBER_TIMEOUT, 1-86400).
  int member_seconds = 1800;
  // Seconds one run of pip may take before it is killed (ABICHECK_PIP_TIMEOUT, 1-86400).
  int pip_seconds = 600;

  // The defaults above, with the environment's overrides (out-of-range values are clamped,
  // unreadable ones ignored).
  static const Deadlines& Get();
};

}  // namespace abicheck

#endif  // ABICHECK_LIB_IO_DEADLINES_H_
