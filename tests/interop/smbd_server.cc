// SmbdServer: a throwaway Samba instance on 127.0.0.1 (see smbd_server.h).
#include "smbd_server.h"

#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "wireseal/io/socket.h"

namespace wireseal::interop {
namespace {

constexpr const char* kSmbd = "/usr/sbin/smbd";
constexpr const char* kSmbpasswd = "/usr/bin/smbpasswd";

std::string security_lines(SmbdSecurity s) {
  switch (s) {
    case SmbdSecurity::kEncryptRequired:
      return "  server smb encrypt = required\n  server signing = mandatory\n";
    case SmbdSecurity::kSigningRequired:
      return "  server smb encrypt = off\n  server signing = mandatory\n";
    case SmbdSecurity::kPlain:
      return "  server smb encrypt = off\n  server signing = auto\n  map to guest = Bad User\n";
    case SmbdSecurity::kSealedShare:
      // Globally "off" would take the cipher out of NEGOTIATE, and no share could encrypt.
      return "  server smb encrypt = if_required\n  server signing = auto\n";
  }
  return {};
}

// free_port asks the kernel for a port nobody listens on (released right away; smbd binds it
// a moment later).
std::uint16_t free_port() {
  const io::TcpListener probe(0);
  return probe.port();
}

bool accepts(std::uint16_t port) {
  try {
    io::TcpStream::connect_loopback(port);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// instance_pids are the processes whose command line names `config`: this instance's smbds.
std::vector<pid_t> instance_pids(const std::string& config) {
  std::vector<pid_t> pids;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return pids;
  }
  while (const dirent* e = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) {
      continue;
    }
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline");
    std::stringstream cmd;
    cmd << in.rdbuf();
    if (cmd.str().find(config) != std::string::npos) {
      pids.push_back(pid);
    }
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

std::string smbd_skip_reason() {
  if (::access(kSmbd, X_OK) != 0 || ::access(kSmbpasswd, X_OK) != 0) {
    return "Samba's smbd/smbpasswd are not installed (scripts/install-deps.sh installs samba)";
  }
  if (::geteuid() != 0) {
    return "smbd needs root to serve a user (run the tests as root, as CI does)";
  }
  return {};
}

SmbdServer::SmbdServer(SmbdSecurity security) {
  if (const std::string why = smbd_skip_reason(); !why.empty()) {
    throw std::runtime_error(why);
  }
  char templ[] = "/tmp/wireseal-smbd-XXXXXX";
  if (::mkdtemp(templ) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  dir_ = templ;
  share_dir_ = dir_ + "/share";
  config_ = dir_ + "/smb.conf";
  for (const char* sub : {"/share", "/private", "/state", "/cache", "/lock", "/pid", "/ncalrpc"}) {
    std::filesystem::create_directory(dir_ + sub);
  }
  // The guest account (nobody) writes to the share too: it may pass through the instance's
  // directory (not list it) and write in the share.
  namespace fs = std::filesystem;
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(share_dir_, fs::perms::all);
  const passwd* pw = ::getpwuid(::geteuid());
  user_ = pw != nullptr ? pw->pw_name : "root";
  // A port another test (ctest runs them in parallel) may take between our probe and smbd's
  // bind: then smbd exits, or another instance answers. Start again on another port, and only
  // trust a port once our own smbd is still alive after it answered.
  for (int attempt = 0;; ++attempt) {
    port_ = free_port();
    write_config(security);
    if (attempt == 0) {
      add_user();
    }
    if (start_smbd()) {
      return;
    }
    if (attempt == 4) {
      throw std::runtime_error("smbd did not start (see " + dir_ + "/smbd.err)");
    }
  }
}

void SmbdServer::write_config(SmbdSecurity security) {
  std::ofstream conf(config_);
  conf << "[global]\n"
       << "  netbios name = WIRESEALTEST\n  workgroup = WORKGROUP\n"
       << "  server role = standalone server\n"
       << "  interfaces = 127.0.0.1\n  bind interfaces only = yes\n"
       << "  smb ports = " << port_ << "\n"
       << "  private dir = " << dir_ << "/private\n"
       << "  state directory = " << dir_ << "/state\n"
       << "  cache directory = " << dir_ << "/cache\n"
       << "  lock directory = " << dir_ << "/lock\n"
       << "  pid directory = " << dir_ << "/pid\n"
       << "  ncalrpc dir = " << dir_ << "/ncalrpc\n"
       << "  log file = " << dir_ << "/smbd.log\n  log level = 1\n"
       << "  passdb backend = tdbsam:" << dir_ << "/private/passdb.tdb\n"
       << "  server min protocol = SMB3_00\n"
       << "  load printers = no\n  printing = bsd\n  printcap name = /dev/null\n"
       << "  disable spoolss = yes\n"
       << security_lines(security) << "[test]\n  path = " << share_dir_ << "\n  read only = no\n"
       << "[pub]\n  path = " << share_dir_
       << "\n  read only = no\n  guest ok = yes\n"
       // A share that demands encryption of a server that does not (its encrypt flag).
       << "[sealed]\n  path = " << share_dir_ << "\n  read only = no\n"
       << "  server smb encrypt = required\n";
  conf.close();
}

void SmbdServer::add_user() {
  ChildProcess add({kSmbpasswd, "-c", config_, "-a", "-s", user_}, dir_ + "/smbpasswd.err");
  add.write_stdin(password_ + "\n" + password_ + "\n");
  if (add.wait_exit(std::chrono::seconds(20)) != 0) {
    throw std::runtime_error("smbpasswd could not add the test user (see " + dir_ +
                             "/smbpasswd.err)");
  }
}

bool SmbdServer::start_smbd() {
  smbd_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{kSmbd, "-s", config_, "-F", "--debug-stdout"}, dir_ + "/smbd.err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!accepts(port_)) {
    if (std::chrono::steady_clock::now() > deadline ||
        smbd_->wait_exit(std::chrono::milliseconds(0))) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return !smbd_->wait_exit(std::chrono::milliseconds(0)).has_value();
}

void SmbdServer::kill_all() { signal_all(SIGKILL); }

void SmbdServer::signal_all(int signal) {
  for (const pid_t pid : instance_pids(config_)) {
    ::kill(pid, signal);
  }
}

SmbdServer::~SmbdServer() {
  if (smbd_) {
    smbd_->stop();
  }
  kill_all();  // connection children outlive the parent
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace wireseal::interop
