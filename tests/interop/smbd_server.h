#pragma once
// SmbdServer: a real Samba smbd (Debian's samba package) for the SMB client's interop tests,
// started from a temporary smb.conf on 127.0.0.1 and a free high port, with one test user,
// and stopped by PID — every smbd process of the instance, the per-connection children too —
// when the object goes.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "child_process.h"

namespace wireseal::interop {

// SmbdSecurity is what the server insists on.
enum class SmbdSecurity {
  kEncryptRequired,  // server smb encrypt = required, server signing = mandatory
  kSigningRequired,  // signing mandatory, encryption off
  kPlain,            // neither: encryption off, signing only if the client asks; unknown users
                     // and anonymous logons are the guest, who may use the share "pub"
  kSealedShare,      // encryption available but not asked for, except by the share "sealed"
};

class SmbdServer {
 public:
  // SmbdServer writes the configuration, adds the user and starts smbd, waiting until it
  // accepts connections. Throws std::runtime_error with the reason (smbd missing, not root,
  // failed to start).
  explicit SmbdServer(SmbdSecurity security);
  ~SmbdServer();
  SmbdServer(const SmbdServer&) = delete;
  SmbdServer& operator=(const SmbdServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  const std::string& user() const noexcept { return user_; }
  const std::string& password() const noexcept { return password_; }
  // share_dir is the directory behind the share "test" (and "pub").
  const std::string& share_dir() const noexcept { return share_dir_; }
  const std::string& config_path() const noexcept { return config_; }
  const std::string& dir() const noexcept { return dir_; }

  // kill_all SIGKILLs every smbd of this instance (the listener and each connection's
  // child): what a server crash looks like to a client.
  void kill_all();
  // signal_all sends `signal` to every smbd of this instance (SIGSTOP: a server that stops
  // answering).
  void signal_all(int signal);

 private:
  void write_config(SmbdSecurity security);
  void add_user();
  bool start_smbd();

  std::string dir_;
  std::string config_;
  std::string share_dir_;
  std::string user_;
  std::string password_ = "wireseal-test-password";
  std::uint16_t port_ = 0;
  std::unique_ptr<ChildProcess> smbd_;
};

// smbd_skip_reason is why the Samba tests cannot run here ("" when they can): no smbd binary,
// or not root (smbd needs root to change to the user it serves).
std::string smbd_skip_reason();

}  // namespace wireseal::interop
