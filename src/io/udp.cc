// UDP sockets over POSIX (IPv4 and IPv6): the only datagram transport code that touches the OS.
#include "wireseal/io/udp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "wireseal/io/pcap.h"
#include "wireseal/random.h"

namespace wireseal::io {
namespace {

[[noreturn]] void throw_errno(int error, const char* what) {
  throw std::system_error(error, std::generic_category(), what);
}

constexpr std::size_t kV4Size = 1 + 4 + 2;
constexpr std::size_t kV6Size = 1 + 16 + 2 + 4;

int open_socket(int family) {
  const int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    throw_errno(errno, "socket");
  }
  return fd;
}

// room_to_send waits, after EAGAIN, for the socket buffer to take another datagram.
bool room_to_send(int fd) noexcept {
  constexpr int kMaxWaitMs = 1000;
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, kMaxWaitMs) > 0;
}

[[noreturn]] void close_and_throw(int fd, const char* what) {
  const int e = errno;
  ::close(fd);
  throw_errno(e, what);
}

}  // namespace

std::uint16_t UdpAddress::port() const noexcept {
  if (size_ == 0) {
    return 0;
  }
  const std::size_t at = bytes_[0] == 4 ? 5 : 17;
  return static_cast<std::uint16_t>(bytes_[at] << 8 | bytes_[at + 1]);
}

std::string UdpAddress::to_string() const {
  if (size_ == 0) {
    return "(none)";
  }
  UdpEndpoint endpoint;
  endpoint.port = port();
  if (bytes_[0] == 4) {
    endpoint.address.version = 4;
    std::memcpy(endpoint.address.bytes.data(), &bytes_[1], 4);
    return endpoint.to_string();
  }
  static constexpr std::array<std::uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0,    0,
                                                              0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), &bytes_[1])) {
    // An IPv4 peer of a dual-stack socket (::ffff:192.0.2.1) is shown as the IPv4 address.
    endpoint.address.version = 4;
    std::memcpy(endpoint.address.bytes.data(), &bytes_[13], 4);
    return endpoint.to_string();
  }
  endpoint.address.version = 6;
  std::memcpy(endpoint.address.bytes.data(), &bytes_[1], 16);
  std::uint32_t scope = 0;
  for (std::size_t i = 19; i < kV6Size; ++i) {
    scope = scope << 8 | bytes_[i];
  }
  if (scope == 0) {
    return endpoint.to_string();
  }
  // RFC 6874 style: [fe80::1%2]:4433
  const std::string ip = endpoint.address.to_string();
  return "[" + ip + "%" + std::to_string(scope) + "]:" + std::to_string(endpoint.port);
}

UdpAddress UdpAddress::from_sockaddr(const void* sockaddr, std::size_t length) noexcept {
  UdpAddress a;
  sockaddr_storage storage{};
  std::memcpy(&storage, sockaddr, std::min(length, sizeof storage));
  const sa_family_t family = length >= sizeof(sa_family_t) ? storage.ss_family : AF_UNSPEC;
  if (family == AF_INET && length >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, sockaddr, sizeof in);
    a.bytes_[0] = 4;
    std::memcpy(&a.bytes_[1], &in.sin_addr, 4);
    std::memcpy(&a.bytes_[5], &in.sin_port, 2);  // both in network byte order
    a.size_ = kV4Size;
  } else if (family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, sockaddr, sizeof in6);
    a.bytes_[0] = 6;
    std::memcpy(&a.bytes_[1], &in6.sin6_addr, 16);
    std::memcpy(&a.bytes_[17], &in6.sin6_port, 2);
    const std::uint32_t scope = in6.sin6_scope_id;
    for (std::size_t i = 0; i < 4; ++i) {
      a.bytes_[19 + i] = static_cast<std::uint8_t>(scope >> (24 - 8 * i));
    }
    a.size_ = kV6Size;
  }
  return a;
}

std::size_t UdpAddress::to_sockaddr(void* storage) const noexcept {
  if (size_ == kV4Size) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    std::memcpy(&in.sin_addr, &bytes_[1], 4);
    std::memcpy(&in.sin_port, &bytes_[5], 2);
    std::memcpy(storage, &in, sizeof in);
    return sizeof in;
  }
  if (size_ == kV6Size) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    std::memcpy(&in6.sin6_addr, &bytes_[1], 16);
    std::memcpy(&in6.sin6_port, &bytes_[17], 2);
    std::uint32_t scope = 0;
    for (std::size_t i = 19; i < kV6Size; ++i) {
      scope = scope << 8 | bytes_[i];
    }
    in6.sin6_scope_id = scope;
    std::memcpy(storage, &in6, sizeof in6);
    return sizeof in6;
  }
  return 0;
}

Result<HostPort> parse_host_port(std::string_view text) {
  HostPort out;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Error::kMalformed;
    }
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos ||
        text.substr(0, colon).find(':') != std::string_view::npos) {
      return Error::kMalformed;  // no port, or an IPv6 literal without brackets
    }
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return Error::kMalformed;
  }
  out.port = static_cast<std::uint16_t>(value);
  return out;
}

bool is_ip_literal(const std::string& host) noexcept {
  in_addr v4{};
  in6_addr v6{};
  return ::inet_pton(AF_INET, host.c_str(), &v4) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

std::vector<UdpAddress> resolve_udp(const std::string& host, std::uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_protocol = IPPROTO_UDP;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  const bool any = passive && (host.empty() || host == "*");
  const char* node = any ? "::" : host.c_str();
  if (is_ip_literal(node)) {
    hints.ai_flags |= AI_NUMERICHOST;
  }
  const std::string service = std::to_string(port);
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(node, service.c_str(), &hints, &list);
  if (rc != 0) {
    throw std::runtime_error("cannot resolve " + host + ": " +
                             (rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc)));
  }
  std::vector<UdpAddress> out;
  for (const addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    const UdpAddress a = UdpAddress::from_sockaddr(ai->ai_addr, ai->ai_addrlen);
    if (!a.empty() && std::find(out.begin(), out.end(), a) == out.end()) {
      out.push_back(a);
    }
  }
  ::freeaddrinfo(list);
  if (out.empty()) {
    throw std::runtime_error("cannot resolve " + host + ": no IPv4 or IPv6 address");
  }
  return out;
}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), last_errno_(other.last_errno_) {}

UdpSocket& UdpSocket::operator=(UdpSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = std::exchange(other.fd_, -1);
    last_errno_ = other.last_errno_;
  }
  return *this;
}

UdpSocket UdpSocket::bind(const UdpAddress& local) {
  sockaddr_storage addr{};
  const std::size_t length = local.to_sockaddr(&addr);
  if (length == 0) {
    throw std::invalid_argument("UdpSocket::bind: no address");
  }
  const int fd = open_socket(addr.ss_family);
  if (addr.ss_family == AF_INET6) {
    // Dual stack only for the any-address; a specific IPv6 address is IPv6 only anyway.
    const int v6only =
        IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr) ? 0 : 1;
    static_cast<void>(::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only));
  }
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), static_cast<socklen_t>(length)) != 0) {
    close_and_throw(fd, "bind");
  }
  return UdpSocket(fd);
}

UdpSocket UdpSocket::connect(const UdpAddress& remote) {
  sockaddr_storage addr{};
  const std::size_t length = remote.to_sockaddr(&addr);
  if (length == 0) {
    throw std::invalid_argument("UdpSocket::connect: no address");
  }
  const int fd = open_socket(addr.ss_family);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), static_cast<socklen_t>(length)) !=
      0) {
    close_and_throw(fd, "connect");
  }
  return UdpSocket(fd);
}

UdpAddress UdpSocket::local_address() const {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    throw_errno(errno, "getsockname");
  }
  return UdpAddress::from_sockaddr(&addr, length);
}

Status UdpSocket::send_to(const UdpAddress& to, std::span<const std::uint8_t> datagram) noexcept {
  sockaddr_storage addr{};
  const std::size_t length = to.to_sockaddr(&addr);
  if (length == 0) {
    return Error::kInvalidArgument;
  }
  bool waited = false;
  for (;;) {
    const ssize_t n =
        ::sendto(fd_, datagram.data(), datagram.size(), 0, reinterpret_cast<const sockaddr*>(&addr),
                 static_cast<socklen_t>(length));
    if (n >= 0) {
      return {};
    }
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && !waited) {
      waited = true;
      if (room_to_send(fd_)) {
        continue;
      }
    }
    if (errno != EINTR) {
      last_errno_ = errno;
      return Error::kBadState;
    }
  }
}

Status UdpSocket::send(std::span<const std::uint8_t> datagram) noexcept {
  bool waited = false;
  for (;;) {
    const ssize_t n = ::send(fd_, datagram.data(), datagram.size(), 0);
    if (n >= 0) {
      return {};
    }
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && !waited) {
      waited = true;
      if (room_to_send(fd_)) {
        continue;
      }
    }
    if (errno != EINTR) {
      last_errno_ = errno;
      return Error::kBadState;
    }
  }
}

Result<UdpSocket::Received> UdpSocket::recv_from(std::span<std::uint8_t> out) noexcept {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    const ssize_t n = ::recvfrom(fd_, out.data(), out.size(), MSG_TRUNC,
                                 reinterpret_cast<sockaddr*>(&addr), &length);
    if (n >= 0) {
      Received r;
      r.received = true;
      r.truncated = static_cast<std::size_t>(n) > out.size();
      r.size = r.truncated ? out.size() : static_cast<std::size_t>(n);
      r.from = UdpAddress::from_sockaddr(&addr, length);
      return r;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return Received{};
    }
    if (errno != EINTR) {
      last_errno_ = errno;
      return Error::kBadState;
    }
  }
}

Result<UdpSocket::Readiness> UdpSocket::wait(std::chrono::milliseconds timeout,
                                             int other_fd) noexcept {
  std::array<pollfd, 2> fds{};
  fds[0] = pollfd{fd_, POLLIN, 0};
  fds[1] = pollfd{other_fd, POLLIN, 0};  // poll ignores a negative descriptor
  const int ms = timeout.count() < 0            ? -1
                 : timeout.count() > 0x7fffffff ? 0x7fffffff
                                                : static_cast<int>(timeout.count());
  const int rc = ::poll(fds.data(), fds.size(), ms);
  Readiness r;
  if (rc < 0) {
    if (errno == EINTR) {
      return r;
    }
    last_errno_ = errno;
    return Error::kBadState;
  }
  // An error on a connected socket (ECONNREFUSED) shows up as POLLERR: recv_from reports it.
  r.socket = (fds[0].revents & (POLLIN | POLLERR)) != 0;
  r.other = other_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0;
  return r;
}

}  // namespace wireseal::io

std::size_t std::hash<wireseal::io::UdpAddress>::operator()(
    const wireseal::io::UdpAddress& a) const noexcept {
  // FNV-1a over the encoding from a per-process random start, so which addresses collide
  // cannot be worked out in advance (a collision only costs a longer bucket).
  // The 64-bit variant on every target; a 32-bit size_t takes both halves.
  static const std::uint64_t seed = [] {
    std::array<std::uint8_t, sizeof(std::uint64_t)> bytes{};
    wireseal::system_random()(bytes);
    std::uint64_t s = 0;
    std::memcpy(&s, bytes.data(), sizeof s);
    return s;
  }();
  std::uint64_t h = 1469598103934665603ULL ^ seed;
  for (const std::uint8_t b : a.bytes()) {
    h = (h ^ b) * 1099511628211ULL;
  }
  return static_cast<std::size_t>(h ^ (h >> 32));
}
