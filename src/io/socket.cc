// Loopback TCP streams (POSIX sockets): the only SMB transport code that touches the OS.
#include "wireseal/io/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace wireseal::io {
namespace {

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

sockaddr_in loopback(std::uint16_t port) noexcept {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

void set_nodelay(int fd) noexcept {
  const int one = 1;
  static_cast<void>(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
}

// os_error is the Error of a failed recv or send.
Error os_error(int e) noexcept {
  if (e == EAGAIN || e == EWOULDBLOCK) {
    return Error::kTimedOut;
  }
  if (e == ECONNRESET || e == EPIPE) {
    return Error::kClosed;
  }
  return Error::kBadState;
}

}  // namespace

TcpStream::~TcpStream() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

TcpStream::TcpStream(TcpStream&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), last_errno_(other.last_errno_) {}

TcpStream& TcpStream::operator=(TcpStream&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = std::exchange(other.fd_, -1);
    last_errno_ = other.last_errno_;
  }
  return *this;
}

TcpStream TcpStream::connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw_errno("socket");
  }
  TcpStream stream(fd);
  const sockaddr_in addr = loopback(port);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    throw_errno("connect");
  }
  set_nodelay(fd);
  return stream;
}

TcpStream TcpStream::connect(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    throw std::system_error(std::make_error_code(std::errc::host_unreachable),
                            "resolve " + host + ": " + ::gai_strerror(rc));
  }
  int last = ECONNREFUSED;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = errno;
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ::freeaddrinfo(found);
      set_nodelay(fd);
      return TcpStream(fd);
    }
    last = errno;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  errno = last;
  throw_errno("connect");
}

void TcpStream::set_timeout(std::chrono::milliseconds limit) noexcept {
  const auto ms = limit.count();
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(ms / 1000);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>((ms % 1000) * 1000);
  static_cast<void>(setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
  static_cast<void>(setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv));
}

Result<std::size_t> TcpStream::read(std::span<std::uint8_t> out) noexcept {
  for (;;) {
    const ssize_t n = ::recv(fd_, out.data(), out.size(), 0);
    if (n >= 0) {
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR) {
      last_errno_ = errno;
      return os_error(errno);
    }
  }
}

Status TcpStream::write_all(std::span<const std::uint8_t> data) noexcept {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      last_errno_ = errno;
      return os_error(errno);
    }
    data = data.subspan(static_cast<std::size_t>(n));
  }
  return {};
}

TcpListener::TcpListener(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    throw_errno("socket");
  }
  const int one = 1;
  static_cast<void>(setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  sockaddr_in addr = loopback(port);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd_, 8) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    throw_errno("bind/listen");
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    ::close(fd_);
    errno = e;
    throw_errno("getsockname");
  }
  port_ = ntohs(addr.sin_port);
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

TcpStream TcpListener::accept() {
  for (;;) {
    const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nodelay(fd);
      return TcpStream(fd);
    }
    if (errno != EINTR) {
      throw_errno("accept");
    }
  }
}

}  // namespace wireseal::io
