#pragma once
// UdpRelay: a man in the middle on 127.0.0.1 that forwards every datagram between a DTLS
// client and server unchanged and records it with its direction and arrival time. The relay
// thread polls with a short timeout and also stops by itself after a hard deadline, so it can
// never hold up the test.

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace wireseal::interop {

struct RelayedDatagram {
  bool from_client;
  std::uint64_t timestamp_ns;  // system clock, since the Unix epoch
  std::vector<std::uint8_t> bytes;
};

// free_udp_port binds a UDP socket to 127.0.0.1:0 and returns the port the kernel chose (the
// socket is closed again, so the port is free for a child process to bind).
std::uint16_t free_udp_port();

// udp_port_in_use is true when something is bound to 127.0.0.1:`port` (probe bind fails).
bool udp_port_in_use(std::uint16_t port);

// Impairment makes the relay a bad link, per datagram and direction, from a seeded generator:
// drop it, send it twice, or hold it back until the next datagram the same way has passed.
struct Impairment {
  double loss = 0;
  double duplicate = 0;
  double reorder = 0;
  std::uint32_t seed = 1;
};

class UdpRelay {
 public:
  // Transform may rewrite a datagram in flight (it runs on the relay thread); the original is
  // what gets recorded.
  using Transform =
      std::function<std::vector<std::uint8_t>(bool from_client, const std::vector<std::uint8_t>&)>;

  // UdpRelay listens on an ephemeral port for the client and forwards to 127.0.0.1:`server_port`
  // from a second ephemeral socket. Throws std::runtime_error if the sockets cannot be set up.
  explicit UdpRelay(std::uint16_t server_port, Transform transform = {},
                    std::chrono::milliseconds max_lifetime = std::chrono::seconds(30),
                    Impairment impairment = {});
  ~UdpRelay();
  UdpRelay(const UdpRelay&) = delete;
  UdpRelay& operator=(const UdpRelay&) = delete;

  std::uint16_t listen_port() const noexcept { return listen_port_; }
  // client_port is the client's source port, once it has sent something.
  std::optional<std::uint16_t> client_port() const;

  void stop();
  std::vector<RelayedDatagram> datagrams() const;

 private:
  void run(std::chrono::steady_clock::time_point deadline);
  // relay records a datagram and returns the bytes to forward.
  std::vector<std::uint8_t> relay(bool from_client, const std::uint8_t* data, std::size_t len);
  // forward sends a datagram on through the impairment; `send` puts one on the wire.
  void forward(bool from_client, std::vector<std::uint8_t> datagram,
               const std::function<void(const std::vector<std::uint8_t>&)>& send);

  int listen_fd_ = -1;
  int upstream_fd_ = -1;
  std::uint16_t listen_port_ = 0;
  Transform transform_;
  Impairment impairment_;
  std::mt19937 rng_;
  std::optional<std::vector<std::uint8_t>> held_[2];  // held back, per direction
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::optional<sockaddr_in> client_;
  std::vector<RelayedDatagram> datagrams_;
  std::thread thread_;
};

}  // namespace wireseal::interop
