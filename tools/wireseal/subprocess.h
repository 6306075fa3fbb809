#pragma once
// Subprocess: a child program started directly with posix_spawn (no shell, so arguments such
// as a --filter regex reach it verbatim) and one pipe from it that the parent reads line by
// line. `wireseal bench` uses it to drive wireseal-bench-runner.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace wireseal::cli {

class Subprocess {
 public:
  // Subprocess starts `program` with `args` (argv[1..]) and the environment of this process,
  // with the pipe on the child's descriptor `child_fd`. When that is not its stdout, the
  // child's stdout goes to our stderr, so nothing it prints can mix into our own stdout. The
  // child's stdin and stderr are ours. Throws std::system_error when it cannot be started.
  Subprocess(const std::filesystem::path& program, const std::vector<std::string>& args,
             int child_fd);
  // A child still running (an exception stopped the reading) is killed and reaped.
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // read_line stores the next line from the pipe without its '\n'; false at end of output.
  bool read_line(std::string& line);

  // wait closes the pipe, waits for the child and returns its exit status. Throws
  // std::runtime_error when the child was killed by a signal.
  int wait();

 private:
  std::string name_;     // the program's file name, for messages
  pid_t pid_ = -1;       // -1 once reaped
  int pipe_ = -1;        // read end; -1 once closed
  std::string pending_;  // bytes read past the last returned line
};

}  // namespace wireseal::cli
