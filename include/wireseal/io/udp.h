#pragma once
// UDP sockets (POSIX), IPv4 and IPv6, for DTLS over the network (the CLI's `dtls server` and
// `dtls client`).
//
// Set-up (resolve, bind, connect) throws std::system_error on an OS failure and
// std::runtime_error when a name does not resolve. Transfers are non-blocking and return
// wireseal::Result values: an OS error is Error::kBadState with errno kept in last_errno().
// Sockets are move-only and closed by their destructor.
//
// UdpAddress is opaque: compare it, hash it (std::hash), print it, and hand bytes() to
// dtls::HelloVerifier, which binds its cookies to the client's address.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::io {

class UdpAddress {
 public:
  UdpAddress() noexcept = default;

  // bytes is a stable encoding of the address: 4, the IPv4 address and the port (big-endian);
  // or 6, the IPv6 address, the port and the scope id. Empty for a default-made UdpAddress.
  std::span<const std::uint8_t> bytes() const noexcept { return {bytes_.data(), size_}; }
  bool empty() const noexcept { return size_ == 0; }
  bool is_v6() const noexcept { return size_ != 0 && bytes_[0] == 6; }
  std::uint16_t port() const noexcept;
  // to_string is "192.0.2.1:4433" or "[2001:db8::1]:4433" (RFC 5952 form).
  std::string to_string() const;

  friend bool operator==(const UdpAddress& a, const UdpAddress& b) noexcept {
    return a.size_ == b.size_ && a.bytes_ == b.bytes_;
  }

 private:
  friend class UdpSocket;
  friend std::vector<UdpAddress> resolve_udp(const std::string& host, std::uint16_t port,
                                             bool passive);
  // from_sockaddr/to_sockaddr convert to and from a struct sockaddr_in or sockaddr_in6.
  static UdpAddress from_sockaddr(const void* sockaddr, std::size_t length) noexcept;
  std::size_t to_sockaddr(void* storage) const noexcept;  // writes a sockaddr_storage

  std::array<std::uint8_t, 1 + 16 + 2 + 4> bytes_{};  // unused bytes stay zero
  std::uint8_t size_ = 0;
};

// HostPort is "HOST:PORT" taken apart. HOST may be a name, an IPv4 literal or a bracketed
// IPv6 literal ("[::1]:4433"; the brackets are removed); it is empty for ":4433".
struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};
// parse_host_port splits `text`; kMalformed without a ':' and a port in [0, 65535].
Result<HostPort> parse_host_port(std::string_view text);

// is_ip_literal tells whether `host` is an IPv4 or IPv6 address rather than a name.
bool is_ip_literal(const std::string& host) noexcept;

// resolve_udp looks `host` up (getaddrinfo; a literal needs no lookup) and returns its
// addresses with `port`, in the resolver's order. `passive`: an address to bind, where an
// empty host or "*" means every local address (IPv6 "::", which also takes IPv4 on Linux).
// Throws std::runtime_error naming the host when it does not resolve.
std::vector<UdpAddress> resolve_udp(const std::string& host, std::uint16_t port, bool passive);

class UdpSocket {
 public:
  UdpSocket() noexcept = default;
  ~UdpSocket();
  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&& other) noexcept;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;

  // bind opens a socket bound to `local` (port 0: the OS picks one; see local_address()).
  // Binding the IPv6 any-address accepts IPv4 peers too (as IPv4-mapped addresses).
  static UdpSocket bind(const UdpAddress& local);
  // connect opens a socket on an ephemeral port connected to `remote`: the kernel drops
  // datagrams from anyone else, and an ICMP port unreachable comes back as ECONNREFUSED.
  static UdpSocket connect(const UdpAddress& remote);

  UdpAddress local_address() const;

  // send_to sends one datagram to `to`; send, to the connected peer. A full socket buffer is
  // waited for, up to a second; errors (still full, ECONNREFUSED) are kBadState and the
  // datagram is lost, as UDP loses them.
  Status send_to(const UdpAddress& to, std::span<const std::uint8_t> datagram) noexcept;
  Status send(std::span<const std::uint8_t> datagram) noexcept;

  // recv_from takes one queued datagram without waiting. `received` is false when none is
  // queued; `truncated` when it was longer than `out` (the rest is lost).
  struct Received {
    bool received = false;
    bool truncated = false;
    std::size_t size = 0;
    UdpAddress from;
  };
  Result<Received> recv_from(std::span<std::uint8_t> out) noexcept;

  // wait blocks until a datagram is queued, `other_fd` (another descriptor, such as standard
  // input; -1 for none) is readable or at its end, `timeout` passes (negative: no limit) or a
  // signal arrives (then neither is set).
  struct Readiness {
    bool socket = false;
    bool other = false;
  };
  Result<Readiness> wait(std::chrono::milliseconds timeout, int other_fd = -1) noexcept;

  bool is_open() const noexcept { return fd_ >= 0; }
  int last_errno() const noexcept { return last_errno_; }

 private:
  explicit UdpSocket(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
  int last_errno_ = 0;
};

}  // namespace wireseal::io

template <>
struct std::hash<wireseal::io::UdpAddress> {
  std::size_t operator()(const wireseal::io::UdpAddress& a) const noexcept;
};
