// SecureChannel: one session's message security over direct TCP framing (MS-SMB2 §2.1,
// §3.1.4.1 signing, §3.1.4.3 encryption, §3.2.5.1 receiving).
#include "wireseal/smb/secure_channel.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common/create.h"
#include "common/ct.h"

namespace wireseal::smb {
namespace {

SessionKeys derive_or_throw(const SessionConfig& c) {
  Result<SessionKeys> keys =
      derive_session_keys(c.dialect, c.cipher, c.session_key, c.preauth_hash);
  if (!keys) {
    throw std::invalid_argument("wireseal::smb: cannot derive session keys from this config");
  }
  return *keys;
}

SigningAlgorithm signing_for(const SessionConfig& c) {
  if (c.dialect == Dialect::kSmb202 || c.dialect == Dialect::kSmb210) {
    return SigningAlgorithm::kHmacSha256;  // §3.1.4.1: the only algorithm of 2.x
  }
  if (c.signing == SigningAlgorithm::kHmacSha256 ||
      (c.signing == SigningAlgorithm::kAesGmac && c.dialect != Dialect::kSmb311)) {
    throw std::invalid_argument("wireseal::smb: signing algorithm not valid for the dialect");
  }
  return c.signing;
}

}  // namespace

SecureChannel::SecureChannel(const SessionConfig& config)
    : config_(config),
      message_offset_(kFramePrefixSize +
                      (config.protection == Protection::kEncrypted ? kTransformHeaderSize : 0)),
      pump_(config.max_message_len + kTransformHeaderSize) {
  if (config.max_message_len < kHeaderSize) {
    throw std::invalid_argument("wireseal::smb: max_message_len below one header");
  }
  // The config's key spans need not outlive the channel.
  config_.session_key = {};
  config_.preauth_hash = {};
  SessionKeys keys = derive_or_throw(config);
  const bool client = config.role == Role::kClient;
  if (config.protection == Protection::kEncrypted) {
    if (config.dialect != Dialect::kSmb311 && config.cipher != Cipher::kAes128Ccm) {
      keys.wipe();
      throw std::invalid_argument("wireseal::smb: 3.0.x encrypts with AES-128-CCM only");
    }
    const auto mine = client ? keys.client_to_server_key() : keys.server_to_client_key();
    const auto peer = client ? keys.server_to_client_key() : keys.client_to_server_key();
    sealer_.emplace(config.cipher, mine, config.session_id,
                    TransformSealerOptions{.nonces = config.encryption_nonces,
                                           .random = config.random,
                                           .backend = config.backend});
    opener_.emplace(config.cipher, peer, config.session_id,
                    TransformOpenerOptions{.backend = config.backend});
  } else if (config.protection == Protection::kSigned) {
    signer_.emplace(signing_for(config), keys.signing, config.backend);
  }
  keys.wipe();
  out_.resize(message_offset_ + config.max_message_len);
}

Result<SecureChannel> SecureChannel::create(const SessionConfig& config) noexcept {
  return wireseal::detail::try_create<SecureChannel>(config);
}

std::span<std::uint8_t> SecureChannel::outgoing_message() noexcept {
  return std::span<std::uint8_t>(out_).subspan(message_offset_);
}

Result<std::span<const std::uint8_t>> SecureChannel::send(const Smb2Header& header,
                                                          std::size_t body_len) noexcept {
  if (body_len > config_.max_message_len - kHeaderSize) {
    return Error::kBufferTooSmall;
  }
  Smb2Header h = header;
  h.session_id = config_.session_id;
  h.signature = {};
  h.next_command = 0;
  // §3.1.4.3 / §3.2.4.1.1: an encrypted message is not signed; a signed one says so.
  if (config_.protection == Protection::kEncrypted) {
    h.flags &= ~kFlagSigned;
  } else if (config_.protection == Protection::kSigned) {
    h.flags |= kFlagSigned;
  }
  static_cast<void>(encode_header(h, outgoing_message()));
  if (signer_) {
    if (const Status s = signer_->sign(outgoing_message().first(kHeaderSize + body_len)); !s) {
      return s.error();
    }
  }
  return finish(kHeaderSize + body_len, {});
}

Result<std::span<const std::uint8_t>> SecureChannel::send(
    const Smb2Header& header, std::span<const std::uint8_t> body) noexcept {
  const std::span<std::uint8_t> room = outgoing_body();
  if (body.size() > room.size()) {
    return Error::kBufferTooSmall;
  }
  if (body.data() != room.data() && !body.empty()) {
    if (detail::overlaps(body.data(), body.size(), out_.data(), out_.size())) {
      return Error::kAliasing;
    }
    std::memcpy(room.data(), body.data(), body.size());
  }
  return send(header, body.size());
}

Result<std::span<const std::uint8_t>> SecureChannel::send_chain(std::size_t chain_len) noexcept {
  if (chain_len < kHeaderSize || chain_len > config_.max_message_len) {
    return Error::kInvalidArgument;
  }
  if (signer_) {
    // §3.2.4.1.4: each member of a compound request is signed on its own.
    ChainCursor cursor(outgoing_message().first(chain_len));
    while (!cursor.done()) {
      const Result<std::span<std::uint8_t>> member = cursor.next();
      if (!member) {
        return member.error();
      }
      if (const Status s = signer_->sign(*member); !s) {
        return s.error();
      }
    }
  }
  return finish(chain_len, {});
}

Result<std::span<const std::uint8_t>> SecureChannel::finish(
    std::size_t message_len, std::span<const std::uint8_t> /*external*/) noexcept {
  std::size_t frame_len = message_len;
  if (sealer_) {
    const Result<std::size_t> sealed =
        sealer_->seal(std::span<std::uint8_t>(out_).subspan(kFramePrefixSize), message_len);
    if (!sealed) {
      return sealed.error();
    }
    frame_len = *sealed;
  }
  static_cast<void>(encode_frame_prefix(frame_len, out_));
  ++counters_.sent;
  return std::span<const std::uint8_t>(out_).first(kFramePrefixSize + frame_len);
}

Result<std::optional<Incoming>> SecureChannel::receive() noexcept {
  if (!chain_.done()) {
    return next_in_chain();
  }
  const Result<std::optional<std::span<std::uint8_t>>> frame = pump_.next();
  if (!frame) {
    counters_.dropped.count(frame.error());
    return frame.error();
  }
  if (!frame->has_value()) {
    return std::optional<Incoming>{};
  }
  ++counters_.received;
  const std::span<std::uint8_t> bytes = **frame;
  if (is_transform_message(bytes)) {
    if (!opener_) {
      counters_.dropped.count(Error::kAuthFailed);  // encrypted, but the session has no keys
      return Error::kAuthFailed;
    }
    const Result<std::span<std::uint8_t>> plain = opener_->open(bytes);
    if (!plain) {
      counters_.dropped.count(plain.error());
      return plain.error();
    }
    chain_ = ChainCursor(*plain);
    chain_encrypted_ = true;
    return next_in_chain();
  }
  if (opener_) {
    // §3.2.5.1.1 / §3.3.5.2.1: once a session encrypts, unencrypted messages are refused.
    counters_.dropped.count(Error::kAuthFailed);
    return Error::kAuthFailed;
  }
  chain_ = ChainCursor(bytes);
  chain_encrypted_ = false;
  return next_in_chain();
}

Result<std::optional<Incoming>> SecureChannel::next_in_chain() noexcept {
  const Result<std::span<std::uint8_t>> message = chain_.next();
  if (!message) {
    counters_.dropped.count(Error::kMalformed);
    return Error::kMalformed;
  }
  const Result<Smb2Header> header = decode_header(*message);
  if (!header) {
    chain_ = ChainCursor();
    counters_.dropped.count(Error::kMalformed);
    return Error::kMalformed;
  }
  if (signer_) {
    // §3.2.5.1.3: verify before acting on anything in the message; the signature also binds
    // the SessionId, checked so a message signed for another session cannot be spliced in.
    const Error rejected = header->session_id != config_.session_id ? Error::kWrongContext
                           : !signer_->verify(*message)             ? Error::kAuthFailed
                                                                    : Error{};
    if (rejected != Error{}) {
      chain_ = ChainCursor();
      counters_.dropped.count(rejected);
      return rejected;
    }
  }
  return std::optional<Incoming>{
      Incoming{*header, *message, message->subspan(kHeaderSize), chain_encrypted_}};
}

}  // namespace wireseal::smb
