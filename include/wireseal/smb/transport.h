#pragma once
// Transport: the byte stream an SMB client runs over (io::TcpStream is one), so the protocol
// code never touches a socket.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::smb {

// Transport is a reliable byte stream to the server.
class Transport {
 public:
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  virtual ~Transport() = default;
  // read reads up to out.size() bytes: 0 when the peer closed, kTimedOut when nothing came in
  // the transport's time limit.
  virtual Result<std::size_t> read(std::span<std::uint8_t> out) noexcept = 0;
  virtual Status write_all(std::span<const std::uint8_t> data) noexcept = 0;
};

}  // namespace wireseal::smb
