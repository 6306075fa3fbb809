// srtp/<profile>_rtcp_{protect,unprotect}[_batch16]/<impl>/<length>: SRTCP protect and
// unprotect of RTCP packets of <length> bytes from one SSRC, wireseal against libsrtp (the
// OpenSSL EVP baseline of bench/srtp_fixture.h speaks SRTP only). 60 bytes is a sender report
// with one report block, 100 adds SDES, 200 a compound packet with feedback.
//
//  - protect: in place; each call takes the stream's next SRTCP index, as a sender does.
//  - unprotect: packets copied from a ring of kRing pre-protected ones into work buffers and
//    unprotected in place; each lap the receiver forgets the stream (wireseal: remove_stream,
//    a receiver's stream leaves nothing behind; libsrtp: srtp_remove_stream on its inbound
//    template), amortised over the ring, so its SRTCP replay window lets the ring's indices in
//    again.
//  - _batch16: 16 packets per call (wireseal's *_rtcp_batch; libsrtp loops). ns/op, MB/s and
//    allocs/op are per packet.
#include <array>
#include <cstring>
#include <memory>
#include <string>

#include "bench/srtp_fixture.h"
#include "bench/suites.h"

namespace wireseal::bench {
namespace {

using namespace srtp_bench;

constexpr std::size_t kRtcpLengths[] = {60, 100, 200};

// The profiles whose SRTCP differs in kind: HMAC-SHA1 with AES-CM, and AES-GCM.
constexpr ProfileCase kRtcpProfiles[] = {kProfiles[0], kProfiles[8]};

std::string op_name(const ProfileCase& c, const char* what) {
  return std::string(c.name) + "_rtcp_" + what;
}

// Packets holds kBatch RTCP packets of one length and their batch jobs.
struct Packets {
  explicit Packets(std::size_t len) {
    for (Bytes& b : bufs) {
      b = rtcp_packet(len);
    }
  }
  std::array<Bytes, kBatch> bufs;
  std::array<srtp::PacketJob, kBatch> jobs{};
};

bool all_ok(const std::array<srtp::PacketJob, kBatch>& jobs) noexcept {
  bool ok = true;
  for (const srtp::PacketJob& j : jobs) {
    ok = ok && j.status.has_value();
  }
  return ok;
}

// ---- protect

auto wireseal_protect(srtp::Profile p, std::size_t len) {
  auto session = std::make_unique<srtp::Session>(make_session(p));
  Bytes buf = rtcp_packet(len);
  return timed([session = std::move(session), buf = std::move(buf),
                len]() mutable noexcept { return session->protect_rtcp(buf, len).has_value(); },
               len);
}

auto wireseal_protect_batch(srtp::Profile p, std::size_t len) {
  auto session = std::make_unique<srtp::Session>(make_session(p));
  auto b = std::make_unique<Packets>(len);
  return timed(
      [session = std::move(session), b = std::move(b), len]() mutable noexcept {
        for (std::size_t i = 0; i < kBatch; ++i) {
          b->jobs[i].buffer = b->bufs[i];
          b->jobs[i].length = len;
        }
        session->protect_rtcp_batch(b->jobs);
        return all_ok(b->jobs);
      },
      len);
}

auto libsrtp_protect(srtp::Profile p, std::size_t len) {
  auto s = std::make_unique<LibsrtpSession>(p);
  Bytes buf = rtcp_packet(len);
  return timed([s = std::move(s), buf = std::move(buf),
                len]() mutable noexcept { return s->protect_rtcp(buf.data(), len) != 0; },
               len);
}

// ---- unprotect

std::unique_ptr<UnprotectRing> wireseal_ring(srtp::Profile p, std::size_t len) {
  srtp::Session tx = make_session(p);
  return std::make_unique<UnprotectRing>(
      len,
      [&tx](Bytes& b, std::size_t n, std::uint16_t) {
        Result<std::size_t> r = tx.protect_rtcp(b, n);
        return r ? *r : 0;
      },
      RingKind::kRtcp);
}

// forget_on_lap: a new lap of the ring starts with a receiver that has not seen its indices.
bool forget_on_lap(srtp::Session& rx, const RingCursor& cur) noexcept {
  return !cur.at_start() || !rx.has_stream(kSsrc) || rx.remove_stream(kSsrc).has_value();
}

auto wireseal_unprotect(srtp::Profile p, std::size_t len) {
  auto ring = wireseal_ring(p, len);
  auto rx = std::make_unique<srtp::Session>(make_session(p));
  Bytes work(len + kRoom + 32);
  RingCursor cur;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), work = std::move(work), cur]() mutable noexcept {
        if (!forget_on_lap(*rx, cur)) {
          return false;
        }
        const std::size_t i = cur.take();
        std::memcpy(work.data(), ring->packets[i].data(), ring->lengths[i]);
        return rx->unprotect_rtcp(std::span<std::uint8_t>(work.data(), ring->lengths[i]))
            .has_value();
      },
      len);
}

auto wireseal_unprotect_batch(srtp::Profile p, std::size_t len) {
  auto ring = wireseal_ring(p, len);
  auto rx = std::make_unique<srtp::Session>(make_session(p));
  auto b = std::make_unique<Packets>(len);
  RingCursor cur;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), b = std::move(b), cur]() mutable noexcept {
        if (!forget_on_lap(*rx, cur)) {  // kRing is a multiple of kBatch: laps start a batch
          return false;
        }
        for (std::size_t j = 0; j < kBatch; ++j) {
          const std::size_t i = cur.take();
          std::memcpy(b->bufs[j].data(), ring->packets[i].data(), ring->lengths[i]);
          b->jobs[j].buffer = std::span<std::uint8_t>(b->bufs[j].data(), ring->lengths[i]);
          b->jobs[j].length = ring->lengths[i];
        }
        rx->unprotect_rtcp_batch(b->jobs);
        return all_ok(b->jobs);
      },
      len);
}

auto libsrtp_unprotect(srtp::Profile p, std::size_t len) {
  return ring_unprotect<RingKind::kRtcp>(libsrtp_pair(p), len);
}

}  // namespace

void register_srtcp_protect() {
  for (const ProfileCase& c : kRtcpProfiles) {
    const srtp::Profile p = c.profile;
    const std::string protect = op_name(c, "protect");
    register_op(
        "srtp", protect, kWireseal, [p](std::size_t n) { return wireseal_protect(p, n); },
        kRtcpLengths);
    register_op(
        "srtp", protect, kLibsrtp, [p](std::size_t n) { return libsrtp_protect(p, n); },
        kRtcpLengths);
    const std::string protect_batch = op_name(c, "protect_batch16");
    register_batch_op(
        protect_batch, kWireseal, [p](std::size_t n) { return wireseal_protect_batch(p, n); },
        kRtcpLengths);
    register_batch_op(protect_batch, kLibsrtp,
                      looped([p](std::size_t n) { return libsrtp_protect(p, n); }), kRtcpLengths);
    const std::string unprotect = op_name(c, "unprotect");
    register_op(
        "srtp", unprotect, kWireseal, [p](std::size_t n) { return wireseal_unprotect(p, n); },
        kRtcpLengths);
    register_op(
        "srtp", unprotect, kLibsrtp, [p](std::size_t n) { return libsrtp_unprotect(p, n); },
        kRtcpLengths);
    const std::string unprotect_batch = op_name(c, "unprotect_batch16");
    register_batch_op(
        unprotect_batch, kWireseal, [p](std::size_t n) { return wireseal_unprotect_batch(p, n); },
        kRtcpLengths);
    register_batch_op(unprotect_batch, kLibsrtp,
                      looped([p](std::size_t n) { return libsrtp_unprotect(p, n); }), kRtcpLengths);
  }
}

}  // namespace wireseal::bench
