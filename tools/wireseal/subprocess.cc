#include "subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace wireseal::cli {
namespace {

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

// SpawnActions owns the descriptor set-up posix_spawn applies in the child.
class SpawnActions {
 public:
  SpawnActions() {
    if (const int rc = posix_spawn_file_actions_init(&actions_); rc != 0) {
      throw_errno(rc, "posix_spawn_file_actions_init");
    }
  }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;

  // dup2 makes the child's `to` a copy of our `from` (clearing close-on-exec on it).
  void dup2(int from, int to) {
    if (const int rc = posix_spawn_file_actions_adddup2(&actions_, from, to); rc != 0) {
      throw_errno(rc, "posix_spawn_file_actions_adddup2");
    }
  }
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// argv_of builds the NULL-terminated argv posix_spawn wants; it points into `storage`.
std::vector<char*> argv_of(std::vector<std::string>& storage) {
  std::vector<char*> argv;
  for (std::string& arg : storage) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

Subprocess::Subprocess(const std::filesystem::path& program, const std::vector<std::string>& args,
                       int child_fd)
    : name_(program.filename().string()) {
  // Close-on-exec keeps both ends out of the child except where dup2 places the write end,
  // so the parent sees end of file as soon as the child exits.
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    throw_errno(errno, "pipe2");
  }
  const int read_end = ends[0];
  const int write_end = ends[1];
  std::vector<std::string> storage = {program.string()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv = argv_of(storage);
  int rc = 0;
  try {
    SpawnActions actions;
    actions.dup2(write_end, child_fd);
    if (child_fd != STDOUT_FILENO) {
      actions.dup2(STDERR_FILENO, STDOUT_FILENO);
    }
    rc = posix_spawn(&pid_, storage.front().c_str(), actions.get(), nullptr, argv.data(), environ);
  } catch (...) {
    close(read_end);
    close(write_end);
    throw;
  }
  close(write_end);
  if (rc != 0) {
    close(read_end);
    pid_ = -1;
    throw_errno(rc, "cannot start " + program.string());
  }
  pipe_ = read_end;
}

Subprocess::~Subprocess() {
  if (pipe_ >= 0) {
    close(pipe_);
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool Subprocess::read_line(std::string& line) {
  for (;;) {
    if (const std::size_t newline = pending_.find('\n'); newline != std::string::npos) {
      line.assign(pending_, 0, newline);
      pending_.erase(0, newline + 1);
      return true;
    }
    char chunk[4096];
    const ssize_t n = read(pipe_, chunk, sizeof(chunk));
    if (n > 0) {
      pending_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      // A last line without '\n' still counts.
      line = std::move(pending_);
      pending_.clear();
      return !line.empty();
    } else if (errno != EINTR) {
      throw_errno(errno, "reading from " + name_);
    }
  }
}

int Subprocess::wait() {
  close(pipe_);
  pipe_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {
      throw_errno(errno, "waitpid");
    }
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(name_ + " was killed by signal " + std::to_string(WTERMSIG(status)) +
                             " (" + strsignal(WTERMSIG(status)) + ")");
  }
  return WEXITSTATUS(status);
}

}  // namespace wireseal::cli
