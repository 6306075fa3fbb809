#pragma once
// Blocking TCP on the loopback interface, for SMB round trips over a real socket (tests, CLI).
//
// Set-up (listen, accept, connect) throws std::system_error on failure. Transfers return
// wireseal::Result values: an OS error is reported as Error::kBadState, with errno kept in
// last_errno(). Sockets are move-only and closed by their destructor. TCP_NODELAY is set, as
// SMB clients do, so small requests are not delayed behind Nagle's algorithm.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "wireseal/result.h"
#include "wireseal/smb/transport.h"

namespace wireseal::io {

// TcpStream is the SMB client's Transport over TCP.
class TcpStream final : public smb::Transport {
 public:
  TcpStream() noexcept = default;
  ~TcpStream() override;
  TcpStream(TcpStream&& other) noexcept;
  TcpStream& operator=(TcpStream&& other) noexcept;
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;

  // connect_loopback connects to 127.0.0.1:`port`.
  static TcpStream connect_loopback(std::uint16_t port);
  // connect resolves `host` (a name or an IPv4/IPv6 address) and connects to the first
  // address that answers.
  static TcpStream connect(const std::string& host, std::uint16_t port);

  // set_timeout bounds every later read and write: one that makes no progress for `limit`
  // fails with kTimedOut (0: wait forever).
  void set_timeout(std::chrono::milliseconds limit) noexcept;

  // read reads up to out.size() bytes; 0 means the peer closed the stream. kTimedOut after
  // the timeout, kClosed for a reset connection, kBadState for other OS errors.
  Result<std::size_t> read(std::span<std::uint8_t> out) noexcept override;
  // write_all writes every byte of `data` (retrying short writes and EINTR).
  Status write_all(std::span<const std::uint8_t> data) noexcept override;

  bool is_open() const noexcept { return fd_ >= 0; }
  int last_errno() const noexcept { return last_errno_; }

 private:
  friend class TcpListener;
  explicit TcpStream(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
  int last_errno_ = 0;
};

class TcpListener {
 public:
  // TcpListener listens on 127.0.0.1:`port` (0: the OS picks; see port()).
  explicit TcpListener(std::uint16_t port = 0);
  ~TcpListener();
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // accept waits for one connection.
  TcpStream accept();

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace wireseal::io
