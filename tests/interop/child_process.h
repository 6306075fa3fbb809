#pragma once
// ChildProcess: a program started with posix_spawn whose stdin and stdout are pipes held by
// the test, and whose stderr goes to a file. Every wait is bounded, and the destructor always
// terminates and reaps the child (SIGTERM, then SIGKILL), so a failing test never leaves
// processes behind.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wireseal::interop {

class ChildProcess {
 public:
  // ChildProcess starts argv[0] (an absolute path) with `argv`; throws std::runtime_error if
  // it cannot be spawned.
  ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }

  // write_stdin writes all of `data` to the child's stdin (kept open until stop()).
  bool write_stdin(std::string_view data);

  // wait_for_output reads the child's stdout until it contains `needle`, the child closes it,
  // or `timeout` passes. True if `needle` was seen.
  bool wait_for_output(std::string_view needle, std::chrono::milliseconds timeout);
  // drain reads stdout until the child closes it (true) or `timeout` passes (false).
  bool drain(std::chrono::milliseconds timeout);
  // output is everything read from stdout so far.
  const std::string& output() const noexcept { return output_; }

  // wait_exit waits up to `timeout` for the child to exit by itself and returns its exit
  // status (128 + signal if killed), or nullopt if it is still running.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

  // stop sends SIGTERM, waits up to 1 s, then SIGKILLs, and reaps. Idempotent.
  void stop();

 private:
  using Clock = std::chrono::steady_clock;
  // read_some reads one chunk of stdout; false on timeout or end of output.
  bool read_some(Clock::time_point deadline);
  bool try_reap(bool block);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::optional<int> status_;
  std::string output_;
};

// find_program returns the absolute path of `name` on PATH, or an empty string.
std::string find_program(const std::string& name);

}  // namespace wireseal::interop
