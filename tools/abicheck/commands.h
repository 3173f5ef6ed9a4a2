// The subcommands of the abicheck tool; each is a thin layer over the library.
#ifndef ABICHECK_TOOLS_ABICHECK_COMMANDS_H_
#define ABICHECK_TOOLS_ABICHECK_COMMANDS_H_

#include <string>
#include <vector>

namespace abicheck::cli {

// Each takes the arguments after the subcommand name and returns the process exit code.
int RunCheck(const std::string& prog, std::vector<std::string> args);
int RunSymbols(const std::string& prog, std::vector<std::string> args);
int RunDiff(const std::string& prog, std::vector<std::string> args);

// True when colour should be used on stdout: a terminal, and NO_COLOR unset.
bool UseColor(const std::string& mode);

}  // namespace abicheck::cli

#endif  // ABICHECK_TOOLS_ABICHECK_COMMANDS_H_
