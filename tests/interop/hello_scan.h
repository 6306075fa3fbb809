#pragma once
// The test's own reading of the plaintext hellos of a captured DTLS 1.2 handshake:
// deliberately independent of the CLI's parser (tools/wireseal/dtls_handshake.cc), so the
// interop test's expectations do not come from the code it checks.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "udp_relay.h"

namespace wireseal::interop {

struct HelloFacts {
  std::array<std::uint8_t, 32> client_random{};
  std::array<std::uint8_t, 32> server_random{};
  std::uint16_t cipher_suite = 0;
  bool encrypt_then_mac = false;        // ServerHello echoed extension 22
  bool extended_master_secret = false;  // ServerHello echoed extension 23
};

// scan_hellos finds the (unfragmented) ClientHello and ServerHello in epoch-0 handshake
// records; nullopt with `error` set if either is missing or does not parse.
std::optional<HelloFacts> scan_hellos(const std::vector<RelayedDatagram>& datagrams,
                                      std::string* error);

}  // namespace wireseal::interop
