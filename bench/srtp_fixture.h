#pragma once
// Shared pieces of the srtp/ suites: the profiles and sizes, deterministic master keys, RTP
// packets, and the two same-run baselines:
//  - OpensslSrtp: SRTP done carefully with OpenSSL 3 EVP, crypto only (no stream table, no
//    replay window: the caller passes the index, which favours the baseline). AES-CM: one
//    AES-CTR EVP context keyed once, per packet only the IV set; HMAC-SHA1: one EVP_MAC
//    context keyed once and restarted per packet with EVP_MAC_init(ctx, NULL, 0, NULL). GCM:
//    one keyed EVP context per direction. Session keys come from the SRTP KDF at set-up.
//  - LibsrtpSession: Debian's libsrtp2 (built on NSS), one srtp_t per direction with one
//    SSRC-specific stream, replay window 128, as a media server would set it up.

#include <srtp2/srtp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "wireseal/srtp/profile.h"
#include "wireseal/srtp/session.h"

namespace wireseal::bench {
// The srtp/ suites' registration functions (bench/srtp_protect.cc, bench/srtcp_protect.cc,
// bench/srtp_pion.cc).
void register_srtp_protect();
void register_srtcp_protect();
void register_srtp_pion();
void register_srtp_libsrtp2_api();
}  // namespace wireseal::bench

namespace wireseal::bench::srtp_bench {

struct ProfileCase {
  std::string_view name;  // benchmark operation prefix, e.g. "aes128cm_sha1_80"
  srtp::Profile profile;
};

inline constexpr ProfileCase kProfiles[] = {
    {"aes128cm_sha1_80", srtp::Profile::kAes128CmHmacSha1_80},
    {"aes128cm_sha1_32", srtp::Profile::kAes128CmHmacSha1_32},
    {"aes192cm_sha1_80", srtp::Profile::kAes192CmHmacSha1_80},
    {"aes192cm_sha1_32", srtp::Profile::kAes192CmHmacSha1_32},
    {"aes256cm_sha1_80", srtp::Profile::kAes256CmHmacSha1_80},
    {"aes256cm_sha1_32", srtp::Profile::kAes256CmHmacSha1_32},
    {"null_sha1_80", srtp::Profile::kNullHmacSha1_80},
    {"null_sha1_32", srtp::Profile::kNullHmacSha1_32},
    {"aead_aes128gcm", srtp::Profile::kAeadAes128Gcm},
    {"aead_aes256gcm", srtp::Profile::kAeadAes256Gcm},
};

// RTP payload sizes (the packet adds a 12-byte header); 160 is 20 ms of G.711 audio.
inline constexpr std::size_t kPayloadSizes[] = {100, 160, 200, 500, 1000, 1200, 1400};
inline constexpr std::size_t kBatch = 16;
inline constexpr std::size_t kRing = 256;  // pre-protected packets the unprotect rows cycle
inline constexpr std::uint32_t kSsrc = 0xcafebabe;
inline constexpr std::size_t kRoom = 64;  // spare bytes after a packet for tag and MKI

inline constexpr std::string_view kLibsrtp = "libsrtp";

// MasterKeys are deterministic per profile.
struct MasterKeys {
  explicit MasterKeys(srtp::Profile p);
  Bytes key, salt;
};

// make_session builds a wireseal Session over MasterKeys(p).
srtp::Session make_session(srtp::Profile p);

// rtp_packet is a 12-byte RTP header (SSRC kSsrc, sequence `seq`) and `payload` bytes, with
// kRoom spare bytes after it.
Bytes rtp_packet(std::uint16_t seq, std::size_t payload);
// rtcp_packet is an RTCP packet of `len` bytes (a multiple of 4, at least 8) from kSsrc, with
// kRoom spare bytes after it.
Bytes rtcp_packet(std::size_t len);
inline void set_sequence(std::uint8_t* packet, std::uint16_t seq) noexcept {
  packet[2] = static_cast<std::uint8_t>(seq >> 8);
  packet[3] = static_cast<std::uint8_t>(seq);
}

class OpensslSrtp {
 public:
  explicit OpensslSrtp(srtp::Profile p);
  // protect writes the protection of the RTP packet in[0, len) (12-byte header) with packet
  // index `index` into `out` (== in or disjoint) and returns its length; 0 on failure.
  std::size_t protect(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                      std::uint64_t index) noexcept;
  // unprotect authenticates and decrypts in[0, len) into `out`; returns the plain length or 0.
  std::size_t unprotect(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                        std::uint64_t index) noexcept;

 private:
  bool tag(const std::uint8_t* data, std::size_t len, std::uint32_t roc,
           std::uint8_t out[20]) noexcept;

  const srtp::ProfileInfo* info_;
  std::optional<openssl::Cipher> ctr_;
  std::optional<openssl::Aead> gcm_;
  openssl::MacCtx hmac_;
  std::array<std::uint8_t, 14> salt_{};
};

// A receiver uses an inbound template (ssrc_any_inbound), as a media server does for senders
// it learns from the wire: reset() then removes the stream and the next packet clones it
// afresh, with a new replay window. A sender has one SSRC-specific stream (kSsrc).
enum class LibsrtpRole { kSender, kReceiver };

class LibsrtpSession {
 public:
  explicit LibsrtpSession(srtp::Profile p, LibsrtpRole role = LibsrtpRole::kSender);
  ~LibsrtpSession();
  LibsrtpSession(const LibsrtpSession&) = delete;
  LibsrtpSession& operator=(const LibsrtpSession&) = delete;

  // protect / unprotect work in place on buf[0, len) and return the new length, 0 on error.
  std::size_t protect(std::uint8_t* buf, std::size_t len) noexcept;
  std::size_t unprotect(std::uint8_t* buf, std::size_t len) noexcept;
  // protect_rtcp / unprotect_rtcp are the same for SRTCP.
  std::size_t protect_rtcp(std::uint8_t* buf, std::size_t len) noexcept;
  std::size_t unprotect_rtcp(std::uint8_t* buf, std::size_t len) noexcept;
  // reset forgets the stream (fresh SRTP and SRTCP replay windows), for rows that replay a
  // ring: a receiver removes its stream (cheap), a sender is created anew.
  void reset();

 private:
  void create();

  srtp::Profile profile_;
  LibsrtpRole role_;
  Bytes key_;  // master key || salt, as libsrtp wants it
  srtp_t ctx_ = nullptr;
};

// RingKind is what a ring holds: RTP packets (a 12-byte header and the payload) or RTCP packets
// of the given length.
enum class RingKind { kRtp, kRtcp };

// UnprotectRing holds kRing packets protected by `protect(buffer, length, i)`: RTP packets with
// sequence numbers 0..kRing-1, or RTCP packets (which take SRTCP indices 0..kRing-1).
struct UnprotectRing {
  template <class Protect>
  UnprotectRing(std::size_t payload, Protect protect, RingKind kind = RingKind::kRtp) {
    for (std::size_t i = 0; i < kRing; ++i) {
      const auto seq = static_cast<std::uint16_t>(i);
      const bool rtp = kind == RingKind::kRtp;
      packets[i] = rtp ? rtp_packet(seq, payload) : rtcp_packet(payload);
      const std::size_t n = protect(packets[i], rtp ? 12 + payload : payload, seq);
      if (n == 0) {
        throw std::runtime_error("srtp bench: protecting the unprotect ring failed");
      }
      lengths[i] = n;
    }
  }
  std::array<Bytes, kRing> packets;
  std::array<std::size_t, kRing> lengths{};
};

// RingCursor walks the ring; at_start() is true when a lap begins.
struct RingCursor {
  std::size_t next = 0;
  std::size_t take() noexcept {
    const std::size_t i = next;
    next = (next + 1) % kRing;
    return i;
  }
  bool at_start() const noexcept { return next == 0; }
};

// ring_unprotect is the unprotect row of a libsrtp-shaped session (protect/unprotect in place
// on raw buffers, reset to a fresh receiver): `make()` returns a std::unique_ptr to a new one,
// the sender on its first call and the receiver on its second.
// The ring is protected by one, a second unprotects it in place from a work copy, and is
// reset each lap so the ring's indices are new again (amortised over kRing packets). With
// RingKind::kRtcp the packets are RTCP and the calls protect_rtcp / unprotect_rtcp.
template <RingKind Kind = RingKind::kRtp, class Make>
auto ring_unprotect(Make make, std::size_t size) {
  auto tx = make();
  auto ring = std::make_unique<UnprotectRing>(
      size,
      [&tx](Bytes& b, std::size_t n, std::uint16_t) {
        if constexpr (Kind == RingKind::kRtcp) {
          return tx->protect_rtcp(b.data(), n);
        } else {
          return tx->protect(b.data(), n);
        }
      },
      Kind);
  auto rx = make();
  Bytes work(12 + size + kRoom);
  RingCursor cur;
  bool first_lap = true;
  return timed(
      [rx = std::move(rx), ring = std::move(ring), work = std::move(work), cur,
       first_lap]() mutable noexcept {
        if (cur.at_start()) {
          if (!first_lap) {
            try {
              rx->reset();
            } catch (...) {
              return false;
            }
          }
          first_lap = false;
        }
        const std::size_t i = cur.take();
        std::memcpy(work.data(), ring->packets[i].data(), ring->lengths[i]);
        if constexpr (Kind == RingKind::kRtcp) {
          return rx->unprotect_rtcp(work.data(), ring->lengths[i]) != 0;
        } else {
          return rx->unprotect(work.data(), ring->lengths[i]) != 0;
        }
      },
      size);
}

// libsrtp_pair is ring_unprotect's `make` for LibsrtpSession: a sender, then a receiver.
inline auto libsrtp_pair(srtp::Profile p) {
  return [p, made = 0]() mutable {
    return std::make_unique<LibsrtpSession>(
        p, made++ == 0 ? LibsrtpRole::kSender : LibsrtpRole::kReceiver);
  };
}

// looped is a baseline's batch row: its single-packet op kBatch times per call.
template <class Make>
auto looped(Make make_single) {
  return [make_single](std::size_t size) {
    auto t = make_single(size);
    return timed(
        [op = std::move(t.op)]() mutable noexcept {
          bool ok = true;
          for (std::size_t i = 0; i < kBatch; ++i) {
            ok = op() && ok;
          }
          return ok;
        },
        size);
  };
}

// register_batch_op registers "srtp/op/impl/size" whose op processes kBatch packets per call;
// the loop counts kBatch iterations per call (KeepRunningBatch), so ns/op, MB/s, B/op and
// allocs/op are per packet. `make(size)` returns a Timed as for register_op.
template <class Make>
void register_batch_op(std::string_view op, std::string_view impl, Make make,
                       std::span<const std::size_t> sizes) {
  for (const std::size_t size : sizes) {
    register_named(benchmark_name("srtp", op, impl, size), [make, size](benchmark::State& state) {
      try {
        auto t = make(size);
        if (!t.op()) {
          state.SkipWithError("operation failed before timing");
          return;
        }
        const test::AllocStats before = test::alloc_stats();
        while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(kBatch))) {
          if (!t.op()) [[unlikely]] {
            state.SkipWithError("operation failed");
            break;
          }
          benchmark::ClobberMemory();
        }
        const test::AllocStats after = test::alloc_stats();
        detail::report_figures(state, t.payload_bytes, before, after);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
      }
    });
  }
}

}  // namespace wireseal::bench::srtp_bench
