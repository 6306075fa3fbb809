#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace wireseal::interop {
namespace {

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path) {
  int in[2];
  int out[2];
  // O_CLOEXEC: the child gets only the ends dup2'ed onto 0 and 1, never the parent's ends
  // (or those of other children), so closing our stdin end really closes its stdin.
  if (::pipe2(in, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, argv.at(0).c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  if (rc != 0) {
    pid_ = -1;
    close_fd(stdin_fd_);
    close_fd(stdout_fd_);
    throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(rc));
  }
  ::fcntl(stdout_fd_, F_SETFL, ::fcntl(stdout_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::write_stdin(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(stdin_fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;  // EPIPE: the child has gone (SIGPIPE is ignored by the test)
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool ChildProcess::read_some(Clock::time_point deadline) {
  if (stdout_fd_ < 0) {
    return false;
  }
  pollfd p{stdout_fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, remaining_ms(deadline));
  if (ready < 0 && errno == EINTR) {
    return true;
  }
  if (ready <= 0) {
    return false;  // timed out
  }
  char buf[4096];
  const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
  if (n > 0) {
    output_.append(buf, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    close_fd(stdout_fd_);  // the child closed stdout (it exited)
    return false;
  }
  return true;
}

bool ChildProcess::wait_for_output(std::string_view needle, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (output_.find(needle) == std::string::npos) {
    if (!read_some(deadline)) {
      return output_.find(needle) != std::string::npos;
    }
  }
  return true;
}

bool ChildProcess::drain(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (read_some(deadline)) {
  }
  return stdout_fd_ < 0;
}

bool ChildProcess::try_reap(bool block) {
  if (pid_ < 0 || status_) {
    return true;
  }
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }
  return r < 0;  // ECHILD: nothing left to reap
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!try_reap(false)) {
    if (Clock::now() >= deadline) {
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

void ChildProcess::stop() {
  if (pid_ >= 0 && !try_reap(false)) {
    ::kill(pid_, SIGTERM);
    if (!wait_exit(std::chrono::milliseconds(1000))) {
      ::kill(pid_, SIGKILL);
      try_reap(true);
    }
  }
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    start = end + 1;
  }
  return {};
}

}  // namespace wireseal::interop
