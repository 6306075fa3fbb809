#pragma once
// Shared helpers for the SRTP tests: profile lookup by name, deterministic master keys,
// RTP/RTCP packet builders and a Session factory.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "wireseal/srtp/profile.h"
#include "wireseal/srtp/session.h"

namespace wireseal::test {

using Bytes = std::vector<std::uint8_t>;

inline constexpr srtp::Profile kAllProfiles[] = {
    srtp::Profile::kAes128CmHmacSha1_80, srtp::Profile::kAes128CmHmacSha1_32,
    srtp::Profile::kAes192CmHmacSha1_80, srtp::Profile::kAes192CmHmacSha1_32,
    srtp::Profile::kAes256CmHmacSha1_80, srtp::Profile::kAes256CmHmacSha1_32,
    srtp::Profile::kNullHmacSha1_80,     srtp::Profile::kNullHmacSha1_32,
    srtp::Profile::kAeadAes128Gcm,       srtp::Profile::kAeadAes256Gcm,
};

// profile_by_name maps "AES_CM_128_HMAC_SHA1_80" etc. to the Profile; throws if unknown.
inline srtp::Profile profile_by_name(const std::string& name) {
  for (srtp::Profile p : kAllProfiles) {
    if (name == srtp::info(p).name) {
      return p;
    }
  }
  throw std::invalid_argument("unknown SRTP profile " + name);
}

// KeySet owns the bytes a MasterKey points at.
struct KeySet {
  Bytes key, salt, mki;
  srtp::MasterKey master() const { return {key, salt, mki}; }
};

inline KeySet make_keys(srtp::Profile p, std::uint8_t seed, std::size_t mki_len = 0) {
  const srtp::ProfileInfo& info = srtp::info(p);
  KeySet k;
  for (std::size_t i = 0; i < info.master_key_len; ++i) {
    k.key.push_back(static_cast<std::uint8_t>(seed * 13 + i * 7 + 1));
  }
  for (std::size_t i = 0; i < info.master_salt_len; ++i) {
    k.salt.push_back(static_cast<std::uint8_t>(seed * 5 + i * 3 + 2));
  }
  for (std::size_t i = 0; i < mki_len; ++i) {
    k.mki.push_back(static_cast<std::uint8_t>(seed + i));
  }
  return k;
}

// make_session builds a Session over `keys` (which must outlive the constructor call only).
inline srtp::Session make_session(srtp::Profile p, const std::vector<KeySet>& keys,
                                  srtp::SessionConfig config = {}) {
  std::vector<srtp::MasterKey> masters;
  for (const KeySet& k : keys) {
    masters.push_back(k.master());
  }
  config.profile = p;
  config.keys = masters;
  if (!keys.empty()) {
    config.mki_len = keys[0].mki.size();
  }
  return srtp::Session(config);
}

// rtp_packet builds an RTP packet: CSRCs, an optional extension body with `ext_profile`
// (body padded with zeros to a multiple of 4) and a payload.
inline Bytes rtp_packet(std::uint32_t ssrc, std::uint16_t seq, std::size_t payload_len,
                        std::uint8_t csrc_count = 0, const Bytes* ext_body = nullptr,
                        std::uint16_t ext_profile = 0xBEDE, std::uint8_t fill = 0x5a) {
  Bytes p;
  p.push_back(static_cast<std::uint8_t>(0x80 | (ext_body != nullptr ? 0x10 : 0) | csrc_count));
  p.push_back(96);
  p.push_back(static_cast<std::uint8_t>(seq >> 8));
  p.push_back(static_cast<std::uint8_t>(seq));
  for (int i = 0; i < 4; ++i) {
    p.push_back(static_cast<std::uint8_t>(0x10 + i));
  }
  for (int i = 3; i >= 0; --i) {
    p.push_back(static_cast<std::uint8_t>(ssrc >> (8 * i)));
  }
  for (std::size_t i = 0; i < 4u * csrc_count; ++i) {
    p.push_back(static_cast<std::uint8_t>(0xc0 + i));
  }
  if (ext_body != nullptr) {
    Bytes body = *ext_body;
    while (body.size() % 4 != 0) {
      body.push_back(0);
    }
    p.push_back(static_cast<std::uint8_t>(ext_profile >> 8));
    p.push_back(static_cast<std::uint8_t>(ext_profile));
    p.push_back(static_cast<std::uint8_t>(body.size() / 4 >> 8));
    p.push_back(static_cast<std::uint8_t>(body.size() / 4));
    p.insert(p.end(), body.begin(), body.end());
  }
  for (std::size_t i = 0; i < payload_len; ++i) {
    p.push_back(static_cast<std::uint8_t>(fill + i));
  }
  return p;
}

// rtcp_packet builds a sender report-like RTCP packet of `len` (>= 8) bytes from `ssrc`.
inline Bytes rtcp_packet(std::uint32_t ssrc, std::size_t len) {
  Bytes p(len);
  p[0] = 0x80;
  p[1] = 200;
  p[2] = static_cast<std::uint8_t>((len / 4 - 1) >> 8);
  p[3] = static_cast<std::uint8_t>(len / 4 - 1);
  for (int i = 0; i < 4; ++i) {
    p[4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(ssrc >> (24 - 8 * i));
  }
  for (std::size_t i = 8; i < len; ++i) {
    p[i] = static_cast<std::uint8_t>(i * 11);
  }
  return p;
}

// protect copies `plain` into a buffer with room and protects it in place.
inline Bytes protect(srtp::Session& s, const Bytes& plain, bool rtcp = false) {
  Bytes buf(plain.size() + 64);
  std::copy(plain.begin(), plain.end(), buf.begin());
  Result<std::size_t> n =
      rtcp ? s.protect_rtcp(buf, plain.size()) : s.protect_rtp(buf, plain.size());
  if (!n) {
    ADD_FAILURE() << "protect failed: " << to_string(n.error());
    return {};
  }
  buf.resize(*n);
  return buf;
}

// unprotect returns the plain packet or an empty vector (and the error in `error`).
inline Bytes unprotect(srtp::Session& s, Bytes packet, bool rtcp = false, Error* error = nullptr) {
  Result<std::span<std::uint8_t>> r = rtcp ? s.unprotect_rtcp(packet) : s.unprotect_rtp(packet);
  if (!r) {
    if (error != nullptr) {
      *error = r.error();
    }
    return {};
  }
  return Bytes(r->begin(), r->end());
}

}  // namespace wireseal::test
