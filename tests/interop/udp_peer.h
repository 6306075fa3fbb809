// start_udp_peer: a peer server (s_server, gnutls-serv, …) started on a free UDP port of
// 127.0.0.1, for the interop tests that run in parallel.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "udp_relay.h"

namespace wireseal::interop {

// start_udp_peer starts a peer server with argv_for(port) on a free port, trying another when
// a parallel test took the port first (the peer then exits on its failed bind). Returns the
// port it listens on, or 0 when no attempt worked.
inline std::uint16_t start_udp_peer(
    const std::function<std::vector<std::string>(std::uint16_t)>& argv_for,
    std::optional<ChildProcess>& peer, const std::string& stderr_path) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::uint16_t port = free_udp_port();
    peer.emplace(argv_for(port), stderr_path);
    const auto ready = std::chrono::steady_clock::now() + std::chrono::milliseconds(5000);
    while (!udp_port_in_use(port) && !peer->wait_exit(std::chrono::milliseconds(0)) &&
           std::chrono::steady_clock::now() < ready) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (udp_port_in_use(port) && !peer->wait_exit(std::chrono::milliseconds(20))) {
      return port;
    }
    peer->stop();
  }
  return 0;
}

// start_s_server starts `openssl s_server` (`argv` without -accept) on a free port of
// 127.0.0.1, to serve `associations` clients and exit; the port, or 0 as start_udp_peer.
inline std::uint16_t start_s_server(const std::vector<std::string>& argv, int associations,
                                    std::optional<ChildProcess>& peer,
                                    const std::string& stderr_path) {
  return start_udp_peer(
      [&argv, associations](std::uint16_t port) {
        std::vector<std::string> with_port = argv;
        with_port.insert(with_port.end(), {"-accept", "127.0.0.1:" + std::to_string(port),
                                           "-naccept", std::to_string(associations)});
        return with_port;
      },
      peer, stderr_path);
}

}  // namespace wireseal::interop
