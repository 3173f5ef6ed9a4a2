// abicheck: will this compiled extension module load against that build of its host library?
// The program is lib/cli's table of subcommands (cli::Main) on the process's stdout and stderr.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lib/cli/commands.h"
#include "lib/io/mapped_file.h"

namespace {

// Every write to stdout counts: a full disk, a closed or broken descriptor turns the run into an
// input/output error (exit 3) instead of a silent success. SIGPIPE keeps its default (141).
int FlushStdout(int rc) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || std::fclose(stdout) != 0) {
    std::fprintf(stderr, "abicheck: stdout: %s\n",
                 errno != 0 ? std::strerror(errno) : "write error");
    return 3;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  abicheck::ExitOnShrunkenInput("abicheck");
  abicheck::cli::Invocation io;
  io.process_exits = true;
  io.progress = true;
  return FlushStdout(abicheck::cli::Main(io, std::vector<std::string>(argv + 1, argv + argc)));
}
