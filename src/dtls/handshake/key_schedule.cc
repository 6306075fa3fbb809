// From the key exchange to the record keys (RFC 5246 §8, RFC 7627, RFC 4279, RFC 5489), and
// the Finished messages that prove both sides got the same.
#include <algorithm>
#include <new>
#include <string_view>

#include "common/ct.h"
#include "endpoint_state.h"
#include "wireseal/dtls/handshake/finished.h"
#include "wireseal/dtls/handshake/transcript.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::dtls::detail {

namespace {

void wipe_premaster(EndpointState& s) noexcept {
  wireseal::detail::secure_wipe(s.premaster.data(), s.premaster.size());
  s.premaster.clear();
}

Direction own_direction(Role role) noexcept {
  return role == Role::kClient ? Direction::kClientWrite : Direction::kServerWrite;
}

Direction peer_direction(Role role) noexcept {
  return role == Role::kClient ? Direction::kServerWrite : Direction::kClientWrite;
}

}  // namespace

Status ecdh_premaster(EndpointState& s, std::span<const std::uint8_t> peer_public) noexcept {
  if (!s.key_share) {
    return fail(s, {Error::kBadState, AlertDescription::kInternalError, "no key share"});
  }
  try {
    s.premaster.resize(crypto::info(s.key_share->group()).shared_secret_size);
  } catch (const std::bad_alloc&) {
    return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
  }
  if (!s.key_share->derive(peer_public, s.premaster)) {
    wipe_premaster(s);
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the peer's ECDH public key is not a valid point"});
  }
  return {};
}

Status psk_premaster(EndpointState& s) noexcept {
  const std::vector<std::uint8_t>& psk = s.config->psk;
  std::vector<std::uint8_t> out;
  try {
    out.resize(4 + psk.size() + std::max(psk.size(), s.premaster.size()));
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  // RFC 4279 §2: the "other secret" is zeros for plain PSK, the ECDH secret for ECDHE_PSK.
  const Result<std::size_t> n = psk_pre_master_secret(psk, s.premaster, out);
  wipe_premaster(s);
  if (!n) {
    return n.error();
  }
  out.resize(*n);
  s.premaster = std::move(out);
  return {};
}

Status derive_master_secret(EndpointState& s) noexcept {
  Status st;
  if (s.negotiated.extended_master_secret) {
    // RFC 7627 §4: the session hash covers the log up to and including ClientKeyExchange.
    std::array<std::uint8_t, crypto::kMaxDigestLength> session_hash{};
    const Result<std::size_t> n = log_hash(s, session_hash);
    st = n ? extended_master_secret(s.prf_hash, s.premaster, std::span(session_hash).first(*n),
                                    s.master_secret)
           : Status(n.error());
  } else {
    st = master_secret(s.prf_hash, s.premaster, s.client_random, s.server_random, s.master_secret);
  }
  wipe_premaster(s);
  if (!st) {
    return fail(s,
                {st.error(), AlertDescription::kInternalError, "cannot derive the master secret"});
  }
  log_keys(s);
  return {};
}

void log_keys(const EndpointState& s) noexcept {
  const KeyLogSink& sink = s.config->keylog;
  if (sink.write == nullptr) {
    return;
  }
  constexpr std::string_view kLabel = "CLIENT_RANDOM ";
  std::array<char, kLabel.size() + 2 * kHelloRandomSize + 1 + 2 * kMasterSecretSize> line{};
  auto* at = std::copy(kLabel.begin(), kLabel.end(), line.begin());
  constexpr std::string_view kHex = "0123456789abcdef";
  const auto put_hex = [&at, kHex](std::span<const std::uint8_t> bytes) {
    for (const std::uint8_t b : bytes) {
      *at++ = kHex[b >> 4];
      *at++ = kHex[b & 0x0f];
    }
  };
  put_hex(s.client_random);
  *at++ = ' ';
  put_hex(s.master_secret);
  sink.write(sink.context, std::string_view(line.data(), line.size()));
  wireseal::detail::secure_wipe(line.data(), line.size());
}

Status take_connection_id(EndpointState& s, std::span<const std::uint8_t> peer_wants) noexcept {
  try {
    s.peer_connection_id.assign(peer_wants.begin(), peer_wants.end());
  } catch (const std::bad_alloc&) {
    return fail(s, {Error::kOutOfMemory, AlertDescription::kInternalError, "out of memory"});
  }
  s.negotiated.connection_id = true;
  return {};
}

Status install_keys(EndpointState& s) noexcept {
  Result<KeyBlock> block =
      KeyBlock::derive(s.cipher, s.prf_hash, s.master_secret, s.client_random, s.server_random);
  if (!block) {
    return fail(s,
                {block.error(), AlertDescription::kInternalError, "cannot derive the key block"});
  }
  s.key_block.emplace(std::move(*block));
  RecordSealerOptions seal_options;
  seal_options.encrypt_then_mac = s.negotiated.encrypt_then_mac;
  seal_options.random = s.config->random;
  RecordOpenerOptions open_options;
  open_options.encrypt_then_mac = s.negotiated.encrypt_then_mac;
  if (s.negotiated.connection_id) {
    // Both fit ConnectionId: the extension's vector8 and the checked configuration.
    seal_options.cid = ConnectionId(s.peer_connection_id);
    open_options.cid = ConnectionId(*s.own_connection_id);
    s.read_cid_size = s.own_connection_id->size();
  }
  Result<RecordSealer> sealer =
      RecordSealer::create(*s.key_block, own_direction(s.role), 1, seal_options);
  Result<RecordOpener> opener =
      RecordOpener::create(s.cipher, s.key_block->keys(peer_direction(s.role)), 1, open_options);
  if (!sealer || !opener) {
    return fail(s, {Error::kInvalidArgument, AlertDescription::kInternalError,
                    "cannot key the record layer"});
  }
  s.writer.install(std::move(*sealer));
  s.pending_opener.emplace(std::move(*opener));
  return {};
}

Status send_finished(EndpointState& s) noexcept {
  std::array<std::uint8_t, crypto::kMaxDigestLength> hash{};
  const Result<std::size_t> n = log_hash(s, hash);
  std::array<std::uint8_t, kFinishedSize> verify_data{};
  if (!n || !finished_verify_data(s.prf_hash, s.master_secret, s.role == Role::kClient,
                                  std::span(hash).first(*n), verify_data)) {
    return fail(s, {Error::kBadState, AlertDescription::kInternalError, "cannot compute Finished"});
  }
  if (const Status st = s.flight.add_change_cipher_spec(); !st) {
    return fail(s, {st.error(), AlertDescription::kInternalError, "flight full"});
  }
  s.writer.mark_change_cipher_spec();
  const Status st =
      send_message(s, HandshakeType::kFinished, 1,
                   [&verify_data](std::span<std::uint8_t> out) -> Result<std::size_t> {
                     if (out.size() < verify_data.size()) {
                       return Error::kBufferTooSmall;
                     }
                     std::copy(verify_data.begin(), verify_data.end(), out.begin());
                     return verify_data.size();
                   });
  if (!st) {
    return fail(s, {st.error(), AlertDescription::kInternalError, "cannot write Finished"});
  }
  return {};
}

Status check_finished(EndpointState& s, const HandshakeMessage& m) noexcept {
  // A Finished of the wrong length is a failed check like a wrong one (decrypt_error).
  const Result<std::span<const std::uint8_t>> received = parse_finished(m.body);
  if (!received) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kDecryptError,
                    "the peer's Finished has the wrong length"});
  }
  std::array<std::uint8_t, crypto::kMaxDigestLength> hash{};
  const Result<std::size_t> n = log_hash(s, hash);
  std::array<std::uint8_t, kFinishedSize> expected{};
  const bool peer_is_client = s.role == Role::kServer;
  if (!n || !finished_verify_data(s.prf_hash, s.master_secret, peer_is_client,
                                  std::span(hash).first(*n), expected)) {
    return fail(s, {Error::kBadState, AlertDescription::kInternalError, "cannot compute Finished"});
  }
  if (!wireseal::detail::ct_equal(expected, *received)) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kDecryptError,
                    "the peer's Finished does not match: different keys or a tampered handshake"});
  }
  return log_message(s, m.msg_type, m.message_seq, m.body);
}

}  // namespace wireseal::dtls::detail
