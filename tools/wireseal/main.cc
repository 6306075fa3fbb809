// wireseal: the command-line tool. main() only dispatches; each subcommand is one file.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "subcommand.h"

namespace {

constexpr wireseal::cli::Subcommand kSubcommands[] = {
    {"bench", "Run the benchmark suites against the baselines, compare runs, plot results",
     &wireseal::cli::set_up_bench},
    {"version", "Print the version, compiler and the backend chosen for each primitive",
     &wireseal::cli::set_up_version},
    {"dtls", "DTLS 1.2: a client and a server over UDP, and decrypting a capture with a key log",
     &wireseal::cli::set_up_dtls},
    {"srtp", "SRTP tools: protect or unprotect the RTP/RTCP packets of a capture (SDES/hex keys)",
     &wireseal::cli::set_up_srtp},
    {"smb", "SMB 3.x client: ls, get, put, rm, mkdir, cat on a server share (encrypted, signed)",
     &wireseal::cli::set_up_smb},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wireseal: packet and record protection for DTLS 1.2, SRTP/SRTCP and SMB 3.x"};
  app.require_subcommand(1);
  wireseal::cli::Run chosen;
  for (const wireseal::cli::Subcommand& sub : kSubcommands) {
    CLI::App* command = app.add_subcommand(sub.name, sub.description);
    wireseal::cli::Run run = sub.set_up(*command);
    command->callback([&chosen, run] { chosen = run; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return chosen ? chosen() : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "wireseal: {}\n", e.what());
    return 1;
  }
}
