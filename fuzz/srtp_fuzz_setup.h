#pragma once
// The session set-up and packet builders of the scripted SRTP/SRTCP targets (srtp_roundtrip,
// srtcp_roundtrip, srtp_batch, srtcp_batch), read from the input, and their encodings for the
// corpus generator (srtp_make_corpus.cc).
//
// Set-up:  profile below(10) | MKI length below(5) | [keys - 1 below(3), with an MKI]
//          | max streams - 1 below(4) | replay window - 1 below(32768)
//          | flags u8 (bit 0 no auto-created streams, bit 1 cryptex) | default ROC u32
//          | default key below(keys) | encrypted-ID count below(5), IDs u8 | backend | SSRC u32
// Master keys and MKIs are fixed (master key k: pattern from k; MKI k: k + 1, then 0xa0...):
// what is fuzzed is packet handling, not the KDF.
//
// RTP packet: flags u8 (bits 0-3 CC, 4 X, 5 P, 6-7 == 3: version 1) | M/PT u8 | SSRC below(4)
//             | sequence: delta i8 from that SSRC's last, 0x80: u16 follows | timestamp u32
//             | CSRCs u32 each | [X: profile kind below(4) (one-byte, two-byte with appbits
//             u8, raw u16, cryptex 0xC0DE), words below(64), body] | payload below(4096)
// RTCP packet: byte 0 u8 (version 1 if bits 6-7 == 3, else 2) | PT u8 | length u16
//             | SSRC below(4) | body below(1024)
#include <array>
#include <cstdint>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "wireseal/srtp/session.h"

namespace wireseal::fuzz {

inline constexpr std::size_t kSsrcPool = 4;
inline constexpr std::size_t kMaxSrtpKeys = 3;

struct SrtpSetup {
  srtp::Profile profile = srtp::Profile::kAes128CmHmacSha1_80;
  std::size_t mki_len = 0;
  std::size_t key_count = 1;
  std::size_t max_streams = 1;
  std::size_t replay_window = srtp::kDefaultReplayWindow;
  bool auto_create = true;
  bool cryptex = false;
  std::uint32_t roc = 0;
  std::uint8_t key_index = 0;
  std::vector<std::uint8_t> encrypted_ids;
  crypto::Backend backend = crypto::Backend::kAuto;
  std::array<std::uint32_t, kSsrcPool> ssrcs = {0x11111111, 0x22222222, 0xcafebabe, 0};
};

inline void put16(std::vector<std::uint8_t>& p, std::uint16_t v) {
  p.push_back(static_cast<std::uint8_t>(v >> 8));
  p.push_back(static_cast<std::uint8_t>(v));
}
inline void put32(std::vector<std::uint8_t>& p, std::uint32_t v) {
  put16(p, static_cast<std::uint16_t>(v >> 16));
  put16(p, static_cast<std::uint16_t>(v));
}
// append adds n bytes from the input (then the pattern) to p.
inline void append(std::vector<std::uint8_t>& p, FuzzInput& in, std::size_t n) {
  const std::size_t at = p.size();
  p.resize(at + n);
  in.fill(std::span<std::uint8_t>(p).subspan(at));
}

// pick_srtp_backend chooses among the backends of the crypto families a profile keys (AES-CTR
// also for RFC 6904 header encryption). the crypto families a profile keys (the AES-CTR one also
// for RFC 6904).
inline crypto::Backend pick_srtp_backend(FuzzInput& in, srtp::Profile profile) {
  if (srtp::info(profile).cipher == srtp::CipherKind::kAesGcm) {
    return pick_backend(in, {crypto::Primitive::kAesGcm, crypto::Primitive::kAesCtr});
  }
  return pick_backend(in, {crypto::Primitive::kAesCtr});
}

inline std::vector<std::uint8_t> read_ids(FuzzInput& in) {
  std::vector<std::uint8_t> ids(in.below(5));
  for (std::uint8_t& id : ids) {
    id = in.u8();
  }
  return ids;
}

inline SrtpSetup read_srtp_setup(FuzzInput& in) {
  SrtpSetup s;
  s.profile = static_cast<srtp::Profile>(in.below(srtp::kProfileCount));
  s.mki_len = in.below(5);
  s.key_count = s.mki_len != 0 ? 1 + in.below(kMaxSrtpKeys) : 1;
  s.max_streams = 1 + in.below(4);
  s.replay_window = 1 + in.below(srtp::kMaxReplayWindow);
  const std::uint8_t flags = in.u8();
  s.auto_create = (flags & 1) == 0;
  s.cryptex = (flags & 2) != 0;
  s.roc = in.u32();
  s.key_index = static_cast<std::uint8_t>(in.below(s.key_count));
  s.encrypted_ids = read_ids(in);
  s.backend = pick_srtp_backend(in, s.profile);
  s.ssrcs[kSsrcPool - 1] = in.u32();
  return s;
}

// make_session builds a Session for `s`; every session of a target built from the same
// set-up has the same keys (sender and receivers, batch and single twins).
inline srtp::Session make_session(const SrtpSetup& s) {
  std::array<std::array<std::uint8_t, 46>, kMaxSrtpKeys> material{};
  std::array<std::array<std::uint8_t, 4>, kMaxSrtpKeys> mkis{};
  std::vector<srtp::MasterKey> keys;
  const srtp::ProfileInfo& p = srtp::info(s.profile);
  for (std::size_t k = 0; k < s.key_count; ++k) {
    for (std::size_t i = 0; i < material[k].size(); ++i) {
      material[k][i] = static_cast<std::uint8_t>(i * 29 + 3 + k * 71);
    }
    mkis[k] = {static_cast<std::uint8_t>(k + 1), 0xa0, 0xa1, 0xa2};
    keys.push_back({std::span<const std::uint8_t>(material[k]).first(p.master_key_len),
                    std::span<const std::uint8_t>(material[k]).subspan(32, p.master_salt_len),
                    std::span<const std::uint8_t>(mkis[k]).first(s.mki_len)});
  }
  srtp::SessionConfig config;
  config.profile = s.profile;
  config.keys = keys;
  config.mki_len = s.mki_len;
  config.max_streams = s.max_streams;
  config.replay_window = s.replay_window;
  config.create_streams_on_first_packet = s.auto_create;
  config.stream_defaults.roc = s.roc;
  config.stream_defaults.key_index = s.key_index;
  config.stream_defaults.cryptex = s.cryptex;
  config.stream_defaults.encrypted_extension_ids = s.encrypted_ids;
  config.backend = s.backend;
  return srtp::Session(config);
}

// StreamOptionsInput is an add_stream() request read from the input: SSRC below(4), ROC u32,
// key below(keys + 1) (one past the end: kInvalidArgument), flags u8 (bit 0 cryptex), IDs.
struct StreamOptionsInput {
  std::uint32_t ssrc = 0;
  srtp::StreamOptions options;
  std::vector<std::uint8_t> ids;
};

inline StreamOptionsInput read_stream_options(FuzzInput& in, const SrtpSetup& s) {
  StreamOptionsInput o;
  o.ssrc = s.ssrcs[in.below(kSsrcPool)];
  o.options.roc = in.u32();
  o.options.key_index = static_cast<std::uint8_t>(in.below(s.key_count + 1));
  o.options.cryptex = (in.u8() & 1) != 0;
  o.ids = read_ids(in);
  o.options.encrypted_extension_ids = o.ids;
  return o;
}

// RtpBuilder builds RTP packets from the input, keeping each pool SSRC's last sequence number
// so that small deltas walk a stream forward (and across rollovers).
class RtpBuilder {
 public:
  explicit RtpBuilder(const SrtpSetup& setup) noexcept : ssrcs_(setup.ssrcs) {}

  std::vector<std::uint8_t> build(FuzzInput& in) {
    const std::uint8_t flags = in.u8();
    const std::uint8_t marker_pt = in.u8();
    const std::size_t ssrc = in.below(kSsrcPool);
    const std::uint16_t seq = next_sequence(in, ssrc);
    const std::uint32_t timestamp = in.u32();
    const unsigned version = (flags >> 6) == 3 ? 1 : 2;
    std::vector<std::uint8_t> p = {static_cast<std::uint8_t>(version << 6 | (flags & 0x3fu)),
                                   marker_pt, static_cast<std::uint8_t>(seq >> 8),
                                   static_cast<std::uint8_t>(seq)};
    put32(p, timestamp);
    put32(p, ssrcs_[ssrc]);
    for (std::size_t i = 0; i < (flags & 15u); ++i) {
      put32(p, in.u32());
    }
    if ((flags & 16) != 0) {
      put_extension(p, in);
    }
    append(p, in, in.below(4096));
    return p;
  }

 private:
  std::uint16_t next_sequence(FuzzInput& in, std::size_t ssrc) {
    const std::uint8_t delta = in.u8();
    const std::uint16_t seq =
        delta == 0x80
            ? in.u16()
            : static_cast<std::uint16_t>(last_seq_[ssrc] + static_cast<std::int8_t>(delta));
    last_seq_[ssrc] = seq;
    return seq;
  }

  static void put_extension(std::vector<std::uint8_t>& p, FuzzInput& in) {
    std::uint16_t profile = 0xbede;
    switch (in.below(4)) {
      case 1:
        profile = static_cast<std::uint16_t>(0x1000 | (in.u8() & 15u));
        break;
      case 2:
        profile = in.u16();
        break;
      case 3:
        profile = 0xc0de;
        break;
      default:
        break;
    }
    const std::size_t words = in.below(64);
    put16(p, profile);
    put16(p, static_cast<std::uint16_t>(words));
    append(p, in, 4 * words);
  }

  std::array<std::uint32_t, kSsrcPool> ssrcs_;
  std::array<std::uint16_t, kSsrcPool> last_seq_{};
};

// build_rtcp builds an RTCP packet (the first of a compound) from the input.
inline std::vector<std::uint8_t> build_rtcp(FuzzInput& in, const SrtpSetup& s) {
  const std::uint8_t b0 = in.u8();
  const unsigned version = (b0 >> 6) == 3 ? 1 : 2;
  std::vector<std::uint8_t> p = {static_cast<std::uint8_t>(version << 6 | (b0 & 0x3fu)), in.u8()};
  put16(p, in.u16());
  put32(p, s.ssrcs[in.below(kSsrcPool)]);
  append(p, in, in.below(1024));
  return p;
}

// --- encodings for the corpus generator

struct SrtpSetupScript {
  std::size_t profile = 0;
  std::size_t mki_len = 0;
  std::size_t key_count = 1;
  std::size_t max_streams = 4;
  std::size_t replay_window = srtp::kDefaultReplayWindow;
  bool cryptex = false;
  std::vector<std::uint8_t> encrypted_ids;
  std::uint32_t roc = 0;
};

inline void write_srtp_setup(FuzzScript& out, const SrtpSetupScript& s) {
  out.below(srtp::kProfileCount, s.profile).below(5, s.mki_len);
  if (s.mki_len != 0) {
    out.below(kMaxSrtpKeys, s.key_count - 1);
  }
  out.below(4, s.max_streams - 1).below(srtp::kMaxReplayWindow, s.replay_window - 1);
  out.u8(s.cryptex ? 2 : 0).u32(s.roc).below(s.key_count, 0);
  out.below(5, s.encrypted_ids.size()).bytes(s.encrypted_ids);
  out.u8(0).u32(0x33333333);  // backend kAuto, fourth SSRC
}

struct RtpScript {
  std::size_t csrcs = 0;
  int extension = 0;  // 0 none, 1 one-byte elements, 2 two-byte elements
  std::size_t ssrc = 0;
  std::uint8_t sequence_delta = 1;  // 0x80: `sequence` follows instead
  std::size_t payload = 40;
  std::uint16_t sequence = 0;
};

// write_rtp encodes a packet whose extension (if any) holds well-formed elements of IDs 1..3.
inline void write_rtp(FuzzScript& out, const RtpScript& r) {
  out.u8(r.csrcs | (r.extension != 0 ? 16u : 0u)).u8(96).below(kSsrcPool, r.ssrc);
  out.u8(r.sequence_delta);
  if (r.sequence_delta == 0x80) {
    out.u16(r.sequence);
  }
  out.u32(0x1000);
  for (std::size_t i = 0; i < r.csrcs; ++i) {
    out.u32(0xc5c00000 + i);
  }
  if (r.extension == 1) {
    const std::uint8_t body[] = {0x10, 0xaa, 0x21, 0xbb, 0xcc, 0x30, 0xdd, 0};
    out.below(4, 0).below(64, 2).bytes(body);
  } else if (r.extension == 2) {
    const std::uint8_t body[] = {0x01, 0x02, 0xaa, 0xbb, 0x03, 0x01, 0xcc, 0};
    out.below(4, 1).u8(0).below(64, 2).bytes(body);
  }
  out.below(4096, r.payload).bytes(std::vector<std::uint8_t>(r.payload, 'p'));
}

inline void write_rtcp(FuzzScript& out, std::size_t ssrc, std::size_t body) {
  out.u8(0x80).u8(200).u16(6).below(kSsrcPool, ssrc).below(1024, body);
  out.bytes(std::vector<std::uint8_t>(body, 'r'));
}

}  // namespace wireseal::fuzz
