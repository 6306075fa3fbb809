// SecureChannel: one session's message security over direct TCP framing (MS-SMB2 §2.1,
// §3.1.4.1 signing, §3.1.4.3 encryption, §3.2.5.1 receiving).
#include "wireseal/smb/secure_channel.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common/create.h"
#include "common/ct.h"

namespace wireseal::smb {
SecureChannel::SecureChannel(const SessionConfig& config)
    : config_(config),
      security_(config),
      message_offset_(kFramePrefixSize +
                      (config.protection == Protection::kEncrypted ? kTransformHeaderSize : 0)),
      pump_(config.max_message_len + kTransformHeaderSize) {
  if (config.max_message_len < kHeaderSize) {
    throw std::invalid_argument("wireseal::smb: max_message_len below one header");
  }
  // The config's key spans need not outlive the channel.
  config_.session_key = {};
  config_.preauth_hash = {};
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
  if (config_.protection == Protection::kSigned) {
    if (const Status s = security_.sign(outgoing_message().first(kHeaderSize + body_len)); !s) {
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
  if (config_.protection == Protection::kSigned) {
    if (const Status s = security_.sign_chain(outgoing_message().first(chain_len)); !s) {
      return s.error();
    }
  }
  return finish(chain_len, {});
}

Result<std::span<const std::uint8_t>> SecureChannel::finish(
    std::size_t message_len, std::span<const std::uint8_t> /*external*/) noexcept {
  std::size_t frame_len = message_len;
  if (config_.protection == Protection::kEncrypted) {
    const Result<std::size_t> sealed =
        security_.seal(std::span<std::uint8_t>(out_).subspan(kFramePrefixSize), message_len);
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
    const Result<std::span<std::uint8_t>> plain =
        config_.protection == Protection::kEncrypted
            ? security_.open(bytes)
            : Result<std::span<std::uint8_t>>(Error::kAuthFailed);  // not an encrypting session
    if (!plain) {
      counters_.dropped.count(plain.error());
      return plain.error();
    }
    chain_ = ChainCursor(*plain);
    chain_encrypted_ = true;
    return next_in_chain();
  }
  if (config_.protection == Protection::kEncrypted) {
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
  if (config_.protection == Protection::kSigned) {
    // §3.2.5.1.3: verify before acting on anything in the message.
    if (const Status verified = security_.verify(*message); !verified) {
      chain_ = ChainCursor();
      counters_.dropped.count(verified.error());
      return verified.error();
    }
  }
  return std::optional<Incoming>{
      Incoming{*header, *message, message->subspan(kHeaderSize), chain_encrypted_}};
}

}  // namespace wireseal::smb
