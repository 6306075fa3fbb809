// The shim BoringSSL's conformance runner ("BoGo") drives: a thin client of dtls::Endpoint.
//
// The runner starts it once per test with `-port N` and the test's flags, and talks to it over
// TCP: 'P' + u32 length + datagram in both directions, and 'T' + u64 nanoseconds from the
// runner to advance our virtual clock (answered with 't' at once, then the engine's timer
// fires). After the handshake the shim sends the exported keying material when asked, then
// "hello" when it writes first, then echoes every application record XOR 0xFF until
// close_notify or EOF. A flag it does not know, or a feature the engine lacks, exits 89
// ("unimplemented"). A failure exits 1 with the reason on stderr.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/crypto/certificate.h"
#include "wireseal/crypto/signature.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/handshake/cipher_suite.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/session.h"

namespace {

using namespace wireseal;

constexpr int kUnimplemented = 89;

struct Flags {
  int port = 0;
  bool server = false;
  std::string cert_file;
  std::string key_file;
  std::size_t mtu = 0;
  bool verify_peer = false;
  bool verify_fail = false;            // the verify callback refuses every connection's peer
  bool on_resume_verify_fail = false;  // … only on the resumed connections
  bool custom_verify_callback = false;
  bool expect_verify_result = false;
  bool reverify_on_resume = false;
  std::vector<std::uint16_t> verify_prefs;  // signature schemes accepted from the peer
  bool require_client_certificate = false;
  bool shim_writes_first = false;
  bool send_alert = false;  // end the association with a fatal alert once connected
  std::size_t export_length = 0;
  std::string export_label;
  std::string export_context;
  bool use_export_context = false;
  std::string psk;
  std::string psk_identity;
  std::string srtp_profiles;
  int resume_count = 0;
  bool expect_session_miss = false;
  bool no_ticket = false;
  bool expect_session_id = false;
  bool expect_no_session_id = false;
  bool expect_ticket_renewal = false;
  int initial_timeout_ms = 0;
  std::string host_name;
  std::string expect_server_name;
  std::string advertise_alpn;  // client: the ProtocolNameList in wire form
  std::string select_alpn;     // server: the protocol it accepts
  std::string expect_alpn;
};

// Flags that change nothing for this engine: BoringSSL API modes (async, implicit handshake,
// a client certificate handed over by the old callback when the CertificateRequest arrives
// rather than configured up front, a ClientHello callback that accepts: the same bytes on
// the wire), -dtls (the only protocol here) and checks the runner makes itself.
constexpr std::string_view kNoOpFlags[] = {"-async",
                                           "-implicit-handshake",
                                           "-use-old-client-cert-callback",
                                           "-use-early-callback",
                                           "-loose-errors",
                                           "-dtls",
                                           "-expect-no-hrr",
                                           "-no-tls1",
                                           "-no-tls11",
                                           "-no-tls13"};

// Verdict is what BoringSSL's shim verify callback decides; `refuse` changes per connection
// (-on-resume-verify-fail).
struct Verdict {
  bool refuse = false;
  bool custom = false;  // the custom callback's alert, certificate_unknown; else the legacy
                        // X509 callback's, handshake_failure
};

bool verify_as_told(void* context, std::span<const std::span<const std::uint8_t>> /*chain*/,
                    dtls::AlertDescription& alert) noexcept {
  const auto* verdict = static_cast<const Verdict*>(context);
  if (!verdict->custom) {
    alert = dtls::AlertDescription::kHandshakeFailure;
  }
  return !verdict->refuse;
}

// DTLS wire versions count down: 1.0 is 0xfeff, 1.2 0xfefd, 1.3 0xfefc.
constexpr int kDtls10 = 0xfeff;
constexpr int kDtls12 = 0xfefd;
constexpr int kDtls13 = 0xfefc;

// The flags that only set a field of Flags: switches, and those that take a value.
template <class T>
struct FlagField {
  std::string_view name;
  T Flags::*field;
};
constexpr FlagField<bool> kSwitches[] = {
    {"-server", &Flags::server},
    {"-verify-peer", &Flags::verify_peer},
    {"-verify-fail", &Flags::verify_fail},
    {"-on-resume-verify-fail", &Flags::on_resume_verify_fail},
    {"-use-custom-verify-callback", &Flags::custom_verify_callback},
    {"-expect-verify-result", &Flags::expect_verify_result},
    {"-reverify-on-resume", &Flags::reverify_on_resume},
    {"-require-any-client-certificate", &Flags::require_client_certificate},
    {"-send-alert", &Flags::send_alert},
    {"-shim-writes-first", &Flags::shim_writes_first},
    {"-use-export-context", &Flags::use_export_context},
    {"-expect-session-miss", &Flags::expect_session_miss},
    {"-no-ticket", &Flags::no_ticket},
    {"-expect-session-id", &Flags::expect_session_id},
    {"-expect-no-session-id", &Flags::expect_no_session_id},
    {"-expect-ticket-renewal", &Flags::expect_ticket_renewal},
};
constexpr FlagField<std::string> kTexts[] = {
    {"-cert-file", &Flags::cert_file},
    {"-key-file", &Flags::key_file},
    {"-export-label", &Flags::export_label},
    {"-export-context", &Flags::export_context},
    {"-psk", &Flags::psk},
    {"-psk-identity", &Flags::psk_identity},
    {"-srtp-profiles", &Flags::srtp_profiles},
    {"-advertise-alpn", &Flags::advertise_alpn},
    {"-select-alpn", &Flags::select_alpn},
    {"-expect-alpn", &Flags::expect_alpn},
    {"-host-name", &Flags::host_name},
    {"-expect-server-name", &Flags::expect_server_name},
};
constexpr FlagField<int> kNumbers[] = {
    {"-port", &Flags::port},
    {"-resume-count", &Flags::resume_count},
    {"-initial-timeout-duration-ms", &Flags::initial_timeout_ms},
};
constexpr FlagField<std::size_t> kSizes[] = {
    {"-mtu", &Flags::mtu},
    {"-export-keying-material", &Flags::export_length},
};

// field_of: the field `arg` sets in `table`, or null.
template <class T, std::size_t N>
T Flags::*field_of(const FlagField<T> (&table)[N], std::string_view arg) {
  for (const FlagField<T>& flag : table) {
    if (flag.name == arg) {
      return flag.field;
    }
  }
  return nullptr;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::optional<Flags> parse_flags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::string {
      return i + 1 < argc ? std::string(argv[++i]) : std::string();
    };
    if (bool Flags::*on = field_of(kSwitches, arg)) {
      f.*on = true;
    } else if (std::string Flags::*word = field_of(kTexts, arg)) {
      f.*word = value();
    } else if (int Flags::*number = field_of(kNumbers, arg)) {
      f.*number = std::stoi(value());
    } else if (std::size_t Flags::*size = field_of(kSizes, arg)) {
      f.*size = static_cast<std::size_t>(std::stoul(value()));
    } else if (arg == "-verify-prefs") {
      // A comma-separated list of signature scheme code points.
      const std::string text = value();
      std::string_view list = text;
      while (!list.empty()) {
        const std::size_t comma = list.find(',');
        f.verify_prefs.push_back(
            static_cast<std::uint16_t>(std::stoi(std::string(list.substr(0, comma)))));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else if (arg == "-min-version" || arg == "-max-version") {
      // Only ranges that include DTLS 1.2 can run here.
      const int version = std::stoi(value());
      const bool includes_12 = arg == "-min-version" ? version == kDtls10 || version == kDtls12
                                                     : version == kDtls12 || version == kDtls13;
      if (!includes_12) {
        std::fprintf(stderr, "unimplemented: %s %d excludes DTLS 1.2\n", argv[i - 1], version);
        return std::nullopt;
      }
    } else if (arg == "-is-handshaker-supported") {
      std::puts("No");
      std::exit(0);
    } else if (std::find(std::begin(kNoOpFlags), std::end(kNoOpFlags), arg) ==
               std::end(kNoOpFlags)) {
      std::fprintf(stderr, "unimplemented flag: %s\n", argv[i]);
      return std::nullopt;
    }
  }
  return f;
}

std::optional<std::uint16_t> srtp_id(std::string_view name) {
  if (name == "SRTP_AES128_CM_SHA1_80") {
    return 1;
  }
  if (name == "SRTP_AES128_CM_SHA1_32") {
    return 2;
  }
  if (name == "SRTP_AEAD_AES_128_GCM") {
    return 7;
  }
  if (name == "SRTP_AEAD_AES_256_GCM") {
    return 8;
  }
  return std::nullopt;
}

// make_config turns the flags into an EndpointConfig, or says why it cannot (exit 89).
std::shared_ptr<dtls::EndpointConfig> make_config(const Flags& f, Verdict& verdict,
                                                  std::string& unsupported) {
  auto c = std::make_shared<dtls::EndpointConfig>();
  c->role = f.server ? dtls::Role::kServer : dtls::Role::kClient;
  // The runner chooses suites itself: offer everything the engine has.
  for (const dtls::CipherSuite& suite : dtls::cipher_suites()) {
    c->cipher_suites.push_back(suite.code);
  }
  // The runner checks behaviour, not identities: it runs its own certificates, which the
  // shim's verify callback judges as the flags say. Without -verify-peer a client verifies
  // in BoringSSL's soft-fail mode: the shim asks the callback itself once connected.
  verdict.custom = f.custom_verify_callback;
  if (f.verify_peer) {
    c->peer_verifier = {verify_as_told, &verdict};
    c->reverify_on_resume = f.reverify_on_resume;
  }
  // Fail-closed where the flags demand a peer certificate; a server that only asks for one
  // (-verify-peer alone) accepts a client without.
  c->allow_unauthenticated_peer = !(f.verify_peer && (!f.server || f.require_client_certificate));
  c->require_extended_master_secret = false;  // several tests negotiate without it on purpose
  if (f.mtu != 0) {
    c->mtu = f.mtu;
  }
  // The engine has one list for the schemes it signs with and those it accepts: the verify
  // preferences become it.
  c->signature_schemes = f.verify_prefs;
  if (!f.cert_file.empty()) {
    Result<crypto::CertificateChain> chain =
        crypto::CertificateChain::from_pem(read_file(f.cert_file));
    Result<crypto::PrivateKey> key = crypto::PrivateKey::from_pem(read_file(f.key_file));
    if (!chain || !key) {
      unsupported = "certificate or key type not supported: " + f.cert_file;
      return nullptr;
    }
    c->certificate.emplace(crypto::CertifiedKey{std::move(*chain), std::move(*key)});
  }
  if (!f.psk.empty()) {
    c->psk.assign(f.psk.begin(), f.psk.end());
    c->psk_identity.assign(f.psk_identity.begin(), f.psk_identity.end());
    if (f.server) {
      c->psk_identity_hint = c->psk_identity;  // BoringSSL's shim sends it as the hint
    }
  }
  if (f.initial_timeout_ms > 0) {
    c->initial_retransmit_timeout = std::chrono::milliseconds(f.initial_timeout_ms);
  }
  c->server_name = f.server ? std::string() : f.host_name;
  // -advertise-alpn is wire form: each name after its length byte.
  for (std::size_t at = 0; at < f.advertise_alpn.size();) {
    const std::size_t n = static_cast<unsigned char>(f.advertise_alpn[at]);
    c->alpn_protocols.push_back(f.advertise_alpn.substr(at + 1, n));
    at += 1 + n;
  }
  if (!f.select_alpn.empty()) {
    c->alpn_protocols = {f.select_alpn};
  }
  c->request_client_certificate = f.server && f.verify_peer;
  c->require_client_certificate = f.server && f.require_client_certificate;
  std::string_view profiles = f.srtp_profiles;
  while (!profiles.empty()) {
    const std::size_t colon = profiles.find(':');
    const std::optional<std::uint16_t> id = srtp_id(profiles.substr(0, colon));
    if (!id) {
      unsupported = "SRTP profile " + std::string(profiles.substr(0, colon));
      return nullptr;
    }
    c->srtp_profiles.push_back(*id);
    profiles = colon == std::string_view::npos ? std::string_view{} : profiles.substr(colon + 1);
  }
  // As BoringSSL does by default: a server caches sessions and issues tickets, a client
  // asks for tickets.
  if (f.server) {
    c->session_cache = std::make_shared<dtls::SessionCache>();
    if (!f.no_ticket) {
      std::array<std::uint8_t, dtls::SessionTicketKeys::kSecretSize> secret{};
      c->random(secret);
      c->session_ticket_keys = std::make_shared<dtls::SessionTicketKeys>(secret);
    }
  } else {
    c->session_tickets = !f.no_ticket;
  }
  return c;
}

// trace prints each record of a datagram (WIRESEAL_SHIM_TRACE set): epoch, type, and for
// plaintext handshake records each fragment's type, message_seq and range.
void trace(const char* direction, std::span<const std::uint8_t> datagram) {
  static const bool on = std::getenv("WIRESEAL_SHIM_TRACE") != nullptr;
  if (!on) {
    return;
  }
  dtls::DatagramReader reader(datagram);
  while (!reader.done()) {
    const Result<dtls::RecordView> r = reader.next();
    if (!r) {
      std::fprintf(stderr, "%s malformed record\n", direction);
      return;
    }
    std::fprintf(stderr, "%s epoch %u seq %llu type %u len %zu\n", direction, r->epoch,
                 static_cast<unsigned long long>(r->sequence), static_cast<unsigned>(r->type),
                 r->fragment.size());
    if (r->epoch == 0 && r->type == dtls::ContentType::kHandshake) {
      dtls::HandshakeReader h(r->fragment);
      while (!h.done()) {
        const Result<dtls::HandshakeFragment> f = h.next();
        if (!f) {
          break;
        }
        std::fprintf(stderr, "    msg %u seq %u [%u, +%zu) of %u\n", f->msg_type, f->message_seq,
                     f->fragment_offset, f->body.size(), f->length);
      }
    }
  }
}

// Transport: the runner's TCP framing.
class Runner {
 public:
  bool connect(int port) {
    fd_ = ::socket(AF_INET6, SOCK_STREAM, 0);
    sockaddr_in6 a6{};
    a6.sin6_family = AF_INET6;
    a6.sin6_addr = in6addr_loopback;
    a6.sin6_port = htons(static_cast<std::uint16_t>(port));
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&a6), sizeof a6) == 0) {
      return nodelay();
    }
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a4{};
    a4.sin_family = AF_INET;
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a4.sin_port = htons(static_cast<std::uint16_t>(port));
    return fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&a4), sizeof a4) == 0 &&
           nodelay();
  }
  ~Runner() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  bool read_exact(void* out, std::size_t n) {
    auto* p = static_cast<std::uint8_t*>(out);
    while (n > 0) {
      const ssize_t got = ::read(fd_, p, n);
      if (got <= 0) {
        return false;
      }
      p += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }
  bool write_all(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
      const ssize_t put = ::write(fd_, p, n);
      if (put <= 0) {
        return false;
      }
      p += put;
      n -= static_cast<std::size_t>(put);
    }
    return true;
  }
  bool send_datagram(std::span<const std::uint8_t> d) {
    std::array<std::uint8_t, 5> head{
        'P', static_cast<std::uint8_t>(d.size() >> 24), static_cast<std::uint8_t>(d.size() >> 16),
        static_cast<std::uint8_t>(d.size() >> 8), static_cast<std::uint8_t>(d.size())};
    trace("out", d);
    return write_all(head.data(), head.size()) && write_all(d.data(), d.size());
  }

 private:
  bool nodelay() {
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return true;
  }
  int fd_ = -1;
};

class Shim {
 public:
  Shim(const Flags& flags, std::shared_ptr<dtls::EndpointConfig> config, Runner& runner)
      : flags_(flags), endpoint_(std::move(config)), runner_(runner) {}

  const dtls::Endpoint& endpoint() const { return endpoint_; }

  int run(const std::optional<dtls::Session>& offer) {
    // kAuthFailed: today's checks refuse the saved server, so the full handshake judges it.
    if (const Status offered = offer ? endpoint_.offer_session(*offer) : Status();
        !offered && offered.error() != Error::kAuthFailed) {
      return fail("cannot offer the saved session");
    }
    if (!endpoint_.start(now_)) {
      return fail("cannot start");
    }
    if (!flush()) {
      return finish();
    }
    std::vector<std::uint8_t> datagram;
    for (;;) {
      std::uint8_t tag = 0;
      if (!runner_.read_exact(&tag, 1)) {
        return finish();  // EOF: the runner is done with us
      }
      if (tag == 'T') {
        std::array<std::uint8_t, 8> ns{};
        if (!runner_.read_exact(ns.data(), ns.size()) || !runner_.write_all("t", 1)) {
          return finish();
        }
        std::uint64_t v = 0;
        for (std::uint8_t b : ns) {
          v = v << 8 | b;
        }
        now_ += std::chrono::nanoseconds(v);
        if (std::getenv("WIRESEAL_SHIM_TRACE") != nullptr) {
          std::fprintf(stderr, "timeout %llu ns\n", static_cast<unsigned long long>(v));
        }
        (void)endpoint_.handle_timeout(now_);
      } else if (tag == 'P') {
        std::array<std::uint8_t, 4> len{};
        if (!runner_.read_exact(len.data(), len.size())) {
          return finish();
        }
        const std::size_t n = std::size_t{len[0]} << 24 | std::size_t{len[1]} << 16 |
                              std::size_t{len[2]} << 8 | len[3];
        datagram.resize(n);
        if (!runner_.read_exact(datagram.data(), n)) {
          return finish();
        }
        trace("in ", datagram);
        (void)endpoint_.handle_datagram(now_, datagram);
      } else {
        return fail("unknown runner framing");
      }
      if (!flush()) {
        return finish();
      }
    }
  }

 private:
  // flush hands out everything the endpoint has; false when the association is over.
  bool flush() {
    std::array<std::uint8_t, 65536> buffer{};
    for (;;) {
      const Result<dtls::Output> out = endpoint_.poll_output(
          std::span(buffer).first(std::max<std::size_t>(endpoint_.max_datagram_size(), 1500)));
      if (!out) {
        return true;
      }
      switch (out->kind) {
        case dtls::Output::Kind::kDatagram:
          runner_.send_datagram(std::span(buffer).first(out->size));
          break;
        case dtls::Output::Kind::kConnected:
          after_handshake();
          break;
        case dtls::Output::Kind::kApplicationData: {
          std::vector<std::uint8_t> echo(out->data.begin(), out->data.end());
          for (std::uint8_t& b : echo) {
            b ^= 0xff;
          }
          write_record(echo);
          break;
        }
        case dtls::Output::Kind::kClosed:
          closed_ = true;
          break;
        case dtls::Output::Kind::kFailed:
          failed_ = true;
          break;
        case dtls::Output::Kind::kTimeout:
        case dtls::Output::Kind::kIdle:
          return !failed_ && !closed_;
      }
    }
  }

  void after_handshake() {
    if (flags_.send_alert) {
      (void)endpoint_.abort(dtls::AlertDescription::kDecompressionFailure);  // as BoringSSL's
      return;
    }
    if (flags_.export_length > 0) {
      std::vector<std::uint8_t> material(flags_.export_length);
      const std::span<const std::uint8_t> context(
          reinterpret_cast<const std::uint8_t*>(flags_.export_context.data()),
          flags_.export_context.size());
      if (endpoint_.export_keying_material(flags_.export_label, context, flags_.use_export_context,
                                           material)) {
        write_record(material);
      }
    }
    if (flags_.shim_writes_first) {
      const std::array<std::uint8_t, 5> hello{'h', 'e', 'l', 'l', 'o'};
      write_record(hello);
    }
  }

  void write_record(std::span<const std::uint8_t> plaintext) {
    std::vector<std::uint8_t> record(endpoint_.sealed_size(plaintext.size()));
    const Result<std::size_t> n = endpoint_.send(plaintext, record);
    if (n) {
      runner_.send_datagram(std::span(record).first(*n));
    }
  }

  int finish() {
    if (failed_) {
      const dtls::Failure& f = endpoint_.failure();
      return fail(std::string(f.reason) + " (alert " + dtls::to_string(f.alert) +
                  (f.alert_from_peer ? " from the peer)" : ")"));
    }
    if (!endpoint_.connected() && !closed_) {
      return fail("the handshake did not complete");
    }
    return 0;
  }

  static int fail(const std::string& why) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }

  const Flags& flags_;
  dtls::Endpoint endpoint_;
  Runner& runner_;
  dtls::Instant now_{std::chrono::seconds(1000)};
  bool closed_ = false;
  bool failed_ = false;
};

// check_connection tests what the flags expect of one completed connection; null when all
// holds, else the reason.
const char* check_connection(const Flags& f, const Verdict& verdict, const dtls::Endpoint& endpoint,
                             bool is_resume, const std::optional<dtls::Session>& offered,
                             const Result<dtls::Session>& left) {
  const bool resumed = endpoint.negotiated().resumed;
  if (f.expect_verify_result) {
    // SSL_get_verify_result: what the callback said, during the handshake (a resumed session
    // keeps the full handshake's answer) or, soft-failing, of the certificate we got.
    const bool verified = f.verify_peer
                              ? endpoint.negotiated().peer_auth == dtls::PeerAuth::kVerifier
                              : !verdict.refuse && !endpoint.peer_certificate().empty();
    if (verified == verdict.refuse) {
      return "the certificate verification result is not the expected one";
    }
  }
  if (is_resume && resumed == f.expect_session_miss) {
    return resumed ? "the session was resumed unexpectedly" : "the session was not resumed";
  }
  // As BoringSSL's shim: whether a full handshake left a session under an ID (the server
  // cached it) rather than in a ticket alone.
  const bool has_id = left && left->id_size != 0;
  if (!is_resume && ((f.expect_session_id && !has_id) || (f.expect_no_session_id && has_id))) {
    return has_id ? "the session was unexpectedly cached" : "the session was not cached";
  }
  if (f.expect_ticket_renewal && is_resume &&
      (!left || !offered || left->ticket.empty() || left->ticket == offered->ticket)) {
    return "the ticket was not renewed";
  }
  if (!f.expect_alpn.empty() && endpoint.application_protocol() != f.expect_alpn) {
    return "the application protocol (ALPN) is not the expected one";
  }
  if (!f.expect_server_name.empty() && endpoint.server_name() != f.expect_server_name) {
    return "the client did not ask for the expected server name";
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // The runner may close its end first; a write then fails instead of killing us.
  std::signal(SIGPIPE, SIG_IGN);
  const std::optional<Flags> flags = parse_flags(argc, argv);
  if (!flags) {
    return kUnimplemented;
  }
  std::string unsupported;
  Verdict verdict;
  std::shared_ptr<dtls::EndpointConfig> config = make_config(*flags, verdict, unsupported);
  if (!config) {
    std::fprintf(stderr, "unimplemented: %s\n", unsupported.c_str());
    return kUnimplemented;
  }
  Result<dtls::Endpoint> probe = dtls::Endpoint::create(config);
  if (!probe) {
    std::fprintf(stderr, "unimplemented: this configuration (%s)\n", to_string(probe.error()));
    return kUnimplemented;
  }
  // -resume-count K: K + 1 connections in turn, each after the first resuming the session
  // the one before it left (the client offers it; the server finds it in its cache or ticket).
  std::optional<dtls::Session> session;
  for (int i = 0; i <= flags->resume_count; ++i) {
    Runner runner;
    if (!runner.connect(flags->port)) {
      std::perror("connect to the runner");
      return 1;
    }
    verdict.refuse = flags->verify_fail || (i > 0 && flags->on_resume_verify_fail);
    Shim shim(*flags, config, runner);
    if (const int rc = shim.run(flags->server ? std::nullopt : session); rc != 0) {
      return rc;
    }
    Result<dtls::Session> next = shim.endpoint().session();
    if (const char* wrong =
            check_connection(*flags, verdict, shim.endpoint(), i > 0, session, next)) {
      std::fprintf(stderr, "connection %d: %s\n", i, wrong);
      return 1;
    }
    session = next ? std::optional(std::move(*next)) : std::nullopt;
  }
  return 0;
}
