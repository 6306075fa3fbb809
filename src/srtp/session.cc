// Session: set-up, stream management and the buffer checks in front of the transforms.
#include "wireseal/srtp/session.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#include "common/create.h"
#include "common/ct.h"
#include "session_state.h"
#include "wireseal/random.h"
#include "wireseal/srtp/packet_index.h"

namespace wireseal::srtp {
namespace detail {
namespace {

std::uint64_t random_seed() {
  std::uint64_t seed = 0;
  std::uint8_t bytes[8];
  system_random()(bytes);
  std::memcpy(&seed, bytes, sizeof(seed));
  return seed;
}

// stream_from is the state a stream configured by `options` starts from.
StreamState stream_from(const StreamOptions& options) {
  StreamState d;
  d.initial_roc = options.roc;
  d.sent.rtp_next = options.sent_elsewhere.rtp_next;
  d.sent.rtcp_next =
      std::max({d.sent.rtcp_next, options.sent_elsewhere.rtcp_next, options.srtcp_index});
  d.key_index = options.key_index;
  d.cryptex = options.cryptex;
  d.allow_resend = options.allow_resend;
  d.set_encrypted_ids(options.encrypted_extension_ids);
  return d;
}

// lower_limit is a configured usage limit (0: none) capped to the profile's.
std::uint64_t lower_limit(std::uint64_t configured, std::uint64_t profile_limit) noexcept {
  return configured != 0 && configured < profile_limit ? configured : profile_limit;
}

}  // namespace

SessionState::SessionState(const SessionConfig& config)
    : profile(&info(config.profile)),
      mki_len(config.mki_len),
      auto_create(config.create_streams_on_first_packet),
      srtp_key_limit(lower_limit(config.max_srtp_packets_per_key,
                                 info(config.profile).max_srtp_packets_per_key)),
      srtcp_key_limit(lower_limit(config.max_srtcp_packets_per_key,
                                  info(config.profile).max_srtcp_packets_per_key)),
      streams(config.max_streams, replay_window_words(config.replay_window),
              config.max_retired_senders, random_seed()),
      defaults(stream_from(config.stream_defaults)) {
  if (config.keys.empty() || config.keys.size() > kMaxMasterKeys) {
    throw std::invalid_argument("wireseal::srtp: a Session needs 1..255 master keys");
  }
  if (config.mki_len > kMaxMkiLength) {
    throw std::invalid_argument("wireseal::srtp: MKI longer than 128 bytes");
  }
  if (config.keys.size() > 1 && config.mki_len == 0) {
    throw std::invalid_argument("wireseal::srtp: several master keys need an MKI to pick one");
  }
  if (config.replay_window == 0 || config.replay_window > kMaxReplayWindow) {
    throw std::invalid_argument("wireseal::srtp: replay window must be 1..32768");
  }
  if (config.stream_defaults.key_index >= config.keys.size()) {
    throw std::invalid_argument("wireseal::srtp: stream_defaults.key_index has no key");
  }
  keys.reserve(config.keys.size());
  for (const MasterKey& k : config.keys) {
    // derive_key_material validates every length (the MKI's too) before anything reads it.
    keys.push_back(derive_key_material(*profile, k, mki_len, config.backend));
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      if (mki_len != 0 && std::memcmp(keys[i].mki.data(), keys.back().mki.data(), mki_len) == 0) {
        throw std::invalid_argument("wireseal::srtp: two master keys share an MKI");
      }
    }
  }
}

KeyMaterial* SessionState::key_for_listed_mki(const std::uint8_t* mki) noexcept {
  // MKIs are public identifiers (RFC 3711 §3.1), so an ordinary comparison is fine.
  for (KeyMaterial& k : keys) {
    if (std::memcmp(k.mki.data(), mki, mki_len) == 0) {
      return &k;
    }
  }
  return nullptr;
}

StreamState* SessionState::create_stream(std::uint32_t ssrc) noexcept {
  return streams.insert(ssrc, defaults);
}

Error SessionState::count_drop(Error e) noexcept {
  drops.count(e);
  return e;
}

}  // namespace detail

using wireseal::detail::overlaps_partially;

Session::Session(const SessionConfig& config)
    : state_(std::make_unique<detail::SessionState>(config)) {}

Result<Session> Session::create(const SessionConfig& config) noexcept {
  return wireseal::detail::try_create<Session>(config);
}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

const ProfileInfo& Session::profile() const noexcept { return *state_->profile; }

std::size_t Session::rtp_overhead() const noexcept {
  const ProfileInfo& p = *state_->profile;
  return p.rtp_tag_len + state_->mki_len +
         (p.cipher != CipherKind::kNull ? kRtpExtensionPreambleSize : 0);
}

std::size_t Session::protected_rtp_size(std::span<const std::uint8_t> rtp) const noexcept {
  Result<RtpHeader> h = parse_rtp_header(rtp);
  if (!h) {
    return 0;
  }
  const detail::StreamState& cfg = state_->stream_or_defaults(h->ssrc);
  const bool cryptex = cfg.cryptex && state_->profile->cipher != CipherKind::kNull;
  return rtp.size() + detail::SessionState::cryptex_growth(*h, cryptex) +
         state_->profile->rtp_tag_len + state_->mki_len;
}

std::size_t Session::max_rtp_size(std::size_t buffer_len) const noexcept {
  return buffer_len > rtp_overhead() ? buffer_len - rtp_overhead() : 0;
}

std::size_t Session::rtcp_overhead() const noexcept {
  return state_->profile->rtcp_tag_len + 4 + state_->mki_len;
}

Result<std::size_t> Session::protect_rtp(std::span<std::uint8_t> buffer,
                                         std::size_t rtp_len) noexcept {
  if (rtp_len > buffer.size()) {
    return Error::kInvalidArgument;
  }
  return state_->protect_rtp(buffer.data(), rtp_len, buffer.data(), buffer.size());
}

Result<std::size_t> Session::protect_rtp(std::span<const std::uint8_t> rtp,
                                         std::span<std::uint8_t> out) noexcept {
  if (overlaps_partially(rtp.data(), rtp.size(), out.data(), out.size())) {
    return Error::kAliasing;
  }
  return state_->protect_rtp(rtp.data(), rtp.size(), out.data(), out.size());
}

Result<std::span<std::uint8_t>> Session::unprotect_rtp(std::span<std::uint8_t> srtp) noexcept {
  Result<std::size_t> n = state_->unprotect_rtp(srtp.data(), srtp.size(), srtp.data(), srtp.size());
  if (!n) {
    return n.error();
  }
  return srtp.first(*n);
}

Result<std::span<std::uint8_t>> Session::unprotect_rtp(std::span<const std::uint8_t> srtp,
                                                       std::span<std::uint8_t> out) noexcept {
  if (overlaps_partially(srtp.data(), srtp.size(), out.data(), out.size())) {
    ++state_->drops.malformed;
    return Error::kAliasing;
  }
  Result<std::size_t> n = state_->unprotect_rtp(srtp.data(), srtp.size(), out.data(), out.size());
  if (!n) {
    return n.error();
  }
  return out.first(*n);
}

Result<std::size_t> Session::protect_rtcp(std::span<std::uint8_t> buffer,
                                          std::size_t rtcp_len) noexcept {
  if (rtcp_len > buffer.size()) {
    return Error::kInvalidArgument;
  }
  return state_->protect_rtcp(buffer.data(), rtcp_len, buffer.data(), buffer.size());
}

Result<std::size_t> Session::protect_rtcp(std::span<const std::uint8_t> rtcp,
                                          std::span<std::uint8_t> out) noexcept {
  if (overlaps_partially(rtcp.data(), rtcp.size(), out.data(), out.size())) {
    return Error::kAliasing;
  }
  return state_->protect_rtcp(rtcp.data(), rtcp.size(), out.data(), out.size());
}

Result<std::span<std::uint8_t>> Session::unprotect_rtcp(std::span<std::uint8_t> srtcp) noexcept {
  Result<std::size_t> n =
      state_->unprotect_rtcp(srtcp.data(), srtcp.size(), srtcp.data(), srtcp.size());
  if (!n) {
    return n.error();
  }
  return srtcp.first(*n);
}

Result<std::span<std::uint8_t>> Session::unprotect_rtcp(std::span<const std::uint8_t> srtcp,
                                                        std::span<std::uint8_t> out) noexcept {
  if (overlaps_partially(srtcp.data(), srtcp.size(), out.data(), out.size())) {
    ++state_->drops.malformed;
    return Error::kAliasing;
  }
  Result<std::size_t> n =
      state_->unprotect_rtcp(srtcp.data(), srtcp.size(), out.data(), out.size());
  if (!n) {
    return n.error();
  }
  return out.first(*n);
}

Status Session::add_stream(std::uint32_t ssrc, const StreamOptions& options) noexcept {
  if (options.key_index >= state_->keys.size()) {
    return Error::kInvalidArgument;
  }
  if (state_->streams.find(ssrc) != nullptr) {
    return Error::kBadState;
  }
  if (state_->streams.insert(ssrc, detail::stream_from(options)) == nullptr) {
    return Error::kTableFull;
  }
  return {};
}

Status Session::reserve_resends(std::size_t window, std::size_t streams) noexcept {
  const std::size_t replay = state_->streams.window_words() * 64;
  try {
    return state_->streams.resends().reserve(std::min(window, replay), streams);
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

Status Session::remove_stream(std::uint32_t ssrc) noexcept { return state_->streams.remove(ssrc); }

bool Session::has_stream(std::uint32_t ssrc) const noexcept {
  return state_->streams.find(ssrc) != nullptr;
}
SenderMarks Session::sender_marks(std::uint32_t ssrc) const noexcept {
  return state_->streams.sender_marks(ssrc);
}
std::size_t Session::stream_count() const noexcept { return state_->streams.size(); }
std::size_t Session::max_streams() const noexcept { return state_->streams.capacity(); }

Result<std::uint32_t> Session::roc(std::uint32_t ssrc) const noexcept {
  const detail::StreamState* s = state_->streams.find(ssrc);
  if (s == nullptr) {
    return Error::kWrongContext;
  }
  return s->rtp_started ? roc_of(s->rtp_highest) : s->initial_roc;
}

Status Session::set_roc(std::uint32_t ssrc, std::uint32_t roc) noexcept {
  detail::StreamState* s = state_->streams.find(ssrc);
  if (s == nullptr) {
    return Error::kWrongContext;
  }
  // A sender's ROC may not go back past what it protected: every index protect still uses
  // must lie above the highest it has used, or the keystream of an earlier packet would be
  // reused.
  if (s->sent.rtp_next != 0) {
    if (packet_index(roc, UINT16_MAX) < s->sent.rtp_next) {
      return Error::kBadState;
    }
    s->rtp_send_floor = s->sent.rtp_next;
  }
  // Restart the estimate from ROC || next sequence number: the window is forgotten because
  // its indices were relative to the old ROC.
  s->initial_roc = roc;
  state_->streams.rtp_window(*s).reset();
  return {};
}

Status Session::set_active_key(std::uint32_t ssrc, std::size_t key_index) noexcept {
  detail::StreamState* s = state_->streams.find(ssrc);
  if (s == nullptr) {
    return Error::kWrongContext;
  }
  if (key_index >= state_->keys.size()) {
    return Error::kInvalidArgument;
  }
  s->key_index = static_cast<std::uint8_t>(key_index);
  return {};
}

Result<std::uint32_t> Session::srtcp_index(std::uint32_t ssrc) const noexcept {
  const detail::StreamState* s = state_->streams.find(ssrc);
  if (s == nullptr) {
    return Error::kWrongContext;
  }
  return s->sent.rtcp_next;
}

Result<KeyUsage> Session::key_usage(std::size_t key_index) const noexcept {
  if (key_index >= state_->keys.size()) {
    return Error::kInvalidArgument;
  }
  const detail::KeyMaterial& km = state_->keys[key_index];
  return KeyUsage{km.srtp_protected, km.srtcp_protected};
}

const DropCounters& Session::drop_counters() const noexcept { return state_->drops; }

std::size_t Session::stream_state_size() const noexcept {
  return state_->streams.bytes_per_stream();
}

}  // namespace wireseal::srtp
