// The pion/srtp benchmark suite, mirrored (srtp_test.go / context_test.go of pion/srtp v2):
//   BenchmarkGenerateCounter      -> srtp/generate_counter/wireseal/0 (the AES-CM IV of
//                                    RFC 3711 §4.1.1 from salt, SSRC and index; pion PR #201)
//   BenchmarkEncryptRTP/CTR-100.. -> srtp/encrypt_rtp_{ctr,gcm}/<impl>/{100,1000}: protect into
//                                    a separate output buffer (pion's dst != plaintext)
//   BenchmarkEncryptRTPInPlace    -> srtp/encrypt_rtp_inplace_{ctr,gcm}/<impl>/{100,1000}
//   BenchmarkDecryptRTP           -> srtp/decrypt_rtp_{ctr,gcm}/<impl>/{100,1000}: unprotect into
//                                    a separate buffer, from a ring of pre-protected packets
// CTR is AES_CM_128_HMAC_SHA1_80, GCM is AEAD_AES_128_GCM; sizes are RTP payload bytes. pion's
// Write/WriteRTP go through a net.Conn; their equivalent here is the session itself, so these
// rows already include the SSRC lookup and replay/ROC bookkeeping. libsrtp works in place
// only: its out-of-place rows copy the packet first, as a libsrtp user must.
#include <cstring>
#include <memory>
#include <string>

#include "bench/srtp_fixture.h"
#include "bench/suites.h"
#include "srtp/keystream.h"

namespace wireseal::bench {
namespace {

using namespace srtp_bench;

constexpr std::size_t kPionSizes[] = {100, 1000};

struct PionCase {
  const char* suffix;
  srtp::Profile profile;
};
constexpr PionCase kPionCases[] = {{"ctr", srtp::Profile::kAes128CmHmacSha1_80},
                                   {"gcm", srtp::Profile::kAeadAes128Gcm}};

auto generate_counter(std::size_t) {
  const Bytes salt = pattern(14, 3);
  std::array<std::uint8_t, 14> s{};
  std::copy(salt.begin(), salt.end(), s.begin());
  std::uint64_t index = 0;
  return timed(
      [s, index]() mutable noexcept {
        srtp::detail::Iv16 iv = srtp::detail::cm_iv(s, kSsrc, ++index);
        benchmark::DoNotOptimize(iv);
        return true;
      },
      0);
}

auto wireseal_encrypt(srtp::Profile p, std::size_t size, bool in_place) {
  auto session = std::make_unique<srtp::Session>(make_session(p));
  Bytes in = rtp_packet(0, size);
  Bytes out(in.size());
  std::uint16_t seq = 0;
  return timed(
      [session = std::move(session), in = std::move(in), out = std::move(out), seq, size,
       in_place]() mutable noexcept {
        set_sequence(in.data(), ++seq);
        if (in_place) {
          return session->protect_rtp(in, 12 + size).has_value();
        }
        return session->protect_rtp(std::span<const std::uint8_t>(in.data(), 12 + size), out)
            .has_value();
      },
      size);
}

auto openssl_encrypt(srtp::Profile p, std::size_t size, bool in_place) {
  auto o = std::make_unique<OpensslSrtp>(p);
  Bytes in = rtp_packet(0, size);
  Bytes out(in.size());
  std::uint64_t index = 0;
  return timed(
      [o = std::move(o), in = std::move(in), out = std::move(out), index, size,
       in_place]() mutable noexcept {
        ++index;
        set_sequence(in.data(), static_cast<std::uint16_t>(index));
        return o->protect(in.data(), 12 + size, in_place ? in.data() : out.data(), index) != 0;
      },
      size);
}

auto libsrtp_encrypt(srtp::Profile p, std::size_t size, bool in_place) {
  auto s = std::make_unique<LibsrtpSession>(p);
  Bytes in = rtp_packet(0, size);
  Bytes out(in.size());
  std::uint16_t seq = 0;
  return timed(
      [s = std::move(s), in = std::move(in), out = std::move(out), seq, size,
       in_place]() mutable noexcept {
        set_sequence(in.data(), ++seq);
        if (in_place) {
          return s->protect(in.data(), 12 + size) != 0;
        }
        std::memcpy(out.data(), in.data(), 12 + size);
        return s->protect(out.data(), 12 + size) != 0;
      },
      size);
}

auto wireseal_decrypt(srtp::Profile p, std::size_t size) {
  srtp::Session tx = make_session(p);
  auto ring = std::make_unique<UnprotectRing>(size, [&tx](Bytes& b, std::size_t n, std::uint16_t) {
    Result<std::size_t> r = tx.protect_rtp(b, n);
    return r ? *r : 0;
  });
  auto rx = std::make_unique<srtp::Session>(make_session(p));
  Bytes out(12 + size + kRoom);
  RingCursor cur;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), out = std::move(out), cur]() mutable noexcept {
        if (cur.at_start()) {
          (void)rx->set_roc(kSsrc, 0);  // a new lap of the ring: forget the replay window
        }
        const std::size_t i = cur.take();
        return rx
            ->unprotect_rtp(
                std::span<const std::uint8_t>(ring->packets[i].data(), ring->lengths[i]), out)
            .has_value();
      },
      size);
}

auto openssl_decrypt(srtp::Profile p, std::size_t size) {
  auto o = std::make_unique<OpensslSrtp>(p);
  auto ring =
      std::make_unique<UnprotectRing>(size, [&o](Bytes& b, std::size_t n, std::uint16_t seq) {
        return o->protect(b.data(), n, b.data(), seq);
      });
  Bytes out(12 + size + kRoom);
  RingCursor cur;
  return timed(
      [o = std::move(o), ring = std::move(ring), out = std::move(out), cur]() mutable noexcept {
        const std::size_t i = cur.take();
        return o->unprotect(ring->packets[i].data(), ring->lengths[i], out.data(), i) != 0;
      },
      size);
}

auto libsrtp_decrypt(srtp::Profile p, std::size_t size) {
  return ring_unprotect(libsrtp_pair(p), size);
}

}  // namespace

void register_srtp_pion() {
  static constexpr std::size_t kNoSize[] = {0};
  register_op("srtp", "generate_counter", kWireseal, generate_counter, kNoSize);
  for (const PionCase& c : kPionCases) {
    const srtp::Profile p = c.profile;
    for (const bool in_place : {false, true}) {
      const std::string op =
          std::string(in_place ? "encrypt_rtp_inplace_" : "encrypt_rtp_") + c.suffix;
      register_op(
          "srtp", op, kWireseal,
          [p, in_place](std::size_t s) { return wireseal_encrypt(p, s, in_place); }, kPionSizes);
      register_op(
          "srtp", op, kOpenSsl,
          [p, in_place](std::size_t s) { return openssl_encrypt(p, s, in_place); }, kPionSizes);
      register_op(
          "srtp", op, kLibsrtp,
          [p, in_place](std::size_t s) { return libsrtp_encrypt(p, s, in_place); }, kPionSizes);
    }
    const std::string op = std::string("decrypt_rtp_") + c.suffix;
    register_op(
        "srtp", op, kWireseal, [p](std::size_t s) { return wireseal_decrypt(p, s); }, kPionSizes);
    register_op(
        "srtp", op, kOpenSsl, [p](std::size_t s) { return openssl_decrypt(p, s); }, kPionSizes);
    register_op(
        "srtp", op, kLibsrtp, [p](std::size_t s) { return libsrtp_decrypt(p, s); }, kPionSizes);
  }
}

}  // namespace wireseal::bench
