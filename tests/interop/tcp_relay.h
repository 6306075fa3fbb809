#pragma once
// TcpRelay: a man in the middle on 127.0.0.1 for the SMB fault tests. It accepts one client,
// connects it to the server's port and copies bytes both ways on a thread; the server-to-client
// direction is parsed into SMB frames (4-byte prefix), so a test can flip one byte inside the
// first frame larger than a threshold — an encrypted READ response — and see what the client
// does with a forged message.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "wireseal/io/socket.h"

namespace wireseal::interop {

class TcpRelay {
 public:
  // TcpRelay listens on a free port and relays its first connection to `server_port`. With
  // corrupt_frames_over > 0, byte 100 of the first server frame longer than that is flipped.
  TcpRelay(std::uint16_t server_port, std::size_t corrupt_frames_over);
  ~TcpRelay();
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  std::uint16_t port() const noexcept { return listener_.port(); }
  bool corrupted() const noexcept { return corrupted_.load(); }

 private:
  void run();

  io::TcpListener listener_;
  std::uint16_t server_port_;
  std::size_t corrupt_over_;
  std::atomic<bool> corrupted_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace wireseal::interop
