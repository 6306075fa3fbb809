// Shared by the dtls_endpoint fuzz target and its seed generator: the input format and the
// deterministic configurations both use.
//
// Input: one selector byte (bit 0: the endpoint is the server; bit 1: PSK instead of an ECDSA
// certificate; bit 2: resumption — the server opens tickets under fixed keys, the client
// offers fuzz_saved_session), then datagrams, each a 2-byte big-endian length and that many bytes;
// an empty datagram means "1.5 s pass" (handle_timeout). The endpoint's randomness is a counter, so
// a recorded handshake replays to the same randoms and its signatures still verify.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/session.h"

namespace wireseal::fuzz {

inline constexpr std::uint8_t kEndpointServer = 1;
inline constexpr std::uint8_t kEndpointPsk = 2;
inline constexpr std::uint8_t kEndpointResume = 4;
inline constexpr std::uint8_t kEndpointSelectors = 8;

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

// fuzz_ticket_keys: the kEndpointResume server's ticket keys, under a fixed secret.
inline std::shared_ptr<dtls::SessionTicketKeys> fuzz_ticket_keys() {
  static const std::shared_ptr<dtls::SessionTicketKeys> keys = [] {
    std::array<std::uint8_t, dtls::SessionTicketKeys::kSecretSize> secret{};
    secret.fill(0x7e);
    return std::make_shared<dtls::SessionTicketKeys>(secret);
  }();
  return keys;
}

// fuzz_saved_session is what a kEndpointResume client offers: a fixed master secret in a
// ticket sealed under fuzz_ticket_keys() with counting salt, so the same bytes every run and
// a recorded resumption (which has no key exchange) replays to the end.
inline dtls::Session fuzz_saved_session(bool psk) {
  dtls::Session s;
  s.cipher_suite = psk ? 0x00A8 : 0xC02B;
  s.extended_master_secret = true;
  s.peer_auth = psk ? dtls::PeerAuth::kPsk : dtls::PeerAuth::kNone;
  s.master_secret.fill(0x3c);
  CountingRandom salt;
  s.ticket.resize(fuzz_ticket_keys()->sealed_size(s));
  (void)fuzz_ticket_keys()->seal(s, RandomSource{&CountingRandom::fill, &salt}, s.ticket);
  return s;
}

inline std::shared_ptr<dtls::EndpointConfig> fuzz_endpoint_config(std::uint8_t selector,
                                                                  CountingRandom& random) {
  auto c = std::make_shared<dtls::EndpointConfig>();
  c->role = (selector & kEndpointServer) != 0 ? dtls::Role::kServer : dtls::Role::kClient;
  c->random = RandomSource{&CountingRandom::fill, &random};
  c->allow_unauthenticated_peer = true;  // reach every state; authentication is tested elsewhere
  c->srtp_profiles = {1, 7};
  c->alpn_protocols = {"webrtc", "coap"};
  c->connection_id = c->role == dtls::Role::kServer ? std::vector<std::uint8_t>{0x5e, 0x7e, 0x9e}
                                                    : std::vector<std::uint8_t>{0xc1};
  c->mtu = 600;
  c->handshake_timeout = std::chrono::seconds(30);
  if ((selector & kEndpointResume) != 0) {
    if (c->role == dtls::Role::kServer) {
      c->session_ticket_keys = fuzz_ticket_keys();
    } else {
      c->session_tickets = true;
    }
  }
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
