// srtp/<profile>_{protect,unprotect}[_batch16]/<impl>/<payload>: SRTP protect and unprotect of
// one RTP stream (12-byte header + payload) for every profile, wireseal against the OpenSSL EVP
// baseline and libsrtp (bench/srtp_fixture.h).
//
//  - protect: in place, the sequence number advanced per packet (a real sender's shape).
//  - unprotect: the packet is copied from a ring of kRing pre-protected packets into the work
//    buffer, then unprotected in place (libsrtp and the batch API work in place only; every
//    impl pays the same copy). When the ring wraps the receiver forgets the stream (wireseal:
//    set_roc, libsrtp: a new srtp_t; amortised over 256 packets) so the replay window lets
//    the ring's sequence numbers in again. The OpenSSL baseline keeps no stream state.
//  - _batch16: 16 packets per call (wireseal's *_rtp_batch; the baselines have no batch API and
//    loop). The loop counts 16 iterations per call: ns/op, MB/s and allocs/op are per packet.
#include <array>
#include <cstring>
#include <memory>
#include <string>

#include "bench/srtp_fixture.h"
#include "bench/suites.h"

namespace wireseal::bench {
namespace {

using namespace srtp_bench;

std::string op_name(const ProfileCase& c, const char* what) {
  return std::string(c.name) + "_" + what;
}

// ---- protect

auto wireseal_protect(srtp::Profile p, std::size_t size) {
  auto session = std::make_unique<srtp::Session>(make_session(p));
  Bytes buf = rtp_packet(0, size);
  std::uint16_t seq = 0;
  return timed(
      [session = std::move(session), buf = std::move(buf), seq, size]() mutable noexcept {
        set_sequence(buf.data(), ++seq);
        return session->protect_rtp(buf, 12 + size).has_value();
      },
      size);
}

auto openssl_protect(srtp::Profile p, std::size_t size) {
  auto o = std::make_unique<OpensslSrtp>(p);
  {  // the baseline must produce what wireseal produces
    srtp::Session ref = make_session(p);
    Bytes a = rtp_packet(7, size);
    Bytes b = a;
    const std::size_t n = o->protect(a.data(), 12 + size, a.data(), 7);
    Result<std::size_t> m = ref.protect_rtp(b, 12 + size);
    if (n == 0 || !m || *m != n || std::memcmp(a.data(), b.data(), n) != 0) {
      throw std::runtime_error("OpenSSL SRTP baseline differs from wireseal");
    }
  }
  Bytes buf = rtp_packet(0, size);
  std::uint64_t index = 0;
  return timed(
      [o = std::move(o), buf = std::move(buf), index, size]() mutable noexcept {
        ++index;
        set_sequence(buf.data(), static_cast<std::uint16_t>(index));
        return o->protect(buf.data(), 12 + size, buf.data(), index) != 0;
      },
      size);
}

auto libsrtp_protect(srtp::Profile p, std::size_t size) {
  auto s = std::make_unique<LibsrtpSession>(p);
  Bytes buf = rtp_packet(0, size);
  std::uint16_t seq = 0;
  return timed(
      [s = std::move(s), buf = std::move(buf), seq, size]() mutable noexcept {
        set_sequence(buf.data(), ++seq);
        return s->protect(buf.data(), 12 + size) != 0;
      },
      size);
}

// Batches: 16 buffers, each protected in place with its own sequence number.
struct Buffers {
  explicit Buffers(std::size_t size) {
    for (Bytes& b : bufs) {
      b = rtp_packet(0, size);
    }
  }
  std::array<Bytes, kBatch> bufs;
  std::array<srtp::PacketJob, kBatch> jobs{};
};

auto wireseal_protect_batch(srtp::Profile p, std::size_t size) {
  auto session = std::make_unique<srtp::Session>(make_session(p));
  auto b = std::make_unique<Buffers>(size);
  std::uint16_t seq = 0;
  return timed(
      [session = std::move(session), b = std::move(b), seq, size]() mutable noexcept {
        for (std::size_t i = 0; i < kBatch; ++i) {
          set_sequence(b->bufs[i].data(), ++seq);
          b->jobs[i].buffer = b->bufs[i];
          b->jobs[i].length = 12 + size;
        }
        session->protect_rtp_batch(b->jobs);
        bool ok = true;
        for (const srtp::PacketJob& j : b->jobs) {
          ok = ok && j.status.has_value();
        }
        return ok;
      },
      size);
}

auto openssl_protect_batch(srtp::Profile p, std::size_t size) {
  auto o = std::make_unique<OpensslSrtp>(p);
  auto b = std::make_unique<Buffers>(size);
  std::uint64_t index = 0;
  return timed(
      [o = std::move(o), b = std::move(b), index, size]() mutable noexcept {
        bool ok = true;
        for (Bytes& buf : b->bufs) {
          ++index;
          set_sequence(buf.data(), static_cast<std::uint16_t>(index));
          ok = o->protect(buf.data(), 12 + size, buf.data(), index) != 0 && ok;
        }
        return ok;
      },
      size);
}

auto libsrtp_protect_batch(srtp::Profile p, std::size_t size) {
  auto s = std::make_unique<LibsrtpSession>(p);
  auto b = std::make_unique<Buffers>(size);
  std::uint16_t seq = 0;
  return timed(
      [s = std::move(s), b = std::move(b), seq, size]() mutable noexcept {
        bool ok = true;
        for (Bytes& buf : b->bufs) {
          set_sequence(buf.data(), ++seq);
          ok = s->protect(buf.data(), 12 + size) != 0 && ok;
        }
        return ok;
      },
      size);
}

// ---- unprotect

auto wireseal_unprotect(srtp::Profile p, std::size_t size) {
  srtp::Session tx = make_session(p);
  auto ring = std::make_unique<UnprotectRing>(size, [&tx](Bytes& b, std::size_t n, std::uint16_t) {
    Result<std::size_t> r = tx.protect_rtp(b, n);
    return r ? *r : 0;
  });
  auto rx = std::make_unique<srtp::Session>(make_session(p));
  Bytes work(12 + size + kRoom);
  RingCursor cur;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), work = std::move(work), cur]() mutable noexcept {
        if (cur.at_start()) {
          (void)rx->set_roc(kSsrc, 0);  // forget the lap: the ring's indices are new again
        }
        const std::size_t i = cur.take();
        std::memcpy(work.data(), ring->packets[i].data(), ring->lengths[i]);
        return rx->unprotect_rtp(std::span<std::uint8_t>(work.data(), ring->lengths[i]))
            .has_value();
      },
      size);
}

auto openssl_unprotect(srtp::Profile p, std::size_t size) {
  auto o = std::make_unique<OpensslSrtp>(p);
  auto ring =
      std::make_unique<UnprotectRing>(size, [&o](Bytes& b, std::size_t n, std::uint16_t seq) {
        return o->protect(b.data(), n, b.data(), seq);
      });
  Bytes work(12 + size + kRoom);
  RingCursor cur;
  return timed(
      [o = std::move(o), ring = std::move(ring), work = std::move(work), cur]() mutable noexcept {
        const std::size_t i = cur.take();
        std::memcpy(work.data(), ring->packets[i].data(), ring->lengths[i]);
        return o->unprotect(work.data(), ring->lengths[i], work.data(), i) != 0;
      },
      size);
}

auto libsrtp_unprotect(srtp::Profile p, std::size_t size) {
  return ring_unprotect(libsrtp_pair(p), size);
}

auto wireseal_unprotect_batch(srtp::Profile p, std::size_t size) {
  srtp::Session tx = make_session(p);
  auto ring = std::make_unique<UnprotectRing>(size, [&tx](Bytes& b, std::size_t n, std::uint16_t) {
    Result<std::size_t> r = tx.protect_rtp(b, n);
    return r ? *r : 0;
  });
  auto rx = std::make_unique<srtp::Session>(make_session(p));
  auto b = std::make_unique<Buffers>(size);
  RingCursor cur;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), b = std::move(b), cur]() mutable noexcept {
        if (cur.at_start()) {
          (void)rx->set_roc(kSsrc, 0);
        }
        for (std::size_t j = 0; j < kBatch; ++j) {
          const std::size_t i = cur.take();
          std::memcpy(b->bufs[j].data(), ring->packets[i].data(), ring->lengths[i]);
          b->jobs[j].buffer = std::span<std::uint8_t>(b->bufs[j].data(), ring->lengths[i]);
          b->jobs[j].length = ring->lengths[i];
        }
        rx->unprotect_rtp_batch(b->jobs);
        bool ok = true;
        for (const srtp::PacketJob& j : b->jobs) {
          ok = ok && j.status.has_value();
        }
        return ok;
      },
      size);
}

}  // namespace

void register_srtp_protect() {
  for (const ProfileCase& c : kProfiles) {
    const srtp::Profile p = c.profile;
    const std::string protect = op_name(c, "protect");
    register_op(
        "srtp", protect, kWireseal, [p](std::size_t s) { return wireseal_protect(p, s); },
        kPayloadSizes);
    register_op(
        "srtp", protect, kOpenSsl, [p](std::size_t s) { return openssl_protect(p, s); },
        kPayloadSizes);
    register_op(
        "srtp", protect, kLibsrtp, [p](std::size_t s) { return libsrtp_protect(p, s); },
        kPayloadSizes);
    const std::string protect_batch = op_name(c, "protect_batch16");
    register_batch_op(
        protect_batch, kWireseal, [p](std::size_t s) { return wireseal_protect_batch(p, s); },
        kPayloadSizes);
    register_batch_op(
        protect_batch, kOpenSsl, [p](std::size_t s) { return openssl_protect_batch(p, s); },
        kPayloadSizes);
    register_batch_op(
        protect_batch, kLibsrtp, [p](std::size_t s) { return libsrtp_protect_batch(p, s); },
        kPayloadSizes);
    const std::string unprotect = op_name(c, "unprotect");
    register_op(
        "srtp", unprotect, kWireseal, [p](std::size_t s) { return wireseal_unprotect(p, s); },
        kPayloadSizes);
    register_op(
        "srtp", unprotect, kOpenSsl, [p](std::size_t s) { return openssl_unprotect(p, s); },
        kPayloadSizes);
    register_op(
        "srtp", unprotect, kLibsrtp, [p](std::size_t s) { return libsrtp_unprotect(p, s); },
        kPayloadSizes);
    const std::string unprotect_batch = op_name(c, "unprotect_batch16");
    register_batch_op(
        unprotect_batch, kWireseal, [p](std::size_t s) { return wireseal_unprotect_batch(p, s); },
        kPayloadSizes);
    register_batch_op(unprotect_batch, kOpenSsl,
                      looped([p](std::size_t s) { return openssl_unprotect(p, s); }),
                      kPayloadSizes);
    register_batch_op(unprotect_batch, kLibsrtp,
                      looped([p](std::size_t s) { return libsrtp_unprotect(p, s); }),
                      kPayloadSizes);
  }
}

}  // namespace wireseal::bench
