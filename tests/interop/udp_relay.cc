#include "udp_relay.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace wireseal::interop {
namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// The sockets API takes sockaddr*; sockaddr_in is layout-compatible by design.
sockaddr* as_sockaddr(sockaddr_in* a) { return reinterpret_cast<sockaddr*>(a); }
const sockaddr* as_sockaddr(const sockaddr_in* a) { return reinterpret_cast<const sockaddr*>(a); }

// bound_udp_socket returns a UDP socket bound to 127.0.0.1:`port` and the port it got, or
// -1 (errno set).
int bound_udp_socket(std::uint16_t port, std::uint16_t* bound_port) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return -1;
  }
  sockaddr_in a = loopback(port);
  socklen_t len = sizeof a;
  if (::bind(fd, as_sockaddr(&a), sizeof a) != 0 || ::getsockname(fd, as_sockaddr(&a), &len) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  if (bound_port != nullptr) {
    *bound_port = ntohs(a.sin_port);
  }
  return fd;
}

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

std::uint16_t free_udp_port() {
  std::uint16_t port = 0;
  const int fd = bound_udp_socket(0, &port);
  if (fd < 0) {
    throw std::runtime_error(std::string("cannot bind a UDP socket: ") + std::strerror(errno));
  }
  ::close(fd);
  return port;
}

bool udp_port_in_use(std::uint16_t port) {
  const int fd = bound_udp_socket(port, nullptr);
  if (fd >= 0) {
    ::close(fd);
    return false;
  }
  return errno == EADDRINUSE;
}

UdpRelay::UdpRelay(std::uint16_t server_port, Transform transform,
                   std::chrono::milliseconds max_lifetime, Impairment impairment)
    : transform_(std::move(transform)), impairment_(impairment), rng_(impairment.seed) {
  listen_fd_ = bound_udp_socket(0, &listen_port_);
  upstream_fd_ = bound_udp_socket(0, nullptr);
  const sockaddr_in server = loopback(server_port);
  if (listen_fd_ < 0 || upstream_fd_ < 0 ||
      ::connect(upstream_fd_, as_sockaddr(&server), sizeof server) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) {
      ::close(listen_fd_);
    }
    if (upstream_fd_ >= 0) {
      ::close(upstream_fd_);
    }
    throw std::runtime_error("UdpRelay: cannot set up sockets: " + why);
  }
  const auto deadline = std::chrono::steady_clock::now() + max_lifetime;
  thread_ = std::thread([this, deadline] { run(deadline); });
}

UdpRelay::~UdpRelay() {
  stop();
  ::close(listen_fd_);
  ::close(upstream_fd_);
}

void UdpRelay::stop() {
  stop_ = true;
  if (thread_.joinable()) {
    thread_.join();
  }
}

std::optional<std::uint16_t> UdpRelay::client_port() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!client_) {
    return std::nullopt;
  }
  return ntohs(client_->sin_port);
}

std::vector<RelayedDatagram> UdpRelay::datagrams() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return datagrams_;
}

void UdpRelay::forward(bool from_client, std::vector<std::uint8_t> datagram,
                       const std::function<void(const std::vector<std::uint8_t>&)>& send) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (coin(rng_) < impairment_.loss) {
    return;
  }
  std::optional<std::vector<std::uint8_t>>& held = held_[from_client ? 1 : 0];
  if (!held && coin(rng_) < impairment_.reorder) {
    held = std::move(datagram);  // goes out after the next one this way
    return;
  }
  send(datagram);
  if (coin(rng_) < impairment_.duplicate) {
    send(datagram);
  }
  if (held) {
    send(*held);
    held.reset();
  }
}

std::vector<std::uint8_t> UdpRelay::relay(bool from_client, const std::uint8_t* data,
                                          std::size_t len) {
  std::vector<std::uint8_t> bytes(data, data + len);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    datagrams_.push_back(RelayedDatagram{from_client, now_ns(), bytes});
  }
  return transform_ ? transform_(from_client, bytes) : bytes;
}

void UdpRelay::run(std::chrono::steady_clock::time_point deadline) {
  std::uint8_t buf[65536];
  while (!stop_ && std::chrono::steady_clock::now() < deadline) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {upstream_fd_, POLLIN, 0}};
    if (::poll(fds, 2, 20) <= 0) {
      continue;  // timeout or EINTR: re-check the stop flag and the deadline
    }
    if ((fds[0].revents & POLLIN) != 0) {
      sockaddr_in from{};
      socklen_t from_len = sizeof from;
      const ssize_t n = ::recvfrom(listen_fd_, buf, sizeof buf, 0, as_sockaddr(&from), &from_len);
      if (n >= 0) {
        {
          const std::lock_guard<std::mutex> lock(mutex_);
          client_ = from;
        }
        // Recorded before forwarding: whatever a peer has received is in the capture.
        forward(true, relay(true, buf, static_cast<std::size_t>(n)),
                [this](const std::vector<std::uint8_t>& d) {
                  (void)::send(upstream_fd_, d.data(), d.size(), 0);
                });
      }
    }
    if ((fds[1].revents & (POLLIN | POLLERR)) != 0) {
      const ssize_t n = ::recv(upstream_fd_, buf, sizeof buf, 0);
      std::optional<sockaddr_in> client;
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        client = client_;
      }
      if (n >= 0 && client) {
        const sockaddr_in to = *client;
        forward(false, relay(false, buf, static_cast<std::size_t>(n)),
                [this, &to](const std::vector<std::uint8_t>& d) {
                  (void)::sendto(listen_fd_, d.data(), d.size(), 0, as_sockaddr(&to), sizeof to);
                });
      }
    }
  }
}

}  // namespace wireseal::interop
