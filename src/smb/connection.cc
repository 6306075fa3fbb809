// Connection: MessageIds, credits, requests in flight and per-session protection of one SMB2/3
// client connection (MS-SMB2 §3.2.4.1 sending, §3.2.5.1 receiving, §3.2.5.2 preauth hash).
#include "wireseal/smb/connection.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>

#include "common/create.h"

namespace wireseal::smb {
namespace {

constexpr std::size_t kMessageOffset = kFramePrefixSize + kTransformHeaderSize;
constexpr std::uint32_t kSyncProcessId = 0xFEFF;  // what Windows clients put in Reserved

std::size_t checked_message_len(const ConnectionConfig& c) {
  if (c.max_message_len < kHeaderSize ||
      c.max_message_len > kMaxFrameLength - kTransformHeaderSize || c.max_in_flight == 0 ||
      c.max_sessions == 0) {
    throw std::invalid_argument("wireseal::smb: connection limits out of range");
  }
  return c.max_message_len;
}

}  // namespace

Connection::Connection(const ConnectionConfig& config)
    : max_message_len_(checked_message_len(config)),
      out_(kMessageOffset + config.max_message_len),
      chain_(std::span<std::uint8_t>(out_).subspan(kMessageOffset)),
      pump_(config.max_message_len + kTransformHeaderSize),
      slots_(std::bit_ceil(2 * config.max_in_flight)),
      max_in_flight_(config.max_in_flight),
      sessions_(config.max_sessions),
      next_message_id_(config.first_message_id),
      credits_(config.credits) {}

Result<Connection> Connection::create(const ConnectionConfig& config) noexcept {
  return wireseal::detail::try_create<Connection>(config);
}

// --- sessions

Status Connection::install(SessionSecurity security) noexcept {
  if (session(security.session_id()) != nullptr) {
    return Error::kBadState;
  }
  for (Installed& s : sessions_) {
    if (!s.security) {
      s.security.emplace(std::move(security));
      return {};
    }
  }
  return Error::kTableFull;
}

void Connection::remove(std::uint64_t session_id) noexcept {
  for (Installed& s : sessions_) {
    if (s.security && s.security->session_id() == session_id) {
      s.security.reset();
    }
  }
}

SessionSecurity* Connection::session(std::uint64_t session_id) noexcept {
  for (Installed& s : sessions_) {
    if (s.security && s.security->session_id() == session_id) {
      return &*s.security;
    }
  }
  return nullptr;
}

Status Connection::verify(const Response& response) noexcept {
  SessionSecurity* s = session(response.header.session_id);
  if (s == nullptr) {
    return Error::kWrongContext;
  }
  return s->verify(response.message);
}

// --- sending

std::span<std::uint8_t> Connection::request_body() noexcept {
  // The next member starts 8-byte aligned after the chain (§3.2.4.1.4).
  const std::size_t start = chain_members_ == 0 ? 0 : (chain_.size() + 7) & ~std::size_t{7};
  const std::span<std::uint8_t> room = std::span<std::uint8_t>(out_).subspan(kMessageOffset);
  return start + kHeaderSize <= room.size() ? room.subspan(start + kHeaderSize)
                                            : std::span<std::uint8_t>{};
}

Protection Connection::protection_for(const Request& request,
                                      const SessionSecurity* s) const noexcept {
  if (s == nullptr) {
    return Protection::kNone;  // NEGOTIATE, or SESSION_SETUP before the session has keys
  }
  if (request.encrypt) {
    return Protection::kEncrypted;
  }
  return request.sign && s->protection() == Protection::kNone ? Protection::kSigned
                                                              : s->protection();
}

Result<std::uint64_t> Connection::add(const Request& request, std::size_t body_len) noexcept {
  const std::uint16_t charge = std::max<std::uint16_t>(request.credit_charge, 1);
  if (in_flight_ >= max_in_flight_ || credits_ < charge) {
    return Error::kBadState;
  }
  // §3.2.4.1.3: a request takes `charge` consecutive MessageIds; 0xFFFF...FF is reserved for
  // oplock breaks, so the sequence ends before it.
  if (next_message_id_ > std::numeric_limits<std::uint64_t>::max() - 1 - charge) {
    return Error::kSequenceExhausted;
  }
  const SessionSecurity* s = session(request.session_id);
  const bool setting_up =
      request.command == Command::kNegotiate || request.command == Command::kSessionSetup;
  if (s == nullptr && request.session_id != 0 && !setting_up) {
    return Error::kWrongContext;
  }
  const Protection protection = protection_for(request, s);
  if (protection == Protection::kEncrypted && !s->can_encrypt()) {
    return Error::kBadState;
  }
  // One frame is protected as a whole, so every member of a chain belongs to one session and
  // one protection.
  if (chain_members_ != 0 &&
      (request.session_id != chain_session_ || protection != chain_protection_)) {
    return Error::kBadState;
  }
  Smb2Header h;
  h.credit_charge = request.credit_charge;
  h.command = request.command;
  h.credits = request.credit_request;
  h.flags = request.flags & ~(kFlagServerToRedir | kFlagAsyncCommand | kFlagSigned);
  h.message_id = next_message_id_;
  h.process_id = kSyncProcessId;
  h.tree_id = request.tree_id;
  h.session_id = request.session_id;
  if (protection == Protection::kSigned) {
    h.flags |= kFlagSigned;
  }
  if (const Result<std::span<std::uint8_t>> body = chain_.append(h, body_len); !body) {
    return body.error();
  }
  if (chain_members_ == 0) {
    chain_session_ = request.session_id;
    chain_protection_ = protection;
    chain_negotiate_ = request.command == Command::kNegotiate;
  }
  ++chain_members_;
  InFlight* slot = &slots_[static_cast<std::size_t>(next_message_id_) & (slots_.size() - 1)];
  while (slot->used) {
    slot = slot + 1 == slots_.data() + slots_.size() ? slots_.data() : slot + 1;
  }
  *slot = InFlight{next_message_id_, request.session_id, protection, true};
  ++in_flight_;
  credits_ -= charge;
  const std::uint64_t id = next_message_id_;
  next_message_id_ += charge;
  return id;
}

std::span<const std::uint8_t> Connection::pending_chain() const noexcept {
  return std::span<const std::uint8_t>(out_).subspan(kMessageOffset, chain_.size());
}

Result<std::span<const std::uint8_t>> Connection::flush() noexcept {
  if (chain_members_ == 0) {
    return Error::kBadState;
  }
  const std::size_t chain_len = chain_.size();
  const std::span<std::uint8_t> chain =
      std::span<std::uint8_t>(out_).subspan(kMessageOffset, chain_len);
  if (chain_negotiate_) {
    if (const Status s = preauth_.update(chain); !s) {
      return s.error();
    }
  }
  SessionSecurity* s = session(chain_session_);
  std::size_t frame_start = kTransformHeaderSize;  // the prefix sits right before the chain
  std::size_t frame_len = chain_len;
  Status protected_ok;
  if (chain_protection_ == Protection::kSigned) {
    protected_ok = s->sign_chain(chain);
  } else if (chain_protection_ == Protection::kEncrypted) {
    const Result<std::size_t> sealed =
        s->seal(std::span<std::uint8_t>(out_).subspan(kFramePrefixSize), chain_len);
    protected_ok = sealed ? Status{} : Status{sealed.error()};
    frame_start = 0;
    frame_len = sealed ? *sealed : 0;
  }
  chain_ = ChainBuilder(std::span<std::uint8_t>(out_).subspan(kMessageOffset));
  chain_members_ = 0;
  if (!protected_ok) {
    return protected_ok.error();
  }
  const std::span<std::uint8_t> frame =
      std::span<std::uint8_t>(out_).subspan(frame_start, kFramePrefixSize + frame_len);
  static_cast<void>(encode_frame_prefix(frame_len, frame));
  ++counters_.sent;
  return std::span<const std::uint8_t>(frame);
}

// --- receiving

Connection::InFlight* Connection::find(std::uint64_t message_id) noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(message_id) & mask; slots_[i].used;
       i = (i + 1) & mask) {
    if (slots_[i].message_id == message_id) {
      return &slots_[i];
    }
  }
  return nullptr;
}

void Connection::retire(InFlight* slot) noexcept {
  // Backward-shift deletion, so lookups never need tombstones.
  const std::size_t mask = slots_.size() - 1;
  auto i = static_cast<std::size_t>(slot - slots_.data());
  slots_[i].used = false;
  for (std::size_t j = (i + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
    const std::size_t home = static_cast<std::size_t>(slots_[j].message_id) & mask;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (!stays) {
      slots_[i] = slots_[j];
      slots_[j].used = false;
      i = j;
    }
  }
  --in_flight_;
}

Result<std::optional<Response>> Connection::poll() noexcept {
  for (;;) {
    if (incoming_.done()) {
      const Result<std::optional<std::span<std::uint8_t>>> frame = pump_.next();
      if (!frame || !frame->has_value()) {
        if (!frame) {
          counters_.dropped.count(frame.error());
          return frame.error();
        }
        return std::optional<Response>{};
      }
      ++counters_.received;
      std::span<std::uint8_t> bytes = **frame;
      incoming_encrypted_ = is_transform_message(bytes);
      if (incoming_encrypted_) {
        const Result<TransformHeader> th = decode_transform_header(bytes);
        SessionSecurity* s = th ? session(th->session_id) : nullptr;
        incoming_session_ = th ? th->session_id : 0;
        const Result<std::span<std::uint8_t>> plain =
            !th            ? Result<std::span<std::uint8_t>>(th.error())
            : s == nullptr ? Result<std::span<std::uint8_t>>(Error::kWrongContext)
                           : s->open(bytes);
        if (!plain) {
          counters_.dropped.count(plain.error());
          return plain.error();
        }
        bytes = *plain;
      }
      incoming_ = ChainCursor(bytes);
    }
    const Result<std::optional<Response>> r = next_member();
    if (!r) {
      incoming_ = ChainCursor();
      counters_.dropped.count(r.error());
      return r.error();
    }
    if (r->has_value()) {
      return r;
    }
    // An interim response: only credits; read on.
  }
}

Result<std::optional<Response>> Connection::next_member() noexcept {
  const Result<std::span<std::uint8_t>> message = incoming_.next();
  if (!message) {
    return message.error();
  }
  const Result<Smb2Header> header = decode_header(*message);
  if (!header) {
    return header.error();
  }
  if (!header->is_response()) {
    return Error::kMalformed;
  }
  return accept(*header, *message, incoming_encrypted_);
}

Result<std::optional<Response>> Connection::accept(const Smb2Header& header,
                                                   std::span<std::uint8_t> message,
                                                   bool encrypted) noexcept {
  // An interim STATUS_PENDING answer is not signature-checked (§3.2.5.1.3 skips it, and
  // servers may send it unsigned), but it is held to encryption like a final one: on a
  // session or request that encrypts, anything in clear is forged or a downgrade.
  const bool interim = header.status == kStatusPending && header.is_async();
  // Authenticate first, as far as the message itself allows, before anything in it is used.
  SessionSecurity* s = session(header.session_id);
  bool verified = encrypted;
  if (!encrypted && s != nullptr) {
    // §3.2.5.1.1 / §3.2.5.1.3: a session that encrypts or signs everything accepts nothing
    // less; a signed message of a known session is checked whatever its request was.
    if (s->protection() == Protection::kEncrypted) {
      return Error::kAuthFailed;
    }
    if (!interim && (header.is_signed() || s->protection() == Protection::kSigned)) {
      if (const Status v = s->verify(message); !v) {
        return v.error();
      }
      verified = true;
    }
  }
  InFlight* slot = find(header.message_id);
  if (slot == nullptr) {
    return Error::kReplay;
  }
  Response response{header.message_id, header, message, message.subspan(kHeaderSize),
                    encrypted,         true};
  // A protected request's response belongs to the request's session.
  if (slot->protection != Protection::kNone && header.session_id != slot->session_id) {
    return Error::kWrongContext;
  }
  if (encrypted) {
    // The chain was opened with the transform header's session; each member must be its.
    if (header.session_id != incoming_session_) {
      return Error::kWrongContext;
    }
  } else if (slot->protection == Protection::kEncrypted) {
    // The response to an encrypted request (a share that encrypts) is encrypted too, an
    // interim one included.
    return Error::kAuthFailed;
  } else if (!verified && !interim &&
             (header.is_signed() || slot->protection == Protection::kSigned)) {
    if (s != nullptr) {
      return Error::kAuthFailed;  // unsigned on a signed request
    }
    if (header.command != Command::kSessionSetup || slot->protection != Protection::kNone) {
      return Error::kWrongContext;
    }
    response.verified = false;  // the final SESSION_SETUP response, signed with its new keys
  }
  const std::uint32_t granted = header.credits;
  credits_ = granted > std::numeric_limits<std::uint32_t>::max() - credits_
                 ? std::numeric_limits<std::uint32_t>::max()
                 : credits_ + granted;
  // §3.2.5.1.5: an interim STATUS_PENDING response only grants credits; the final response
  // comes later with the same MessageId.
  if (interim) {
    return std::optional<Response>{};
  }
  if (header.command == Command::kNegotiate) {
    if (const Status h = preauth_.update(message); !h) {
      return h.error();
    }
  }
  retire(slot);
  return std::optional<Response>{response};
}

}  // namespace wireseal::smb
