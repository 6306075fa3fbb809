// Shared by the dtls_endpoint fuzz target and its seed generator: the input format and the
// deterministic configurations both use.
//
// Input: one selector byte (bit 0: the endpoint is the server; bit 1: PSK instead of an ECDSA
// certificate), then datagrams, each a 2-byte big-endian length and that many bytes; an empty
// datagram means "1.5 s pass" (handle_timeout). The endpoint's randomness is a counter, so a
// recorded handshake replays to the same randoms and its signatures still verify.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"

namespace wireseal::fuzz {

inline constexpr std::uint8_t kEndpointServer = 1;
inline constexpr std::uint8_t kEndpointPsk = 2;

// CountingRandom fills with a running byte counter: reset() before each input.
struct CountingRandom {
  std::uint8_t next = 1;
  static void fill(void* self, std::span<std::uint8_t> out) noexcept {
    auto* r = static_cast<CountingRandom*>(self);
    for (std::uint8_t& b : out) {
      b = r->next++;
    }
  }
};

inline std::shared_ptr<dtls::EndpointConfig> fuzz_endpoint_config(std::uint8_t selector,
                                                                  CountingRandom& random) {
  auto c = std::make_shared<dtls::EndpointConfig>();
  c->role = (selector & kEndpointServer) != 0 ? dtls::Role::kServer : dtls::Role::kClient;
  c->random = RandomSource{&CountingRandom::fill, &random};
  c->allow_unauthenticated_peer = true;  // reach every state; authentication is tested elsewhere
  c->srtp_profiles = {1, 7};
  c->mtu = 600;
  c->handshake_timeout = std::chrono::seconds(30);
  if ((selector & kEndpointPsk) != 0) {
    c->psk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    c->psk_identity = {'f', 'u', 'z', 'z'};
    c->cipher_suites = {0x00A8, 0xCCAC, 0x00AE, 0xC037};
  } else {
    c->cipher_suites = {0xC02B, 0xCCA9, 0xC0AE, 0xC023};
    if (c->role == dtls::Role::kServer) {
      Result<crypto::CertifiedKey> id = crypto::generate_self_signed(crypto::KeyType::kEcP256);
      if (id) {
        c->certificate.emplace(std::move(*id));
      }
    }
  }
  return c;
}

}  // namespace wireseal::fuzz
