#include "smb_scripted_server.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "smb/auth/spnego.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/ntlm.h"

namespace wireseal::smb::test {
namespace {

constexpr std::uint32_t kStatusMoreProcessingRequired = 0xC0000016;
constexpr std::uint32_t kStatusNoMoreFiles = 0x80000006;
constexpr std::uint32_t kCapLargeMtu = 0x04;
constexpr std::uint32_t kCapEncryption = 0x40;
constexpr std::uint16_t kSigningEnabled = 0x01;
constexpr std::uint16_t kSigningRequired = 0x02;
constexpr std::uint32_t kFsctlValidateNegotiateInfo = 0x00140204;
constexpr std::uint32_t kMaxIo = 1 << 20;
constexpr std::uint32_t kTreeId = 7;
constexpr std::array<std::uint8_t, 16> kServerGuid = {
    0x53, 0x65, 0x72, 0x76, 0x65, 0x72, 0x47, 0x75, 0x69, 0x64, 1, 2, 3, 4, 5, 6};

// Body builds a response body with little-endian fields at fixed offsets.
struct Body {
  Bytes b;
  explicit Body(std::size_t n) : b(n) {}
  std::uint8_t* at(std::size_t offset, std::size_t width) {
    if (offset + width > b.size()) {
      throw std::out_of_range("Body: a field past the end");
    }
    return b.data() + offset;
  }
  Body& u8(std::size_t offset, std::uint8_t v) {
    *at(offset, 1) = v;
    return *this;
  }
  Body& u16(std::size_t offset, std::uint16_t v) {
    store_le16(at(offset, 2), v);
    return *this;
  }
  Body& u32(std::size_t offset, std::uint32_t v) {
    store_le32(at(offset, 4), v);
    return *this;
  }
  Body& u64(std::size_t offset, std::uint64_t v) {
    store_le64(at(offset, 8), v);
    return *this;
  }
  Body& append(std::span<const std::uint8_t> more) {
    b.insert(b.end(), more.begin(), more.end());
    return *this;
  }
  Body& pad8() {
    b.resize((b.size() + 7) & ~std::size_t{7});
    return *this;
  }
};

Bytes utf16(std::string_view ascii) {
  Bytes out;
  for (const char c : ascii) {
    out.push_back(static_cast<std::uint8_t>(c));
    out.push_back(0);
  }
  return out;
}

void append_av(Bytes& out, std::uint16_t id, std::span<const std::uint8_t> value) {
  Body pair(4);
  pair.u16(0, id).u16(2, static_cast<std::uint16_t>(value.size())).append(value);
  out.insert(out.end(), pair.b.begin(), pair.b.end());
}

// ntlm_challenge is a server's first SESSION_SETUP token: NegTokenResp{accept-incomplete,
// NTLMSSP, CHALLENGE_MESSAGE} with NTLMv2, key exchange and a timestamp.
Bytes ntlm_challenge() {
  constexpr std::uint32_t kFlags =
      ntlm::kNegotiateUnicode | ntlm::kRequestTarget | ntlm::kNegotiateSign | ntlm::kNegotiateNtlm |
      ntlm::kNegotiateAlwaysSign | ntlm::kNegotiateExtendedSessionSecurity |
      ntlm::kNegotiateTargetInfo | ntlm::kNegotiateVersion | ntlm::kNegotiate128 |
      ntlm::kNegotiateKeyExch | ntlm::kNegotiate56;
  const Bytes target_name = utf16("SCRIPTED");
  Bytes target_info;
  append_av(target_info, 2, utf16("SCRIPTED"));
  append_av(target_info, 1, utf16("SERVER"));
  std::array<std::uint8_t, 8> time{};
  store_le64(time.data(), 0x01d9000000000000);
  append_av(target_info, 7, time);
  append_av(target_info, 0, {});
  Body m(56);
  std::copy_n("NTLMSSP", 8, m.b.begin());
  m.u32(8, 2).u16(12, static_cast<std::uint16_t>(target_name.size()));
  m.u16(14, static_cast<std::uint16_t>(target_name.size())).u32(16, 56).u32(20, kFlags);
  for (std::size_t i = 0; i < 8; ++i) {
    m.u8(24 + i, static_cast<std::uint8_t>(0xC0 + i));  // ServerChallenge
  }
  m.u16(40, static_cast<std::uint16_t>(target_info.size()));
  m.u16(42, static_cast<std::uint16_t>(target_info.size()));
  m.u32(44, static_cast<std::uint32_t>(56 + target_name.size()));
  m.u8(48, 10).u8(49, 0).u16(50, 20348).u8(55, 15);  // VERSION
  m.append(target_name).append(target_info);
  spnego::NegTokenRespFields resp;
  resp.neg_state = spnego::NegState::kAcceptIncomplete;
  resp.supported_mech = std::span<const std::uint8_t>(spnego::kNtlmsspOid);
  resp.response_token = std::span<const std::uint8_t>(m.b);
  return spnego::encode_neg_token_resp(resp);
}

// directory_entries is `count` FileDirectoryInformation entries named after `round`.
Bytes directory_entries(std::size_t round, std::size_t count) {
  Bytes out;
  for (std::size_t i = 0; i < count; ++i) {
    std::string text(1, 'r');
    text += std::to_string(round);
    text += '-';
    text += std::to_string(i);
    const Bytes name = utf16(text);
    Body e(64);
    e.u64(24, 0x01d9000000000000).u64(40, i).u32(56, 0x80);
    e.u32(60, static_cast<std::uint32_t>(name.size())).append(name);
    if (i + 1 < count) {
      e.pad8();
      e.u32(0, static_cast<std::uint32_t>(e.b.size()));
    }
    out.insert(out.end(), e.b.begin(), e.b.end());
  }
  return out;
}

bool is_30x(Dialect d) { return d == Dialect::kSmb300 || d == Dialect::kSmb302; }

}  // namespace

ScriptedServer::ScriptedServer(ScriptedServerConfig config) : config_(std::move(config)) {}

int ScriptedServer::requests(Command command) const {
  const auto it = requests_.find(command);
  return it == requests_.end() ? 0 : it->second;
}

int ScriptedServer::signed_requests(Command command) const {
  const auto it = signed_.find(command);
  return it == signed_.end() ? 0 : it->second;
}

int ScriptedServer::sealed_requests(Command command) const {
  const auto it = sealed_.find(command);
  return it == sealed_.end() ? 0 : it->second;
}

Result<std::size_t> ScriptedServer::read(std::span<std::uint8_t> out) noexcept {
  if (read_at_ == outbox_.size()) {
    return Error::kTimedOut;  // the server has answered everything it was asked
  }
  const std::size_t n = std::min(out.size(), outbox_.size() - read_at_);
  std::copy_n(outbox_.begin() + static_cast<std::ptrdiff_t>(read_at_), n, out.begin());
  read_at_ += n;
  return n;
}

Status ScriptedServer::write_all(std::span<const std::uint8_t> data) noexcept {
  inbox_.insert(inbox_.end(), data.begin(), data.end());
  while (inbox_.size() >= kFramePrefixSize) {
    const Result<std::size_t> len = decode_frame_prefix(inbox_);
    if (!len) {
      broken_ = true;
      return Error::kClosed;
    }
    if (inbox_.size() < kFramePrefixSize + *len) {
      break;
    }
    const auto end = inbox_.begin() + static_cast<std::ptrdiff_t>(kFramePrefixSize + *len);
    Bytes frame(inbox_.begin() + kFramePrefixSize, end);
    inbox_.erase(inbox_.begin(), end);
    handle_frame(std::move(frame));
  }
  return {};
}

void ScriptedServer::handle_frame(Bytes frame) {
  const bool sealed = is_transform_message(frame);
  std::span<std::uint8_t> chain = frame;
  if (sealed) {
    const Result<std::span<std::uint8_t>> plain =
        security_ ? security_->open(frame) : Result<std::span<std::uint8_t>>(Error::kAuthFailed);
    if (!plain) {
      broken_ = true;
      return;
    }
    chain = *plain;
  } else if (rewrite_request) {
    rewrite_request(frame);
    chain = frame;
  }
  ChainCursor cursor(chain);
  while (!cursor.done()) {
    const Result<std::span<std::uint8_t>> member = cursor.next();
    if (!member) {
      broken_ = true;
      return;
    }
    handle_request(*member, sealed);
  }
}

void ScriptedServer::handle_request(std::span<const std::uint8_t> message, bool sealed) {
  const Result<Smb2Header> request = decode_header(message);
  if (!request || request->is_response()) {
    broken_ = true;
    return;
  }
  ++requests_[request->command];
  Protection protection = Protection::kNone;
  if (sealed) {
    ++sealed_[request->command];
    protection = Protection::kEncrypted;
  } else if (request->is_signed() && request->command != Command::kSessionSetup) {
    Bytes copy(message.begin(), message.end());
    if (!security_ || !security_->verify(copy)) {
      broken_ = true;
      return;
    }
    ++signed_[request->command];
    protection = Protection::kSigned;
  }
  if (config_.interim != InterimAnswers::kNone && security_ &&
      request->command != Command::kSessionSetup) {
    Smb2Header interim = *request;
    interim.flags = kFlagAsyncCommand;
    interim.status = kStatusPending;
    interim.async_id = 0x99;
    const Body error_body = Body(9).u16(0, 9);
    send(interim, error_body.b,
         config_.interim == InterimAnswers::kInClear ? Protection::kNone : protection);
  }
  std::uint32_t status = kStatusSuccess;
  const Bytes body = answer(*request, message, status);
  Smb2Header response = *request;
  response.flags = 0;
  response.status = status;
  if (request->command == Command::kTreeConnect) {
    response.tree_id = kTreeId;
  }
  send(response, body, protection);
}

Bytes ScriptedServer::answer(const Smb2Header& request, std::span<const std::uint8_t> message,
                             std::uint32_t& status) {
  switch (request.command) {
    case Command::kNegotiate:
      if (const Status s = connection_hash_.update(message); !s) {
        broken_ = true;
      }
      return negotiate_answer();
    case Command::kSessionSetup:
      return session_setup_answer(message, status);
    case Command::kTreeConnect:
      return Body(16).u16(0, 16).u8(2, 1).u32(12, 0x001f01ff).b;
    case Command::kIoctl:
      return ioctl_answer();
    case Command::kCreate:
      return Body(88).u16(0, 89).u32(4, 1).u32(56, 0x10).u64(64, 0x1111).u64(72, 0x2222).b;
    case Command::kQueryDirectory:
      return directory_answer(status);
    case Command::kClose:
      return Body(60).u16(0, 60).b;
    default:
      return Body(4).u16(0, 4).b;
  }
}

Bytes ScriptedServer::negotiate_answer() {
  // The fixed part, then (3.1.1) three contexts, each 8-byte aligned: preauth integrity at 64
  // (SHA-512, a 32-byte salt), encryption at 112, signing at 128.
  const bool v311 = config_.dialect == Dialect::kSmb311;
  Body n(v311 ? 140 : 65);
  n.u16(0, 65)
      .u16(2, static_cast<std::uint16_t>(kSigningEnabled |
                                         (config_.require_signing ? kSigningRequired : 0)))
      .u16(4, static_cast<std::uint16_t>(config_.dialect));
  std::copy(kServerGuid.begin(), kServerGuid.end(), n.b.begin() + 8);
  n.u32(24, kCapLargeMtu | (is_30x(config_.dialect) && config_.encrypt ? kCapEncryption : 0));
  n.u32(28, kMaxIo).u32(32, kMaxIo).u32(36, kMaxIo);
  n.u16(56, static_cast<std::uint16_t>(kHeaderSize + 64)).u16(58, 0);
  if (!v311) {
    return n.b;
  }
  n.u16(6, 3).u32(60, static_cast<std::uint32_t>(kHeaderSize + 64));
  n.u16(64, 1).u16(66, 38).u16(72, 1).u16(74, 32).u16(76, 1);
  n.u16(112, 2).u16(114, 4).u16(120, 1);
  n.u16(122, config_.encrypt ? static_cast<std::uint16_t>(config_.cipher) : std::uint16_t{0});
  n.u16(128, 8).u16(130, 4).u16(136, 1).u16(138, static_cast<std::uint16_t>(config_.signing));
  return n.b;
}

Bytes ScriptedServer::session_setup_answer(std::span<const std::uint8_t> message,
                                           std::uint32_t& status) {
  if (session_setups_++ == 0) {
    session_hash_ = connection_hash_;
  }
  if (const Status s = session_hash_.update(message); !s) {
    broken_ = true;
  }
  Body ss(8);
  ss.u16(0, 9).u16(4, static_cast<std::uint16_t>(kHeaderSize + 8));
  if (session_setups_ == 1) {
    status = kStatusMoreProcessingRequired;
    const Bytes token = config_.ntlm ? ntlm_challenge() : Bytes{0x60, 0x01, 0x00};
    ss.u16(6, static_cast<std::uint16_t>(token.size())).append(token);
    return ss.b;
  }
  // The last round: the session's keys exist from here on, and sign this answer.
  SessionConfig sc;
  sc.role = Role::kServer;
  sc.dialect = config_.dialect;
  sc.cipher = config_.dialect == Dialect::kSmb311 ? config_.cipher : Cipher::kAes128Ccm;
  sc.signing = config_.signing;
  sc.protection = config_.session_key.empty() ? Protection::kNone
                  : config_.encrypt           ? Protection::kEncrypted
                                              : Protection::kSigned;
  sc.session_id = config_.session_id;
  sc.session_key = config_.session_key;
  sc.preauth_hash = session_hash_.value();
  security_.emplace(sc);
  ss.u16(2, config_.session_flags);
  return ss.b;
}

Bytes ScriptedServer::ioctl_answer() const {
  // FSCTL_VALIDATE_NEGOTIATE_INFO: what the server really chose.
  Body io(48);
  io.u16(0, 49).u32(4, kFsctlValidateNegotiateInfo).u64(8, ~std::uint64_t{0});
  constexpr auto kOutputOffset = static_cast<std::uint32_t>(kHeaderSize + 48);
  io.u64(16, ~std::uint64_t{0}).u32(24, kOutputOffset).u32(32, kOutputOffset).u32(36, 24);
  Body out(24);
  out.u32(0, kCapLargeMtu | (is_30x(config_.dialect) && config_.encrypt ? kCapEncryption : 0));
  std::copy(kServerGuid.begin(), kServerGuid.end(), out.b.begin() + 4);
  out.u16(20, static_cast<std::uint16_t>(kSigningEnabled |
                                         (config_.require_signing ? kSigningRequired : 0)));
  out.u16(22, static_cast<std::uint16_t>(config_.dialect));
  return io.append(out.b).b;
}

Bytes ScriptedServer::directory_answer(std::uint32_t& status) {
  if (list_rounds_sent_ == config_.list_rounds) {
    list_rounds_sent_ = 0;  // the next listing starts over
    status = kStatusNoMoreFiles;
    return Body(9).u16(0, 9).b;
  }
  const Bytes entries = directory_entries(list_rounds_sent_++, config_.list_entries_per_round);
  entries_sent_ += config_.list_entries_per_round;
  return Body(8)
      .u16(0, 9)
      .u16(2, static_cast<std::uint16_t>(kHeaderSize + 8))
      .u32(4, static_cast<std::uint32_t>(entries.size()))
      .append(entries)
      .b;
}

void ScriptedServer::send(Smb2Header header, std::span<const std::uint8_t> body,
                          Protection protection) {
  header.flags |= kFlagServerToRedir;
  header.credits = std::max<std::uint16_t>(header.credits, 1);
  if (header.command == Command::kSessionSetup) {
    header.session_id = config_.session_id;
  }
  const bool final_session_setup =
      header.command == Command::kSessionSetup && header.status == kStatusSuccess;
  Bytes message(kHeaderSize);
  static_cast<void>(encode_header(header, message));
  message.insert(message.end(), body.begin(), body.end());
  if (header.command == Command::kNegotiate) {
    if (const Status s = connection_hash_.update(message); !s) {
      broken_ = true;
    }
  } else if (header.command == Command::kSessionSetup && !final_session_setup) {
    if (const Status s = session_hash_.update(message); !s) {
      broken_ = true;
    }
  }
  if (final_session_setup && !config_.session_key.empty()) {
    protection = Protection::kSigned;  // §3.3.5.5.3: signed with the new session's keys
  }
  Bytes frame(kFramePrefixSize);
  if (protection == Protection::kEncrypted) {
    Bytes sealed(kTransformHeaderSize);
    sealed.insert(sealed.end(), message.begin(), message.end());
    const Result<std::size_t> n = security_->seal(sealed, message.size());
    if (!n) {
      broken_ = true;
      return;
    }
    frame.insert(frame.end(), sealed.begin(), sealed.end());
  } else {
    if (protection == Protection::kSigned && !security_->sign(message)) {
      broken_ = true;
      return;
    }
    if (rewrite_response) {
      rewrite_response(message);
    }
    frame.insert(frame.end(), message.begin(), message.end());
  }
  static_cast<void>(encode_frame_prefix(frame.size() - kFramePrefixSize, frame));
  outbox_.insert(outbox_.end(), frame.begin(), frame.end());
}

}  // namespace wireseal::smb::test
