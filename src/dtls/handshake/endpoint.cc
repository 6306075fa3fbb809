// The Endpoint's public face: record dispatch for incoming datagrams, the output queue, the
// retransmission timer, application data and the exporters. The handshake itself is in
// client_flow.cc and server_flow.cc.
#include "wireseal/dtls/endpoint.h"

#include <algorithm>
#include <new>
#include <stdexcept>

#include "codec.h"
#include "common/byte_cursor.h"
#include "common/create.h"
#include "common/ct.h"
#include "endpoint_state.h"
#include "record_crypto.h"
#include "wireseal/crypto/hash.h"
#include "wireseal/crypto/kdf.h"
#include "wireseal/dtls/record.h"

namespace wireseal::dtls {

namespace detail {

constexpr std::chrono::milliseconds kTimerSlack{15};
// The shortest gap between two resends answering a connected peer's repeats: the fastest
// retransmission timer in the field (Chromium's first, 50 ms) repeats no sooner.
constexpr std::chrono::milliseconds kMinRepeatAnswerGap{50};

namespace {

constexpr std::array<std::uint16_t, 3> kDefaultGroups{29, 23, 24};
constexpr std::array<std::uint16_t, 9> kDefaultSchemes{
    0x0403, 0x0503, 0x0807, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601,
};
constexpr std::size_t kMinMtu = 256;
constexpr std::size_t kMaxPlaintext = 16384;  // RFC 5246 §6.2.1

bool usable_suite(const EndpointConfig& c, const CipherSuite& suite) noexcept {
  if (!suite_info(suite.code)) {
    return false;
  }
  if (suite.auth == SuiteAuth::kPsk) {
    return !c.psk.empty();
  }
  if (c.role == Role::kClient) {
    return true;  // the server's certificate is checked when it arrives
  }
  return c.certificate && key_fits_suite(c.certificate->key.type(), suite.auth);
}

std::vector<std::uint16_t> resolve_suites(const EndpointConfig& c) {
  const std::span<const std::uint16_t> wanted =
      c.cipher_suites.empty() ? default_cipher_suites() : std::span(c.cipher_suites);
  std::vector<std::uint16_t> out;
  for (std::uint16_t code : wanted) {
    const CipherSuite* suite = find_cipher_suite(code);
    if (suite != nullptr && usable_suite(c, *suite) &&
        std::find(out.begin(), out.end(), code) == out.end()) {
      out.push_back(code);
    }
  }
  if (out.empty()) {
    throw std::invalid_argument("dtls::Endpoint: no cipher suite usable with this identity");
  }
  return out;
}

std::vector<std::uint16_t> resolve_groups(const EndpointConfig& c) {
  const std::span<const std::uint16_t> wanted =
      c.groups.empty() ? std::span<const std::uint16_t>(kDefaultGroups) : std::span(c.groups);
  std::vector<std::uint16_t> out;
  for (std::uint16_t code : wanted) {
    if (crypto::named_group(code)) {
      out.push_back(code);
    }
  }
  return out;
}

std::vector<std::uint16_t> resolve_schemes(const EndpointConfig& c) {
  const std::span<const std::uint16_t> wanted =
      c.signature_schemes.empty() ? std::span<const std::uint16_t>(kDefaultSchemes)
                                  : std::span(c.signature_schemes);
  std::vector<std::uint16_t> out;
  for (std::uint16_t code : wanted) {
    if (crypto::is_known(code)) {
      out.push_back(code);
    }
  }
  return out;
}

const EndpointConfig& checked(const std::shared_ptr<const EndpointConfig>& c) {
  if (!c) {
    throw std::invalid_argument("dtls::Endpoint: no configuration");
  }
  if (c->mtu < kMinMtu || c->mtu > 0xffff) {
    throw std::invalid_argument("dtls::Endpoint: mtu outside [256, 65535]");
  }
  if (c->role == Role::kServer && !c->certificate && c->psk.empty()) {
    throw std::invalid_argument("dtls::Endpoint: a server needs a certificate or a PSK");
  }
  if (c->connection_id && c->connection_id->size() > kMaxCidLength) {
    throw std::invalid_argument("dtls::Endpoint: connection_id over 255 bytes");
  }
  if (c->random.fill == nullptr || c->initial_retransmit_timeout.count() <= 0 ||
      c->max_handshake_message < 1024) {
    throw std::invalid_argument("dtls::Endpoint: random source, timer or message bound unset");
  }
  return *c;
}

bool terminal(HandshakeState state) noexcept {
  return state == HandshakeState::kFailed || state == HandshakeState::kClosed;
}

void queue_alert(EndpointState& s, AlertLevel level, AlertDescription description) noexcept {
  s.alert_pending = true;
  s.alert_level = level;
  s.alert_description = description;
}

// --- incoming records

Status handle_alert(EndpointState& s, std::span<const std::uint8_t> content) noexcept {
  if (content.size() != kAlertSize) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError,
                    "an alert record that is not one alert"});
  }
  const auto level = static_cast<AlertLevel>(content[0]);
  if (level != AlertLevel::kWarning && level != AlertLevel::kFatal) {
    return fail(
        s, {Error::kMalformed, AlertDescription::kIllegalParameter, "an alert of unknown level"});
  }
  const auto description = static_cast<AlertDescription>(content[1]);
  if (description == AlertDescription::kCloseNotify) {
    if (!s.closing) {
      queue_alert(s, AlertLevel::kWarning, AlertDescription::kCloseNotify);
    }
    s.closing = true;
    s.state = HandshakeState::kClosed;
    s.event = PendingEvent::kClosed;
    s.timer_running = false;
    return {};
  }
  if (level != AlertLevel::kFatal) {
    return {};  // warnings (no_renegotiation, user_canceled) change nothing here
  }
  s.failure = Failure{Error::kPeerAlert, description, true, "the peer sent a fatal alert"};
  s.state = HandshakeState::kFailed;
  s.event = PendingEvent::kFailed;
  s.timer_running = false;
  return Error::kPeerAlert;
}

// note_after_handshake handles a handshake fragment of the connected association, which
// only arrives under its keys (epoch 0 is dropped unread once the peer switched): an old
// message_seq means the peer lost our last flight; a new one is a renegotiation attempt,
// refused (RFC 5746 §4).
// repeats_answered_flight: `f` ends a repeat of the peer flight our last flight answers —
// the final fragment of its last message. Only that fragment triggers a resend, so a peer
// that repeats its flight in many small records (or duplicates them) gets our flight once
// per repeat, not once per fragment.
bool repeats_answered_flight(const EndpointState& s, const HandshakeFragment& f) noexcept {
  return f.message_seq >= s.answers_from && f.message_seq == s.answers_to &&
         f.fragment_offset + f.body.size() == f.length;
}

Status note_after_handshake(EndpointState& s, const HandshakeFragment& f) noexcept {
  if (f.message_seq < s.reassembler.next_seq()) {
    s.peer_retransmitted = s.peer_retransmitted || repeats_answered_flight(s, f);
    return {};
  }
  const auto type = static_cast<HandshakeType>(f.msg_type);
  const bool renegotiation = type == (s.role == Role::kServer ? HandshakeType::kClientHello
                                                              : HandshakeType::kHelloRequest);
  if (!renegotiation) {
    return fail(s, {Error::kBadState, AlertDescription::kUnexpectedMessage,
                    "a handshake message after the handshake"});
  }
  if (!s.alert_pending) {
    queue_alert(s, AlertLevel::kWarning, AlertDescription::kNoRenegotiation);
  }
  return {};
}

// may_answer_repeat bounds the resends a connected association makes for a peer that lost
// our last flight: the repeats that trigger them are authenticated and replay-checked, but
// even the real peer gets at most max_retransmissions resends, kMinRepeatAnswerGap apart.
bool may_answer_repeat(EndpointState& s) noexcept {
  const bool too_soon =
      s.repeats_answered != 0 && s.now - s.last_repeat_answered < kMinRepeatAnswerGap;
  if (too_soon || s.repeats_answered >= s.config->max_retransmissions) {
    return false;
  }
  ++s.repeats_answered;
  s.last_repeat_answered = s.now;
  return true;
}

Status handle_message(EndpointState& s, const HandshakeMessage& m) noexcept {
  if (!s.peer_flight_begun) {
    s.peer_flight_begun = true;
    s.peer_flight_start = m.message_seq;
  }
  const Status st =
      s.role == Role::kClient ? client_handle_message(s, m) : server_handle_message(s, m);
  if (st && s.early_change_cipher_spec && s.state == HandshakeState::kWaitChangeCipherSpec) {
    s.early_change_cipher_spec = false;
    handle_change_cipher_spec(s);
  }
  return st;
}

Status handle_handshake(EndpointState& s, std::span<const std::uint8_t> content,
                        std::uint64_t record_sequence) noexcept {
  HandshakeReader reader(content);
  while (!reader.done() && !terminal(s.state)) {
    const Result<HandshakeFragment> f = reader.next();
    if (!f) {
      s.stats.drops.count(Error::kMalformed);
      return {};
    }
    if (s.state == HandshakeState::kConnected) {
      if (const Status st = note_after_handshake(s, *f); !st) {
        return st;
      }
      continue;
    }
    if (s.state == HandshakeState::kWaitClientHello &&
        f->msg_type == static_cast<std::uint8_t>(HandshakeType::kClientHello) &&
        f->message_seq <= 1) {
      s.reassembler.start_at(f->message_seq);
      // Our epoch-0 records continue from the hello's record number, as OpenSSL's server
      // does: a stateless HelloVerifyRequest already used the number of the hello before it,
      // and a client with an epoch-0 replay window (OpenSSL's) drops a ServerHello that
      // repeats it, then waits a whole retransmission timeout.
      s.writer.continue_plaintext_from(record_sequence);
    }
    switch (s.reassembler.add(*f)) {
      case FragmentOutcome::kAccepted:
      // kOld: while the handshake runs our timer resends; answering repeats as well would send
      // duplicates a peer may take for a protocol error (BoGo's runner does).
      case FragmentOutcome::kOld:
        break;
      case FragmentOutcome::kTooLarge:
        return fail(s, {Error::kMalformed, AlertDescription::kHandshakeFailure,
                        "a handshake message is longer than max_handshake_message"});
      default:
        s.stats.drops.count(Error::kMalformed);
        break;
    }
    while (const std::optional<HandshakeMessage> m = s.reassembler.ready()) {
      const Status st = handle_message(s, *m);
      if (!terminal(s.state)) {
        s.reassembler.release();
      }
      if (!st) {
        return st;
      }
    }
  }
  return {};
}

// dispatch hands a record's content to its protocol. `epoch` 0 here means no keys are in use
// yet (handle_record drops epoch-0 records once the peer has switched).
Status dispatch(EndpointState& s, ContentType type, std::span<std::uint8_t> content,
                std::uint16_t epoch, std::uint64_t sequence) noexcept {
  switch (type) {
    case ContentType::kHandshake:
      return handle_handshake(s, content, sequence);
    case ContentType::kChangeCipherSpec:
      if (epoch == 0 && content.size() == 1 && content[0] == 1) {
        handle_change_cipher_spec(s);
      } else {
        s.stats.drops.count(Error::kMalformed);
      }
      return {};
    case ContentType::kAlert:
      return handle_alert(s, content);
    case ContentType::kApplicationData:
      if (epoch != 0 && s.state == HandshakeState::kConnected) {
        if (content.size() > kMaxPlaintext) {
          return fail(s, {Error::kMalformed, AlertDescription::kRecordOverflow,
                          "a record over 2^14 bytes of plaintext"});
        }
        s.data = content;
        return {};
      }
      if (epoch == 0) {
        return fail(s, {Error::kBadState, AlertDescription::kUnexpectedMessage,
                        "application data before the handshake completed"});
      }
      s.stats.drops.count(Error::kWrongContext);
      return {};
    default:
      if (epoch == 0) {
        s.stats.drops.count(Error::kMalformed);  // an invalid record anyone could have sent
        return {};
      }
      return fail(s, {Error::kMalformed, AlertDescription::kUnexpectedMessage,
                      "a record of unknown content type"});
  }
}

Status handle_record(EndpointState& s, const RecordView& view,
                     std::span<std::uint8_t> record) noexcept {
  if (view.epoch == 0) {
    // A CID record is always protected (RFC 9146 §4): one in epoch 0 is noise.
    if ((view.version != kDtls12Version && view.version != kDtls10Version) ||
        view.type == ContentType::kTls12Cid) {
      s.stats.drops.count(Error::kMalformed);
      return {};
    }
    if (s.read_epoch != 0) {
      // Once the peer writes under keys, an epoch-0 record proves nothing about its sender:
      // anyone who knows the 5-tuple can make one. Nothing it says (a repeated or new
      // handshake message, an alert, an unknown type) may end, answer or change the
      // association, so it is discarded unread (RFC 6347 §4.1.2.7).
      s.stats.drops.count(Error::kWrongContext);
      return {};
    }
    const std::size_t header = view.header.size();
    return dispatch(s, view.type, record.subspan(header), 0, view.sequence);
  }
  if (view.epoch != s.read_epoch || !s.opener) {
    s.stats.drops.count(Error::kWrongContext);  // e.g. Finished overtaking its CCS
    return {};
  }
  const Result<OpenedRecord> opened = s.opener->open(record);
  if (!opened) {
    s.stats.drops.count(opened.error());
    return {};
  }
  return dispatch(s, opened->type, opened->plaintext, view.epoch, view.sequence);
}

// drain_input works through the records left in the datagram until one carries application
// data (handed out by poll_output before the next is decrypted) or the datagram ends.
Status drain_input(EndpointState& s) noexcept {
  while (!s.input.empty() && s.data.empty() && !terminal(s.state)) {
    const Result<RecordView> view = parse_record(s.input, s.read_cid_size);
    if (!view) {
      s.stats.drops.count(Error::kMalformed);
      s.input = {};
      break;
    }
    const std::span<std::uint8_t> record = s.input.first(view->record.size());
    s.input = s.input.subspan(record.size());
    if (const Status st = handle_record(s, *view, record); !st) {
      s.input = {};
      return st;
    }
  }
  if (s.input.empty() && s.peer_retransmitted) {
    s.peer_retransmitted = false;
    if (!s.flight.empty() && !s.flight.pending() && may_answer_repeat(s)) {
      s.flight.rewind();
      ++s.stats.retransmissions;
    }
  }
  return {};
}

Result<std::size_t> write_alert(EndpointState& s, std::span<std::uint8_t> out) noexcept {
  const std::uint16_t epoch = s.writer.current_epoch();
  const std::size_t at = s.writer.payload_offset(epoch);
  if (out.size() < s.writer.sealed_size(epoch, kAlertSize)) {
    return Error::kBufferTooSmall;
  }
  out[at] = static_cast<std::uint8_t>(s.alert_level);
  out[at + 1] = static_cast<std::uint8_t>(s.alert_description);
  s.alert_pending = false;
  return s.writer.write(epoch, ContentType::kAlert, out, kAlertSize);
}

Instant next_deadline(const EndpointState& s) noexcept {
  const std::chrono::milliseconds limit = s.config->handshake_timeout;
  return limit.count() > 0 ? std::min(s.deadline, s.started + limit) : s.deadline;
}

Output event_output(PendingEvent event) noexcept {
  Output out;
  out.kind = event == PendingEvent::kConnected ? Output::Kind::kConnected
             : event == PendingEvent::kClosed  ? Output::Kind::kClosed
                                               : Output::Kind::kFailed;
  return out;
}

}  // namespace

EndpointState::EndpointState(std::shared_ptr<const EndpointConfig> c)
    : config(std::move(c)),
      role(checked(config).role),
      state(role == Role::kClient ? HandshakeState::kStart : HandshakeState::kWaitClientHello),
      suites(resolve_suites(*config)),
      groups(resolve_groups(*config)),
      signature_schemes(resolve_schemes(*config)),
      retransmit_timeout(config->initial_retransmit_timeout),
      own_connection_id(config->connection_id) {
  const std::size_t max = config->max_handshake_message;
  // Room for the longest message and its coverage bits, plus the small messages around it.
  reassembly_storage.resize(max + max / 8 + 4096);
  reassembler = HandshakeReassembler(reassembly_storage, max);
  log.reserve(4096);
  for (const std::string& name : config->alpn_protocols) {
    if (name.empty() || name.size() > 255) {
      throw std::invalid_argument("dtls::Endpoint: an ALPN protocol name is empty or too long");
    }
    alpn_offer.push_back(static_cast<std::uint8_t>(name.size()));
    alpn_offer.insert(alpn_offer.end(), name.begin(), name.end());
  }
  if (role == Role::kServer) {
    writer.set_plaintext_version(kDtls12Version);
  }
}

Status fail(EndpointState& s, const Fatal& why) noexcept {
  s.failure = Failure{why.error, why.alert, false, why.reason};
  if (why.error != Error::kTimedOut) {
    queue_alert(s, AlertLevel::kFatal, why.alert);
  }
  s.state = HandshakeState::kFailed;
  s.event = PendingEvent::kFailed;
  s.timer_running = false;
  s.flight.clear();
  return why.error;
}

Status log_message(EndpointState& s, std::uint8_t msg_type, std::uint16_t message_seq,
                   std::span<const std::uint8_t> body) noexcept {
  std::array<std::uint8_t, kHandshakeHeaderSize> header{};
  ByteWriter w(header);
  write_handshake_header(w, msg_type, body.size(), message_seq, 0, body.size());
  try {
    s.log.insert(s.log.end(), header.begin(), header.end());
    s.log.insert(s.log.end(), body.begin(), body.end());
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return {};
}

Result<std::size_t> log_hash(const EndpointState& s, std::span<std::uint8_t> out) noexcept {
  const std::size_t n = crypto::digest_length(s.prf_hash);
  if (out.size() < n) {
    return Error::kBufferTooSmall;
  }
  if (const Status st = crypto::Hash::digest(s.prf_hash, s.log, out.first(n)); !st) {
    return st.error();
  }
  return n;
}

void begin_flight(EndpointState& s) noexcept { s.flight.clear(); }

void finish_flight(EndpointState& s, bool expects_reply) noexcept {
  // The message being handled (not yet released) ends the peer flight this one answers.
  if (s.peer_flight_begun) {
    s.answers_from = s.peer_flight_start;
    s.answers_to = s.reassembler.next_seq();
  }
  s.peer_flight_begun = false;
  s.early_change_cipher_spec = false;  // a CCS from before our flight cannot answer it
  s.flight.rewind();
  s.flight_expects_reply = expects_reply;
  s.timer_running = expects_reply;
  s.retransmit_timeout = s.config->initial_retransmit_timeout;
  s.deadline = s.now + s.retransmit_timeout;
  s.timeouts = 0;
}

namespace {

// awaits_change_cipher_spec_later: the peer's current flight still has handshake messages
// to come before its ChangeCipherSpec, which may overtake them (BoGo reorders it).
bool awaits_change_cipher_spec_later(HandshakeState state) noexcept {
  switch (state) {
    case HandshakeState::kWaitServerHello:  // a resumption's flight ends in CCS, Finished
    case HandshakeState::kWaitNewSessionTicket:
    case HandshakeState::kWaitClientCertificate:
    case HandshakeState::kWaitClientKeyExchange:
    case HandshakeState::kWaitCertificateVerify:
      return true;
    default:
      return false;
  }
}

}  // namespace

void handle_change_cipher_spec(EndpointState& s) noexcept {
  if (s.read_epoch == 0 && awaits_change_cipher_spec_later(s.state)) {
    // Kept until the messages before it are in; the Finished that follows still checks the
    // whole handshake, so an injected one gains nothing.
    s.early_change_cipher_spec = true;
    return;
  }
  if (s.state != HandshakeState::kWaitChangeCipherSpec || !s.pending_opener) {
    s.stats.drops.count(Error::kWrongContext);  // early or repeated: the peer will resend
    return;
  }
  s.opener = std::move(s.pending_opener);
  s.pending_opener.reset();
  s.read_epoch = 1;
  s.reassembler.discard_pending();
  s.state = HandshakeState::kWaitFinished;
}

}  // namespace detail

using detail::EndpointState;
using detail::HandshakeState;
using detail::PendingEvent;

Endpoint::Endpoint(std::shared_ptr<const EndpointConfig> config)
    : state_(std::make_unique<EndpointState>(std::move(config))) {}

Result<Endpoint> Endpoint::create(std::shared_ptr<const EndpointConfig> config) noexcept {
  return wireseal::detail::try_create<Endpoint>(std::move(config));
}

Endpoint::~Endpoint() = default;
Endpoint::Endpoint(Endpoint&&) noexcept = default;
Endpoint& Endpoint::operator=(Endpoint&&) noexcept = default;

Role Endpoint::role() const noexcept { return state_->role; }

Status Endpoint::offer_session(const Session& session) noexcept {
  EndpointState& s = *state_;
  if (s.role != Role::kClient || s.clock_started) {
    return Error::kBadState;
  }
  const bool suite_offered =
      std::find(s.suites.begin(), s.suites.end(), session.cipher_suite) != s.suites.end();
  if (!session.resumable() || session.id_size > kMaxSessionIdSize || !suite_offered ||
      (!session.extended_master_secret && s.config->require_extended_master_secret)) {
    return Error::kInvalidArgument;
  }
  try {
    s.offered_session = session;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  if (!detail::recheck_saved_peer(s, *s.offered_session)) {
    s.offered_session.reset();
    return Error::kAuthFailed;
  }
  return {};
}

Status Endpoint::use_connection_id(std::span<const std::uint8_t> cid) noexcept {
  EndpointState& s = *state_;
  if (s.clock_started || !s.own_connection_id) {
    return Error::kBadState;
  }
  if (cid.size() > kMaxCidLength) {
    return Error::kInvalidArgument;
  }
  try {
    s.own_connection_id->assign(cid.begin(), cid.end());
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return {};
}

std::span<const std::uint8_t> Endpoint::connection_id() const noexcept {
  const std::optional<std::vector<std::uint8_t>>& cid = state_->own_connection_id;
  return cid ? std::span<const std::uint8_t>(*cid) : std::span<const std::uint8_t>{};
}

Status Endpoint::start(Instant now) noexcept {
  EndpointState& s = *state_;
  if (s.clock_started) {
    return Error::kBadState;
  }
  s.now = now;
  s.started = now;
  s.clock_started = true;
  if (s.role == Role::kServer) {
    return {};
  }
  return detail::start_client(s);
}

Status Endpoint::handle_datagram(Instant now, std::span<std::uint8_t> datagram) noexcept {
  EndpointState& s = *state_;
  if (s.state == HandshakeState::kFailed) {
    return s.failure.error;
  }
  if (!s.clock_started) {
    s.started = now;
    s.clock_started = true;
  }
  s.now = now;
  ++s.stats.datagrams_in;
  s.input = datagram;
  s.data = {};
  return detail::drain_input(s);
}

Status Endpoint::handle_timeout(Instant now) noexcept {
  EndpointState& s = *state_;
  s.now = now;
  if (s.state == HandshakeState::kFailed) {
    return s.failure.error;
  }
  if (!s.timer_running || s.state == HandshakeState::kConnected || detail::terminal(s.state)) {
    return {};
  }
  const std::chrono::milliseconds limit = s.config->handshake_timeout;
  if (limit.count() > 0 && now - s.started >= limit) {
    return detail::fail(s, {Error::kTimedOut, AlertDescription::kHandshakeFailure,
                            "the handshake did not complete within handshake_timeout"});
  }
  // A timer that wakes within kTimerSlack of the deadline counts as expired, as BoringSSL's
  // does: event loops wake a little early (timer granularity), and a second wake-up for the
  // last milliseconds would only delay the resend.
  if (now + detail::kTimerSlack >= s.deadline) {
    if (s.timeouts == s.config->max_retransmissions) {
      return detail::fail(s, {Error::kTimedOut, AlertDescription::kHandshakeFailure,
                              "the peer did not answer after max_retransmissions resends"});
    }
    ++s.timeouts;
    s.retransmit_timeout = std::min(2 * s.retransmit_timeout, s.config->max_retransmit_timeout);
    s.deadline = now + s.retransmit_timeout;
    s.flight.rewind();
    ++s.stats.retransmissions;
  }
  return {};
}

Status Endpoint::close() noexcept {
  EndpointState& s = *state_;
  if (detail::terminal(s.state) || s.closing) {
    return Error::kBadState;
  }
  s.closing = true;
  detail::queue_alert(s, AlertLevel::kWarning, AlertDescription::kCloseNotify);
  return {};
}

Status Endpoint::abort(AlertDescription alert) noexcept {
  EndpointState& s = *state_;
  if (detail::terminal(s.state)) {
    return Error::kBadState;
  }
  (void)detail::fail(s, {Error::kBadState, alert, "the application ended the association"});
  return {};
}

std::size_t Endpoint::max_datagram_size() const noexcept { return state_->config->mtu; }

Result<Output> Endpoint::poll_output(std::span<std::uint8_t> buffer) noexcept {
  EndpointState& s = *state_;
  if (buffer.size() < s.config->mtu) {
    return Error::kBufferTooSmall;
  }
  for (;;) {
    Output out;
    if (s.alert_pending) {
      const Result<std::size_t> n = detail::write_alert(s, buffer);
      if (n) {
        ++s.stats.datagrams_out;
        out.kind = Output::Kind::kDatagram;
        out.size = *n;
        return out;
      }
    }
    if (s.flight.pending() && s.state != HandshakeState::kFailed) {
      const Result<std::size_t> n = s.flight.pack(s.writer, buffer, s.config->mtu);
      if (!n) {
        return n.error();
      }
      ++s.stats.datagrams_out;
      out.kind = Output::Kind::kDatagram;
      out.size = *n;
      return out;
    }
    if (s.event != PendingEvent::kNone) {
      const PendingEvent event = s.event;
      s.event = PendingEvent::kNone;
      return detail::event_output(event);
    }
    if (!s.data.empty()) {
      out.kind = Output::Kind::kApplicationData;
      out.data = s.data;
      s.data = {};
      return out;
    }
    if (!s.input.empty() && !detail::terminal(s.state)) {
      (void)detail::drain_input(s);  // a failure shows up as the kFailed event
      continue;
    }
    if (s.timer_running && !detail::terminal(s.state)) {
      out.kind = Output::Kind::kTimeout;
      out.deadline = detail::next_deadline(s);
      return out;
    }
    return out;  // kIdle
  }
}

Result<std::size_t> Endpoint::send(std::span<const std::uint8_t> plaintext,
                                   std::span<std::uint8_t> out) noexcept {
  EndpointState& s = *state_;
  RecordSealer* sealer = s.writer.sealer();
  if (s.state != HandshakeState::kConnected || s.closing || sealer == nullptr) {
    return Error::kBadState;
  }
  return sealer->seal(ContentType::kApplicationData, plaintext, out);
}

std::size_t Endpoint::sealed_size(std::size_t plaintext_len) const noexcept {
  const RecordSealer* sealer = state_->writer.sealer();
  return sealer != nullptr ? sealer->sealed_size(plaintext_len) : 0;
}

bool Endpoint::connected() const noexcept { return state_->state == HandshakeState::kConnected; }

const Negotiated& Endpoint::negotiated() const noexcept { return state_->negotiated; }

Status Endpoint::export_keying_material(std::string_view label,
                                        std::span<const std::uint8_t> context, bool has_context,
                                        std::span<std::uint8_t> out) const noexcept {
  const EndpointState& s = *state_;
  if (s.state != HandshakeState::kConnected && s.state != HandshakeState::kClosed) {
    return Error::kBadState;
  }
  if (context.size() > 0xffff) {
    return Error::kInvalidArgument;
  }
  // RFC 5705 §4: seed = client_random + server_random [+ uint16 context length + context].
  std::vector<std::uint8_t> seed;
  try {
    seed.reserve(2 * kHelloRandomSize + 2 + context.size());
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  seed.insert(seed.end(), s.client_random.begin(), s.client_random.end());
  seed.insert(seed.end(), s.server_random.begin(), s.server_random.end());
  if (has_context) {
    seed.push_back(static_cast<std::uint8_t>(context.size() >> 8));
    seed.push_back(static_cast<std::uint8_t>(context.size()));
    seed.insert(seed.end(), context.begin(), context.end());
  }
  return crypto::tls12_prf(s.prf_hash, s.master_secret, label, seed, out);
}

Result<SrtpKeyingMaterial> Endpoint::srtp_keying_material() const noexcept {
  const std::uint16_t profile = state_->negotiated.srtp_profile;
  // RFC 5764 §4.1.2, RFC 7714 §14.2: master key and salt lengths per profile.
  std::size_t key = 16;
  std::size_t salt = 14;
  switch (profile) {
    case 0x0001:
    case 0x0002:
    case 0x0005:
    case 0x0006:
      break;
    case 0x0007:
      salt = 12;
      break;
    case 0x0008:
      key = 32;
      salt = 12;
      break;
    default:
      return Error::kBadState;
  }
  SrtpKeyingMaterial m;
  m.profile = profile;
  m.size = 2 * (key + salt);
  if (const Status st = export_keying_material("EXTRACTOR-dtls_srtp", {}, false,
                                               std::span(m.bytes).first(m.size));
      !st) {
    return st.error();
  }
  return m;
}

Result<Session> Endpoint::session() const noexcept {
  const EndpointState& s = *state_;
  if (s.state != HandshakeState::kConnected && s.state != HandshakeState::kClosed) {
    return Error::kBadState;
  }
  if (s.session.id_size == 0 && s.session.ticket.empty()) {
    return Error::kUnsupported;
  }
  return detail::current_session(s);
}

std::string_view Endpoint::application_protocol() const noexcept {
  return state_->application_protocol;
}

std::string_view Endpoint::server_name() const noexcept {
  const EndpointState& s = *state_;
  return s.role == Role::kClient ? std::string_view(s.config->server_name)
                                 : std::string_view(s.requested_server_name);
}

std::span<const std::uint8_t> Endpoint::peer_certificate() const noexcept {
  const EndpointState& s = *state_;
  return s.peer_chain.empty() ? std::span<const std::uint8_t>{} : s.peer_chain.front();
}

const Failure& Endpoint::failure() const noexcept { return state_->failure; }

const EndpointStats& Endpoint::stats() const noexcept { return state_->stats; }

std::size_t Endpoint::memory_used() const noexcept {
  const EndpointState& s = *state_;
  std::size_t n = sizeof(EndpointState) + s.log.capacity() + s.reassembly_storage.capacity() +
                  s.flight.capacity() + s.session.ticket.capacity() +
                  s.session.peer_certificate.capacity();
  for (const std::vector<std::uint8_t>& der : s.peer_chain) {
    n += der.capacity() + sizeof(std::vector<std::uint8_t>);
  }
  const std::size_t crypto = sizeof(detail::RecordCrypto);
  n +=
      (s.opener ? crypto : 0) + (s.pending_opener ? crypto : 0) + (s.writer.sealing() ? crypto : 0);
  return n;
}

}  // namespace wireseal::dtls
