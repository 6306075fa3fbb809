#pragma once
// The subcommand table of the `wireseal` tool: each subcommand lives in its own file and
// exposes one set-up function that adds its options to a CLI11 subcommand and returns what to
// run when it is chosen (the exit status of the process).

#include <CLI/CLI.hpp>
#include <functional>

namespace wireseal::cli {

using Run = std::function<int()>;

struct Subcommand {
  const char* name;
  const char* description;
  Run (*set_up)(CLI::App& command);
};

Run set_up_bench(CLI::App& command);
Run set_up_version(CLI::App& command);
Run set_up_dtls(CLI::App& command);
Run set_up_srtp(CLI::App& command);
Run set_up_smb(CLI::App& command);

}  // namespace wireseal::cli
