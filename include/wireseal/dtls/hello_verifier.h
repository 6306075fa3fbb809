// HelloVerifier: the server's stateless cookie exchange (RFC 6347 §4.2.1), run on every
// datagram from an address that has no association yet, before any per-client state exists.
//
//   verdict = verifier.check(peer_address, datagram, reply)
//   kAccept → create the server Endpoint and hand it this datagram
//   kReply  → send reply[0, size) (a HelloVerifyRequest) and forget the datagram
//   kDrop   → not a ClientHello we can answer: forget it
//
// The cookie is an HMAC-SHA256, under a secret the caller supplies and rotates, of the
// client's address and of its hello without the cookie, so only a client that receives at
// that address can return it, and a returned cookie fits only the hello it was made for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

class HelloVerifier {
 public:
  static constexpr std::size_t kSecretSize = 32;
  static constexpr std::size_t kCookieSize = 1 + 20;  // secret generation byte + truncated MAC

  explicit HelloVerifier(std::span<const std::uint8_t, kSecretSize> secret) noexcept;
  ~HelloVerifier();
  HelloVerifier(const HelloVerifier&) = delete;
  HelloVerifier& operator=(const HelloVerifier&) = delete;

  // rotate starts issuing cookies under `secret`; cookies of the previous secret stay valid
  // until the next rotation, so a client in the middle of the exchange is not turned away.
  void rotate(std::span<const std::uint8_t, kSecretSize> secret) noexcept;

  enum class Verdict : std::uint8_t { kAccept, kReply, kDrop };
  struct Outcome {
    Verdict verdict = Verdict::kDrop;
    std::size_t size = 0;  // kReply: the HelloVerifyRequest datagram's length
  };

  // check reads the ClientHello in `datagram`, whole or in fragments over several records of
  // it (up to kMaxHelloSize bytes of body); anything else is dropped. `reply` must hold
  // kMaxReplySize bytes.
  Outcome check(std::span<const std::uint8_t> peer_address, std::span<const std::uint8_t> datagram,
                std::span<std::uint8_t> reply) const noexcept;
  static constexpr std::size_t kMaxReplySize = 13 + 12 + 3 + kCookieSize;
  // The longest ClientHello checked; hellos with post-quantum key shares take about 1.5 KB.
  static constexpr std::size_t kMaxHelloSize = 4096;

 private:
  struct Secret {
    std::array<std::uint8_t, kSecretSize> bytes{};
    std::uint8_t generation = 0;
  };
  void cookie_for(const Secret& secret, std::span<const std::uint8_t> peer_address,
                  std::span<const std::uint8_t> hello_without_cookie_head,
                  std::span<const std::uint8_t> hello_after_cookie,
                  std::span<std::uint8_t, kCookieSize> out) const noexcept;

  Secret current_;
  Secret previous_;
  bool has_previous_ = false;
};

}  // namespace wireseal::dtls
