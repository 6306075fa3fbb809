// Client: the order of an SMB 3.x client's requests (MS-SMB2 §3.2.4) and what it checks in the
// answers (§3.2.5). Bytes are built and parsed by commands/, protected by Connection.
#include "wireseal/smb/client.h"

#include <algorithm>
#include <optional>

#include "commands/commands.h"

namespace wireseal::smb {
namespace {

using namespace commands;  // NOLINT(google-build-using-namespace): this file is their user

constexpr std::size_t kMaxWindow = 64;
constexpr std::uint32_t kSmall = 65536;  // the largest READ/WRITE without LARGE_MTU
constexpr std::uint16_t kCreditsToHold = 512;

bool is_30x(Dialect d) { return d == Dialect::kSmb300 || d == Dialect::kSmb302; }

template <class T>
bool contains(const std::vector<T>& v, T x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

ConnectionConfig connection_config(const ClientConfig& c) {
  ConnectionConfig cc;
  // Room for the largest chunk with its headers; the server's own maxima cap it further.
  cc.max_message_len = std::max<std::size_t>(c.chunk_size, kSmall) + 4096;
  cc.max_in_flight = std::clamp<std::size_t>(c.window, 1, kMaxWindow) + 4;
  return cc;
}

// credit_charge is §3.2.4.1.5's charge of a READ or WRITE of `len` bytes.
std::uint16_t credit_charge(std::size_t len) {
  return static_cast<std::uint16_t>(1 + (std::max<std::size_t>(len, 1) - 1) / kSmall);
}

}  // namespace

// Pending is one chunk of a pipelined read or write.
struct Client::Pending {
  std::uint64_t message_id = 0;
  std::uint64_t at = 0;  // offset from the start of the transfer
  std::uint32_t length = 0;
  bool used = false;
};

Client::Client(Transport& transport, const ClientConfig& config, Connection connection)
    : transport_(&transport), config_(config), connection_(std::move(connection)) {}

Result<Client> Client::connect(Transport& transport, const ClientConfig& config,
                               std::uint32_t* status) {
  Result<Connection> connection = Connection::create(connection_config(config));
  if (!connection) {
    return connection.error();
  }
  Client client(transport, config, std::move(*connection));
  Status s = client.negotiate();
  if (s) {
    s = client.session_setup();
  }
  if (!s) {
    if (status != nullptr) {
      *status = client.last_status();
    }
    return s.error();
  }
  return client;
}

std::optional<Cipher> Client::cipher() const noexcept {
  return session_encrypts_ ? std::optional<Cipher>(cipher_) : std::nullopt;
}

// --- plumbing

Status Client::fail(Error error) noexcept {
  failed_ = true;
  return error;
}

Status Client::refused(const Response& response) noexcept {
  last_status_ = response.header.status;
  return Error::kPeerRefused;
}

std::uint16_t Client::credits_to_ask(std::uint16_t charge) const noexcept {
  // Ask for enough to keep the window full; the server grants at most what it wants to.
  const std::uint32_t have = connection_.credits();
  return static_cast<std::uint16_t>(charge + (have < kCreditsToHold ? kCreditsToHold - have : 0));
}

Request Client::request(Command command, const Tree* tree, std::uint16_t charge) const noexcept {
  Request r;
  r.command = command;
  r.session_id = session_id_;
  r.tree_id = tree != nullptr ? tree->id : 0;
  r.credit_charge = charge;
  r.credit_request = credits_to_ask(charge);
  r.encrypt = tree != nullptr && tree->encrypted;
  return r;
}

Status Client::transmit() noexcept {
  const Result<std::span<const std::uint8_t>> frame = connection_.flush();
  if (!frame) {
    return fail(frame.error());
  }
  if (const Status s = transport_->write_all(*frame); !s) {
    return fail(s.error());
  }
  return {};
}

Result<std::uint64_t> Client::send_one(const Request& r, std::size_t body_len) noexcept {
  if (failed_) {
    return Error::kBadState;
  }
  const Result<std::uint64_t> id = connection_.add(r, body_len);
  if (!id) {
    return id.error();
  }
  if (const Status s = transmit(); !s) {
    return s.error();
  }
  return id;
}

Result<Response> Client::next_response() noexcept {
  for (;;) {
    const Result<std::optional<Response>> r = connection_.poll();
    if (!r) {
      return fail(r.error()).error();
    }
    if (r->has_value()) {
      return **r;
    }
    const Result<std::size_t> n = transport_->read(connection_.read_space());
    if (!n) {
      return fail(n.error()).error();
    }
    if (*n == 0) {
      return fail(Error::kClosed).error();
    }
    connection_.commit(*n);
  }
}

Result<Response> Client::round_trip(const Request& r, std::size_t body_len) noexcept {
  const Result<std::uint64_t> id = send_one(r, body_len);
  if (!id) {
    return id.error();
  }
  return next_response();
}

// exchange sends one request whose body is already written (`encoded` is its length) and
// checks the answer with `parse`: an error status is kPeerRefused, the status in last_status().
Status Client::exchange(Command command, const Tree* tree, Result<std::size_t> encoded,
                        Status (*parse)(std::span<const std::uint8_t>) noexcept) noexcept {
  if (!encoded) {
    return encoded.error();
  }
  const Result<Response> resp = round_trip(request(command, tree), *encoded);
  if (!resp) {
    return resp.error();
  }
  return resp->header.status == kStatusSuccess ? parse(resp->message) : refused(*resp);
}

// --- NEGOTIATE (§3.2.4.2.2, §3.2.5.2)

Status Client::negotiate() {
  config_.random(client_guid_);
  NegotiateRequest nr;
  nr.dialects = config_.dialects;
  nr.security_mode = static_cast<std::uint16_t>(
      kSigningEnabled | (config_.signing == SigningPolicy::kRequired ? kSigningRequired : 0));
  nr.client_guid = client_guid_;
  config_.random(nr.preauth_salt);
  nr.ciphers = config_.ciphers;
  nr.signing_algorithms = config_.signing_algorithms;
  const Result<std::size_t> n = encode_negotiate(nr, connection_.request_body());
  if (!n) {
    return n.error();
  }
  Request r;
  r.command = Command::kNegotiate;
  r.credit_request = credits_to_ask(1);
  const Result<Response> resp = round_trip(r, *n);
  if (!resp) {
    return resp.error();
  }
  if (resp->header.status != kStatusSuccess) {
    return refused(*resp);
  }
  const Result<NegotiateResponse> nego = parse_negotiate(resp->message);
  if (!nego) {
    return fail(nego.error());
  }
  // The server must pick from what was offered: a dialect, and for 3.1.1 SHA-512, one of our
  // ciphers (or none) and one of our signing algorithms.
  dialect_ = nego->dialect;
  if (!contains(config_.dialects, dialect_)) {
    return fail(Error::kMalformed);
  }
  server_capabilities_ = nego->capabilities;
  server_security_mode_ = nego->security_mode;
  server_guid_ = nego->server_guid;
  server_requires_signing_ = (nego->security_mode & kSigningRequired) != 0;
  large_mtu_ = (nego->capabilities & kCapLargeMtu) != 0;
  if (dialect_ == Dialect::kSmb311) {
    if (nego->preauth_hash_algorithm != 1) {
      return fail(Error::kMalformed);
    }
    server_can_encrypt_ = nego->cipher != 0;
    cipher_ = static_cast<Cipher>(nego->cipher);
    if (server_can_encrypt_ && !contains(config_.ciphers, cipher_)) {
      return fail(Error::kMalformed);
    }
    signing_ = nego->signing_algorithm == 0xFFFF
                   ? SigningAlgorithm::kAesCmac
                   : static_cast<SigningAlgorithm>(nego->signing_algorithm);
    if (nego->signing_algorithm != 0xFFFF && !contains(config_.signing_algorithms, signing_)) {
      return fail(Error::kMalformed);
    }
  } else {
    server_can_encrypt_ = is_30x(dialect_) && (nego->capabilities & kCapEncryption) != 0 &&
                          contains(config_.ciphers, Cipher::kAes128Ccm);
    cipher_ = Cipher::kAes128Ccm;
    signing_ = is_30x(dialect_) ? SigningAlgorithm::kAesCmac : SigningAlgorithm::kHmacSha256;
  }
  const std::uint32_t server_max = std::min(nego->max_read_size, nego->max_write_size);
  chunk_ = std::min({config_.chunk_size, server_max, large_mtu_ ? server_max : kSmall});
  chunk_ = std::max<std::uint32_t>(chunk_, 1);
  if (config_.encryption == EncryptionPolicy::kRequired && !server_can_encrypt_) {
    return Error::kUnsupported;  // nothing but NEGOTIATE has been sent
  }
  return {};
}

// --- SESSION_SETUP (§3.2.4.2.3, §3.2.5.3)

Status Client::session_setup() {
  std::optional<NtlmClient> ntlm;
  Authenticator* auth = config_.authenticator;
  if (auth == nullptr) {
    auth = &ntlm.emplace(config_.credentials, config_.random);
  }
  // Only empty credentials without an authenticator ask for a session without a key.
  const bool anonymous_asked = ntlm.has_value() && ntlm->anonymous();
  Result<std::vector<std::uint8_t>> token = auth->initial_token();
  PreauthHash hash = connection_.preauth_hash();
  // NTLM takes two round trips, Kerberos one; a server that keeps asking is refused.
  constexpr int kMaxRounds = 4;
  for (int round = 0;; ++round) {
    if (!token) {
      return token.error();
    }
    SessionSetupRequest ss;
    ss.security_mode = static_cast<std::uint8_t>(
        kSigningEnabled | (config_.signing == SigningPolicy::kRequired ? kSigningRequired : 0));
    ss.security_buffer = *token;
    const Result<std::size_t> n = encode_session_setup(ss, connection_.request_body());
    if (!n) {
      return n.error();
    }
    Request r;
    r.command = Command::kSessionSetup;
    r.session_id = session_id_;
    r.credit_request = credits_to_ask(1);
    if (const Result<std::uint64_t> id = connection_.add(r, *n); !id) {
      return id.error();
    }
    // §3.2.5.2: the session's hash covers every SESSION_SETUP request, and every response but
    // the last.
    if (const Status s = hash.update(connection_.pending_chain()); !s) {
      return s;
    }
    if (const Status s = transmit(); !s) {
      return s;
    }
    const Result<Response> resp = next_response();
    if (!resp) {
      return resp.error();
    }
    const Result<SessionSetupResponse> body = parse_session_setup(resp->message);
    if (resp->header.status == kStatusMoreProcessingRequired && body && round + 1 < kMaxRounds) {
      session_id_ = resp->header.session_id;
      if (const Status s = hash.update(resp->message); !s) {
        return s;
      }
      token = auth->respond(body->security_buffer);
      continue;
    }
    if (resp->header.status != kStatusSuccess) {
      return refused(*resp);
    }
    if (!body || (round > 0 && resp->header.session_id != session_id_)) {
      return fail(Error::kMalformed);
    }
    session_id_ = resp->header.session_id;
    if (const Status s = auth->finish(body->security_buffer); !s) {
      return fail(s.error());
    }
    return install_session(*resp, auth->session_key(), hash.value(), body->session_flags,
                           anonymous_asked);
  }
}

// install_keyless_session installs a guest or anonymous session: one without a key.
Status Client::install_keyless_session(bool anonymous_asked) {
  // Without a key the server cannot sign its final answer, so nothing proves that NEGOTIATE
  // was not rewritten (3.1.1's signed answer and 3.0.x's VALIDATE_NEGOTIATE both need the
  // key), and nothing after it can be signed or sealed. A guest or null answer is therefore
  // exactly what a party knowing no password can forge: a logon that gave credentials or an
  // authenticator accepts it only when the caller opted in.
  if (!anonymous_asked && !config_.allow_insecure_guest) {
    return fail(Error::kAuthFailed);
  }
  // Nothing can be protected, so nothing may be required.
  if (config_.encryption == EncryptionPolicy::kRequired ||
      config_.signing == SigningPolicy::kRequired || server_requires_signing_) {
    return Error::kUnsupported;
  }
  // It is installed keyless, for its SessionId to be known.
  SessionConfig sc;
  sc.protection = Protection::kNone;
  sc.dialect = dialect_;
  sc.session_id = session_id_;
  Result<SessionSecurity> security = SessionSecurity::create(sc);
  const Status installed =
      security ? connection_.install(std::move(*security)) : Status{security.error()};
  return installed ? installed : fail(installed.error());
}

Status Client::install_session(const Response& final_response, std::span<const std::uint8_t> key,
                               std::span<const std::uint8_t> preauth_hash, std::uint16_t flags,
                               bool anonymous_asked) {
  if ((flags & (kSessionFlagIsGuest | kSessionFlagIsNull)) != 0 || key.empty()) {
    return install_keyless_session(anonymous_asked);
  }
  session_encrypts_ = server_can_encrypt_ && ((flags & kSessionFlagEncryptData) != 0 ||
                                              config_.encryption != EncryptionPolicy::kOff);
  session_signs_ = server_requires_signing_ || config_.signing == SigningPolicy::kRequired;
  SessionConfig sc;
  sc.role = Role::kClient;
  sc.protection = session_encrypts_ ? Protection::kEncrypted
                  : session_signs_  ? Protection::kSigned
                                    : Protection::kNone;
  sc.dialect = dialect_;
  sc.cipher = cipher_;
  sc.signing = signing_;
  sc.session_id = session_id_;
  sc.session_key = key;
  sc.preauth_hash = preauth_hash;
  sc.random = config_.random;
  Result<SessionSecurity> security = SessionSecurity::create(sc);
  if (!security) {
    return fail(security.error());
  }
  if (const Status s = connection_.install(std::move(*security)); !s) {
    return fail(s.error());
  }
  // §3.2.5.3.1: the last response is signed with the new session's keys. In 3.1.1 those keys
  // come from the preauth hash of the whole exchange, so this signature is what proves that
  // nobody rewrote the NEGOTIATE or SESSION_SETUP messages (a downgrade).
  if (!final_response.header.is_signed()) {
    return fail(Error::kAuthFailed);
  }
  if (const Status s = connection_.verify(final_response); !s) {
    return fail(s.error());
  }
  return {};
}

// --- trees

bool Client::keyless() noexcept {
  const SessionSecurity* s = connection_.session(session_id_);
  return s == nullptr || s->keyless();
}

Result<Tree> Client::tree_connect(std::string_view share) {
  std::string unc = "\\\\" + config_.server + "\\" + std::string(share);
  const Result<std::size_t> n = encode_tree_connect(unc, connection_.request_body());
  if (!n) {
    return n.error();
  }
  // §3.2.4.2.4: a 3.1.1 client signs TREE_CONNECT even on a session that signs nothing else
  // (and the server signs its answer), so the session's keys prove the tree is ours.
  Request r = request(Command::kTreeConnect, nullptr);
  r.sign = dialect_ == Dialect::kSmb311 && !keyless();
  const Result<Response> resp = round_trip(r, *n);
  if (!resp) {
    return resp.error();
  }
  if (resp->header.status != kStatusSuccess) {
    return refused(*resp).error();
  }
  const Result<TreeConnectResponse> tc = parse_tree_connect(resp->message);
  if (!tc) {
    return fail(tc.error()).error();
  }
  Tree tree{resp->header.tree_id, session_encrypts_};
  if ((tc->share_flags & kShareFlagEncryptData) != 0) {
    // The share demands encryption the session does not have (a guest, or no cipher).
    if (!server_can_encrypt_ || keyless()) {
      static_cast<void>(tree_disconnect(tree));
      return Error::kUnsupported;
    }
    tree.encrypted = true;
  }
  if (config_.encryption == EncryptionPolicy::kRequired && !tree.encrypted) {
    static_cast<void>(tree_disconnect(tree));
    return Error::kUnsupported;
  }
  if (is_30x(dialect_) && !validated_ && !keyless()) {
    if (const Status s = validate_negotiate(tree); !s) {
      return s.error();
    }
  }
  return tree;
}

Status Client::tree_disconnect(const Tree& tree) {
  return exchange(Command::kTreeDisconnect, &tree, encode_empty(connection_.request_body()),
                  &parse_empty);
}

// §3.2.5.14.12 / §3.3.5.15.12: 3.0 and 3.0.2 repeat the NEGOTIATE under the session's
// signature; a server that sees something else than it chose, or a client that reads
// something else than it got, ends the connection.
Status Client::validate_negotiate(const Tree& tree) {
  ValidateNegotiate v;
  v.capabilities = kCapLargeMtu | kCapEncryption;
  v.guid = client_guid_;
  v.security_mode = static_cast<std::uint16_t>(
      kSigningEnabled | (config_.signing == SigningPolicy::kRequired ? kSigningRequired : 0));
  v.dialects = config_.dialects;
  const Result<std::size_t> n = encode_validate_negotiate(v, connection_.request_body());
  if (!n) {
    return n.error();
  }
  Request r = request(Command::kIoctl, &tree);
  r.sign = true;
  const Result<Response> resp = round_trip(r, *n);
  if (!resp) {
    return resp.error();
  }
  if (resp->header.status != kStatusSuccess) {
    return fail(refused(*resp).error());
  }
  const Result<ValidateNegotiate> got = parse_validate_negotiate(resp->message);
  // The request was signed or sealed, and Connection holds its response to the same.
  if (!got || got->capabilities != server_capabilities_ || got->guid != server_guid_ ||
      got->security_mode != server_security_mode_ || got->dialect != dialect_) {
    return fail(Error::kAuthFailed);
  }
  validated_ = true;
  return {};
}

// --- files

Result<File> Client::open(const Tree& tree, std::string_view path, OpenMode mode) {
  CreateRequest c;
  c.path = path;
  switch (mode) {
    case OpenMode::kRead:
      c.desired_access = kAccessGenericRead;
      break;
    case OpenMode::kWrite:
      c.desired_access = kAccessGenericRead | kAccessGenericWrite;
      c.disposition = kDispositionOverwriteIf;
      c.options = kOptionNonDirectory;
      c.file_attributes = kAttributeNormal;
      break;
    case OpenMode::kCreateNew:
      c.desired_access = kAccessGenericRead | kAccessGenericWrite;
      c.disposition = kDispositionCreate;
      c.options = kOptionNonDirectory;
      c.file_attributes = kAttributeNormal;
      break;
    case OpenMode::kTemporary:
      // Delete-on-close needs DELETE access, or the server answers STATUS_ACCESS_DENIED.
      c.desired_access = kAccessGenericRead | kAccessGenericWrite | kAccessDelete;
      c.disposition = kDispositionOverwriteIf;
      c.options = kOptionNonDirectory | kOptionDeleteOnClose;
      c.file_attributes = kAttributeTemporary;
      break;
    case OpenMode::kReadWrite:
      c.desired_access = kAccessGenericRead | kAccessGenericWrite;
      break;
    case OpenMode::kDirectory:
      c.desired_access = kAccessGenericRead;
      c.options = kOptionDirectory;
      break;
    case OpenMode::kCreateDirectory:
      c.desired_access = kAccessGenericRead;
      c.disposition = kDispositionCreate;
      c.options = kOptionDirectory;
      c.file_attributes = kAttributeDirectory;
      break;
  }
  const Result<std::size_t> n = encode_create(c, connection_.request_body());
  if (!n) {
    return n.error();
  }
  const Result<Response> resp = round_trip(request(Command::kCreate, &tree), *n);
  if (!resp) {
    return resp.error();
  }
  if (resp->header.status != kStatusSuccess) {
    return refused(*resp).error();
  }
  const Result<CreateResponse> cr = parse_create(resp->message);
  if (!cr) {
    return fail(cr.error()).error();
  }
  return File{cr->file_id, tree, cr->end_of_file, (cr->file_attributes & kAttributeDirectory) != 0};
}

Status Client::close(const File& file) {
  return exchange(Command::kClose, &file.tree, encode_close(file.id, connection_.request_body()),
                  &parse_close);
}

Status Client::flush(const File& file) {
  return exchange(Command::kFlush, &file.tree, encode_flush(file.id, connection_.request_body()),
                  &parse_flush);
}

Status Client::truncate(const File& file, std::uint64_t size) {
  return exchange(Command::kSetInfo, &file.tree,
                  encode_set_end_of_file(file.id, size, connection_.request_body()),
                  &parse_set_info);
}

Status Client::set_times(const File& file, std::uint64_t last_write, std::uint64_t last_access) {
  FileTimes times;
  times.last_write = last_write;
  times.last_access = last_access;
  return exchange(Command::kSetInfo, &file.tree,
                  encode_set_times(file.id, times, connection_.request_body()), &parse_set_info);
}

// Pipelining (§3.2.4.1.5 credits, §3.2.5.1.4 matching): up to `window` chunks are in flight;
// each answer is matched to its chunk by MessageId, in whatever order it comes, and a new chunk
// is sent as soon as one is answered and credits allow. issue(at, len, charge) sends the chunk
// at byte `at`; complete(chunk, response) takes its answer and may lower `end` (a file shorter
// than asked). A refused chunk stops new ones, and the ones in flight are still drained, so the
// connection stays usable; the first refusal is the result.
template <class Issue, class Complete>
Result<std::uint64_t> Client::pipeline(std::uint64_t& end, Progress progress, Issue&& issue,
                                       Complete&& complete) noexcept {
  std::array<Pending, kMaxWindow> pending{};
  const std::size_t window = std::clamp<std::size_t>(config_.window, 1, kMaxWindow);
  std::uint64_t issued = 0;
  std::size_t in_flight = 0;
  bool sent_any = false;  // one request even for 0 bytes: an empty file is written too
  std::uint64_t done = 0;
  Status outcome;
  for (;;) {
    while (outcome && (issued < end || !sent_any) && in_flight < window) {
      const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_, end - issued));
      const std::uint16_t charge = large_mtu_ ? credit_charge(len) : 1;
      if (connection_.credits() < charge) {
        if (in_flight == 0) {
          return fail(Error::kBadState).error();  // the server grants no credits: starved
        }
        break;
      }
      const Result<std::uint64_t> id = issue(issued, len, charge);
      if (!id) {
        return id.error();
      }
      Pending* slot =
          std::find_if(pending.begin(), pending.end(), [](const Pending& p) { return !p.used; });
      *slot = Pending{*id, issued, len, true};
      issued += len;
      ++in_flight;
      sent_any = true;
    }
    if (in_flight == 0) {
      return outcome ? Result<std::uint64_t>(done) : outcome.error();
    }
    const Result<Response> resp = next_response();
    if (!resp) {
      return resp.error();
    }
    Pending* slot = std::find_if(pending.begin(), pending.end(), [&](const Pending& p) {
      return p.used && p.message_id == resp->message_id;
    });
    if (slot == pending.end()) {
      return fail(Error::kMalformed).error();
    }
    slot->used = false;
    --in_flight;
    const Result<std::uint64_t> completed = complete(*slot, *resp);
    if (!completed) {
      if (failed_) {
        return completed.error();
      }
      if (outcome) {
        outcome = completed.error();
      }
      continue;
    }
    done += *completed;
    if (progress.report != nullptr && *completed != 0) {
      progress.report(progress.context, done);
    }
  }
}

Result<std::uint64_t> Client::read_to(const File& file, std::uint64_t offset, std::uint64_t length,
                                      ReadSink sink, Progress progress) noexcept {
  if (length == 0) {
    return std::uint64_t{0};
  }
  std::uint64_t end = length;
  return pipeline(
      end, progress,
      [&](std::uint64_t at, std::uint32_t len, std::uint16_t charge) -> Result<std::uint64_t> {
        const Result<std::size_t> n =
            encode_read(ReadRequest{file.id, offset + at, len, 0}, connection_.request_body());
        return n ? send_one(request(Command::kRead, &file.tree, charge), *n) : n.error();
      },
      [&](const Pending& chunk, const Response& resp) -> Result<std::uint64_t> {
        if (resp.header.status == kStatusEndOfFile) {
          end = std::min(end, chunk.at);
          return std::uint64_t{0};
        }
        if (resp.header.status != kStatusSuccess) {
          return refused(resp).error();
        }
        const Result<std::span<const std::uint8_t>> data = parse_read(resp.message);
        if (!data || data->size() > chunk.length) {
          return fail(Error::kMalformed).error();
        }
        if (data->size() < chunk.length) {
          end = std::min(end, chunk.at + data->size());  // a short read: the end of the file
        }
        // The data goes to the sink straight from the decrypted response.
        if (const Status consumed = sink.consume(sink.context, chunk.at, *data); !consumed) {
          return consumed.error();
        }
        return std::uint64_t{data->size()};
      });
}

Result<std::uint64_t> Client::write_from(const File& file, std::uint64_t offset,
                                         std::uint64_t length, WriteSource source,
                                         Progress progress) noexcept {
  std::uint64_t end = length;
  return pipeline(
      end, progress,
      [&](std::uint64_t at, std::uint32_t len, std::uint16_t charge) -> Result<std::uint64_t> {
        const std::span<std::uint8_t> body = connection_.request_body();
        const Result<std::size_t> n = encode_write(WriteRequest{file.id, offset + at, len}, body);
        if (!n) {
          return n.error();
        }
        // The source fills the request in place, where the data is then sealed.
        if (const Status produced =
                source.produce(source.context, at, body.subspan(kWriteDataOffset, len));
            !produced) {
          return produced.error();
        }
        return send_one(request(Command::kWrite, &file.tree, charge), *n);
      },
      [&](const Pending& chunk, const Response& resp) -> Result<std::uint64_t> {
        if (resp.header.status != kStatusSuccess) {
          return refused(resp).error();
        }
        const Result<std::uint32_t> count = parse_write(resp.message);
        if (!count) {
          return fail(count.error()).error();
        }
        // A server that wrote less than asked has not stored the chunk: never report success.
        if (*count != chunk.length) {
          last_status_ = resp.header.status;
          return Error::kPeerRefused;
        }
        return std::uint64_t{*count};
      });
}

Result<std::size_t> Client::read(const File& file, std::uint64_t offset,
                                 std::span<std::uint8_t> out, Progress progress) noexcept {
  const ReadSink into_span{
      [](void* context, std::uint64_t at, std::span<const std::uint8_t> data) noexcept -> Status {
        // copy_n, not memcpy: an empty span may carry a null pointer.
        std::copy_n(data.data(), data.size(), static_cast<std::uint8_t*>(context) + at);
        return {};
      },
      out.data()};
  const Result<std::uint64_t> n = read_to(file, offset, out.size(), into_span, progress);
  return n ? Result<std::size_t>(static_cast<std::size_t>(*n)) : n.error();
}

Result<std::size_t> Client::write(const File& file, std::uint64_t offset,
                                  std::span<const std::uint8_t> data, Progress progress) noexcept {
  struct From {
    const std::uint8_t* data;
  } from{data.data()};
  const WriteSource from_span{
      [](void* context, std::uint64_t at, std::span<std::uint8_t> out) noexcept -> Status {
        std::copy_n(static_cast<const From*>(context)->data + at, out.size(), out.data());
        return {};
      },
      &from};
  const Result<std::uint64_t> n = write_from(file, offset, data.size(), from_span, progress);
  return n ? Result<std::size_t>(static_cast<std::size_t>(*n)) : n.error();
}

// --- compounds: CREATE, one operation on the new handle, CLOSE — one round trip (§3.2.4.1.4)

template <class Encode, class Use>
Status Client::compound(const Tree& tree, const CreateRequest& create, Command middle,
                        std::uint16_t middle_charge, Encode&& encode_middle, Use&& use) {
  Request related = request(middle, &tree, middle_charge);
  related.flags = kFlagRelatedOperations;
  const Result<std::size_t> n1 = encode_create(create, connection_.request_body());
  const Result<std::uint64_t> open_id =
      n1 ? connection_.add(request(Command::kCreate, &tree), *n1) : n1.error();
  const Result<std::size_t> n2 =
      open_id ? encode_middle(connection_.request_body()) : open_id.error();
  const Result<std::uint64_t> middle_id = n2 ? connection_.add(related, *n2) : n2.error();
  related.command = Command::kClose;
  related.credit_charge = 1;
  const Result<std::size_t> n3 =
      middle_id ? encode_close(kRelatedFileId, connection_.request_body()) : middle_id.error();
  const Result<std::uint64_t> close_id = n3 ? connection_.add(related, *n3) : n3.error();
  if (!close_id) {
    return fail(close_id.error());  // the chain is half built: this connection is done
  }
  if (const Status s = transmit(); !s) {
    return s;
  }
  // The server answers each member (a failed CREATE fails the others with its status).
  Status outcome;
  for (int i = 0; i < 3; ++i) {
    const Result<Response> resp = next_response();
    if (!resp) {
      return resp.error();
    }
    const bool ours = resp->message_id == *open_id || resp->message_id == *middle_id;
    if (ours && resp->header.status != kStatusSuccess && outcome) {
      outcome = refused(*resp);
    } else if (resp->message_id == *middle_id && resp->header.status == kStatusSuccess) {
      if (const Status s = use(*resp); !s && outcome) {
        outcome = s;
      }
    }
  }
  return outcome;
}

Result<FileStat> Client::stat(const Tree& tree, std::string_view path) {
  CreateRequest c;
  c.path = path;
  c.desired_access = kAccessReadAttributes;
  FileStat out;
  const Status s = compound(
      tree, c, Command::kQueryInfo, 1,
      [](std::span<std::uint8_t> body) { return encode_query_file_info(kRelatedFileId, body); },
      [&](const Response& resp) -> Status {
        const Result<FileInfo> info = parse_query_file_info(resp.message);
        if (!info) {
          return fail(info.error());
        }
        out = FileStat{info->end_of_file, info->times.last_write,
                       (info->attributes & kAttributeDirectory) != 0};
        return {};
      });
  if (!s) {
    return s.error();
  }
  return out;
}

Result<std::size_t> Client::read_small(const Tree& tree, std::string_view path,
                                       std::span<std::uint8_t> out) {
  if (out.size() > chunk_) {
    return Error::kInvalidArgument;
  }
  CreateRequest c;
  c.path = path;
  std::size_t got = 0;
  const Status s = compound(
      tree, c, Command::kRead, large_mtu_ ? credit_charge(out.size()) : std::uint16_t{1},
      [&](std::span<std::uint8_t> body) {
        return encode_read(
            ReadRequest{kRelatedFileId, 0, static_cast<std::uint32_t>(out.size()), 0}, body);
      },
      [&](const Response& resp) -> Status {
        const Result<std::span<const std::uint8_t>> data = parse_read(resp.message);
        if (!data || data->size() > out.size()) {
          return fail(Error::kMalformed);
        }
        std::copy_n(data->data(), data->size(), out.data());
        got = data->size();
        return {};
      });
  // An empty file answers the READ with STATUS_END_OF_FILE.
  if (!s && !(s.error() == Error::kPeerRefused && last_status_ == kStatusEndOfFile)) {
    return s.error();
  }
  return got;
}

Status Client::rename(const Tree& tree, std::string_view from, std::string_view to) {
  CreateRequest c;
  c.path = from;
  c.desired_access = kAccessDelete | kAccessReadAttributes | kAccessSynchronize;
  return compound(
      tree, c, Command::kSetInfo, 1,
      [&](std::span<std::uint8_t> body) { return encode_rename(kRelatedFileId, to, false, body); },
      [](const Response& resp) { return parse_set_info(resp.message); });
}

Status Client::remove(const Tree& tree, std::string_view path) {
  CreateRequest c;
  c.path = path;
  c.desired_access = kAccessDelete | kAccessReadAttributes;
  return compound(
      tree, c, Command::kSetInfo, 1,
      [](std::span<std::uint8_t> body) { return encode_set_delete(kRelatedFileId, body); },
      [](const Response& resp) { return parse_set_info(resp.message); });
}

Status Client::mkdir(const Tree& tree, std::string_view path) {
  const Result<File> dir = open(tree, path, OpenMode::kCreateDirectory);
  return dir ? close(*dir) : Status{dir.error()};
}

// list_round asks for the next part of a listing and adds its entries; `done` once the server
// answers STATUS_NO_MORE_FILES. An entry past the bounds is kTableFull.
Status Client::list_round(const File& dir, const Tree& tree, bool restart,
                          std::vector<smb::DirectoryEntry>& entries, std::size_t& bytes,
                          bool& done) {
  const Result<std::size_t> n = encode_query_directory(
      QueryDirectoryRequest{dir.id, "*", restart, 65536}, connection_.request_body());
  if (!n) {
    return n.error();
  }
  const Result<Response> resp = round_trip(request(Command::kQueryDirectory, &tree), *n);
  if (!resp) {
    return resp.error();
  }
  if (resp->header.status == kStatusNoMoreFiles) {
    done = true;
    return {};
  }
  if (resp->header.status != kStatusSuccess) {
    return refused(*resp);
  }
  const Result<std::span<const std::uint8_t>> buffer = parse_query_directory(resp->message);
  if (!buffer) {
    return fail(buffer.error());
  }
  // A round without an entry would let the listing go on for ever without growing; servers
  // answer STATUS_NO_MORE_FILES instead (§3.3.5.18).
  if (buffer->empty()) {
    return fail(Error::kMalformed);
  }
  Status within_bounds;
  const Status walked = for_each_directory_entry(*buffer, [&](const commands::DirectoryEntry& e) {
    if (!within_bounds || e.name == "." || e.name == "..") {
      return;
    }
    bytes += sizeof(smb::DirectoryEntry) + e.name.size();
    if (entries.size() >= config_.max_list_entries || bytes > config_.max_list_bytes) {
      within_bounds = Error::kTableFull;
      return;
    }
    entries.push_back(
        smb::DirectoryEntry{e.name, e.end_of_file, e.times.last_write, e.is_directory()});
  });
  if (!walked) {
    return fail(walked.error());
  }
  return within_bounds;
}

Result<std::vector<smb::DirectoryEntry>> Client::list(const Tree& tree, std::string_view path) {
  const Result<File> dir = open(tree, path, OpenMode::kDirectory);
  if (!dir) {
    return dir.error();
  }
  std::vector<smb::DirectoryEntry> entries;
  std::size_t bytes = 0;
  bool done = false;
  Status outcome;
  for (bool restart = true; outcome && !done; restart = false) {
    outcome = list_round(*dir, tree, restart, entries, bytes, done);
  }
  if (failed_) {
    return outcome.error();  // the stream is broken: nothing more is sent
  }
  const Status closed = close(*dir);
  if (!outcome) {
    return outcome.error();
  }
  if (!closed) {
    return closed.error();
  }
  return entries;
}

Status Client::echo() {
  return exchange(Command::kEcho, nullptr, encode_empty(connection_.request_body()), &parse_empty);
}

Status Client::logoff() {
  const Status s =
      exchange(Command::kLogoff, nullptr, encode_empty(connection_.request_body()), &parse_empty);
  if (s) {
    connection_.remove(session_id_);  // its keys are gone: later messages are kWrongContext
  }
  return s;
}

}  // namespace wireseal::smb
