#pragma once
// What the scripted SMB targets read from their input — an SMB2 header (compact form), the
// session set-up of the secure-channel and client-engine targets — with their encodings for
// the corpus generator (smb_make_corpus.cc), and the byte stream those targets feed.
//
// Header:  command below(19) | flags u32 | message id u64 | credits u16 | credit charge u16
//          | status u32 | tree id u32 | process id u32 | async id u64
// Session: protection below(3) | dialect below(5) (2.0.2, 2.1, 3.0, 3.0.2, 3.1.1; encryption
//          needs 3.x and moves 2.x up by two) | cipher below(4) (3.1.1; AES-128-CCM before)
//          | signing below(2) (CMAC, GMAC on 3.1.1) | session key (32) | preauth hash (64)
//          | session id u64 | max message length - 64 below(8192) | backend | seed u64
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "wireseal/smb/client_engine.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::fuzz {

inline constexpr std::size_t kSmbCommandCount = 0x13;

inline smb::Smb2Header read_smb_header(FuzzInput& in) {
  smb::Smb2Header h;
  h.command = static_cast<smb::Command>(in.below(kSmbCommandCount));
  h.flags = in.u32();
  h.message_id = in.u64();
  h.credits = in.u16();
  h.credit_charge = in.u16();
  h.status = in.u32();
  h.tree_id = in.u32();
  h.process_id = in.u32();
  h.async_id = in.u64();
  return h;
}

inline void write_smb_header(FuzzScript& out, std::size_t command, std::uint32_t flags,
                             std::uint64_t message_id, std::uint32_t status = 0) {
  out.below(kSmbCommandCount, command).u32(flags).u64(message_id).u16(8).u16(1).u32(status);
  out.u32(7).u32(0xfeff).u64(0);
}

// ChannelSetup owns the key bytes a SessionConfig points at.
struct ChannelSetup {
  smb::SessionConfig config;
  std::array<std::uint8_t, 32> session_key{};
  std::array<std::uint8_t, smb::kPreauthHashSize> preauth{};
  std::uint64_t seed = 0;

  ChannelSetup() = default;
  ChannelSetup(const ChannelSetup&) = delete;
  ChannelSetup& operator=(const ChannelSetup&) = delete;

  // config_for returns the config of one side, its spans pointing into this object.
  smb::SessionConfig config_for(smb::Role role, RandomSource random) const {
    smb::SessionConfig c = config;
    c.role = role;
    c.session_key = session_key;
    c.preauth_hash = preauth;
    c.random = random;
    return c;
  }
};

inline void read_channel_setup(FuzzInput& in, ChannelSetup& s) {
  constexpr smb::Dialect kDialects[] = {smb::Dialect::kSmb202, smb::Dialect::kSmb210,
                                        smb::Dialect::kSmb300, smb::Dialect::kSmb302,
                                        smb::Dialect::kSmb311};
  constexpr smb::Cipher kCiphers[] = {smb::Cipher::kAes128Ccm, smb::Cipher::kAes128Gcm,
                                      smb::Cipher::kAes256Ccm, smb::Cipher::kAes256Gcm};
  smb::SessionConfig& c = s.config;
  c.protection = static_cast<smb::Protection>(in.below(3));
  std::size_t dialect = in.below(5);
  if (c.protection == smb::Protection::kEncrypted && dialect < 2) {
    dialect += 2;  // SMB 2.x has no encryption
  }
  c.dialect = kDialects[dialect];
  const std::size_t cipher = in.below(4);
  c.cipher = c.dialect == smb::Dialect::kSmb311 ? kCiphers[cipher] : smb::Cipher::kAes128Ccm;
  const bool gmac = in.below(2) == 1 && c.dialect == smb::Dialect::kSmb311;
  c.signing = gmac ? smb::SigningAlgorithm::kAesGmac : smb::SigningAlgorithm::kAesCmac;
  in.fill(s.session_key);
  in.fill(s.preauth);
  c.session_id = in.u64();
  c.max_message_len = smb::kHeaderSize + in.below(8192);
  c.backend = pick_backend(
      in, {crypto::Primitive::kAesGcm, crypto::Primitive::kAesCcm, crypto::Primitive::kAesCmac});
  s.seed = in.u64();
}

struct ChannelSetupScript {
  std::size_t protection = 0;  // kNone, kSigned, kEncrypted
  std::size_t dialect = 4;     // index: 2.0.2, 2.1, 3.0, 3.0.2, 3.1.1
  std::size_t cipher = 0;
  bool gmac = false;
  std::uint64_t session_id = 0x100000000025;
  std::size_t max_body = 2048;
};

inline void write_channel_setup(FuzzScript& out, const ChannelSetupScript& s) {
  out.below(3, s.protection).below(5, s.dialect).below(4, s.cipher).below(2, s.gmac ? 1 : 0);
  for (std::size_t i = 0; i < 32 + smb::kPreauthHashSize; ++i) {
    out.u8(0x40 + i);
  }
  out.u64(s.session_id).below(8192, s.max_body).u8(0).u64(0x5eed);
}

// same_header compares what a receiver may expect of a header it was sent (NextCommand and
// Signature excepted: framing and protection set them).
inline bool same_header(const smb::Smb2Header& a, const smb::Smb2Header& b) {
  const bool ids = a.is_async() ? a.async_id == b.async_id
                                : a.process_id == b.process_id && a.tree_id == b.tree_id;
  return ids && a.command == b.command && a.flags == b.flags && a.message_id == b.message_id &&
         a.credits == b.credits && a.credit_charge == b.credit_charge && a.status == b.status &&
         a.session_id == b.session_id;
}

// Wire is the byte stream toward the endpoint under test: whole frames from its peer, raw
// bytes and mutations from the input, delivered in chunks the input chooses.
class Wire {
 public:
  void append_frame(std::span<const std::uint8_t> frame) {
    bytes_.insert(bytes_.end(), frame.begin(), frame.end());
    frame_ends_.push_back(bytes_.size());
  }
  // add_raw appends below(512) input bytes; the stream is no longer predictable.
  void add_raw(FuzzInput& in) {
    const std::vector<std::uint8_t> raw = in.vector(in.below(512));
    bytes_.insert(bytes_.end(), raw.begin(), raw.end());
    clean_ = false;
  }
  // mutate flips bits of one byte not yet delivered.
  void mutate(FuzzInput& in) {
    const std::size_t pending = bytes_.size() - delivered_;
    const std::size_t at = delivered_ + in.below(std::max<std::size_t>(pending, 1));
    const auto x = static_cast<std::uint8_t>(in.u8() | 1);
    if (pending != 0) {
      bytes_[at] ^= x;
      clean_ = false;
    }
  }
  // clean: only unmodified peer frames so far, so every result is predictable.
  bool clean() const noexcept { return clean_; }
  bool done() const noexcept { return delivered_ == bytes_.size(); }
  // complete_frames is how many peer frames have been delivered whole (meaningful if clean).
  std::size_t complete_frames() const noexcept {
    return static_cast<std::size_t>(
        std::upper_bound(frame_ends_.begin(), frame_ends_.end(), delivered_) - frame_ends_.begin());
  }

  // deliver copies up to n undelivered bytes into `endpoint` (read_space / commit, as a
  // transport would), calling drain() after each commit. False once the endpoint's framing
  // has failed (no read space, or drain says so).
  template <class Endpoint, class Drain>
  bool deliver(Endpoint& endpoint, std::size_t n, Drain drain) {
    while (n > 0 && !done()) {
      const std::span<std::uint8_t> space = endpoint.read_space();
      if (space.empty()) {
        return false;
      }
      const std::size_t k = std::min({n, space.size(), bytes_.size() - delivered_});
      std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(delivered_), k, space.begin());
      endpoint.commit(k);
      delivered_ += k;
      n -= k;
      if (!drain()) {
        return false;
      }
    }
    return true;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::vector<std::size_t> frame_ends_;
  std::size_t delivered_ = 0;
  bool clean_ = true;
};

}  // namespace wireseal::fuzz
