// The options `wireseal dtls server` and `wireseal dtls client` share, the EndpointConfig
// they make, and the event-loop pieces both commands use.
#include "dtls_endpoint_options.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string_view>
#include <utility>

#include "wireseal/crypto/certificate.h"
#include "wireseal/crypto/signature.h"
#include "wireseal/dtls/alert.h"
#include "wireseal/dtls/handshake/cipher_suite.h"
#include "wireseal/dtls/record.h"
#include "wireseal/io/pcap.h"

namespace wireseal::cli {
namespace {

// append_keylog_line is the engine's KeyLogSink for --keylog: one line, flushed at once so a
// reader (Wireshark) sees it while the association runs.
void append_keylog_line(void* file, std::string_view line) noexcept {
  auto* f = static_cast<std::FILE*>(file);
  std::fprintf(f, "%.*s\n", static_cast<int>(line.size()), line.data());
  std::fflush(f);
}

// open_keylog opens `path` for appending, created readable by its owner only (the lines are
// secrets).
std::shared_ptr<std::FILE> open_keylog(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  std::FILE* file = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
  if (file == nullptr) {
    if (fd >= 0) {
      ::close(fd);
    }
    throw UsageError("--keylog: cannot open " + path);
  }
  return {file, [](std::FILE* f) { std::fclose(f); }};
}

struct Named {
  const char* name;
  std::uint16_t id;
};

// RFC 8422 / RFC 7748 named groups, with the spellings OpenSSL and the IANA registry use.
constexpr Named kGroups[] = {
    {"X25519", 29},     {"P-256", 23}, {"secp256r1", 23},
    {"prime256v1", 23}, {"P-384", 24}, {"secp384r1", 24},
};

// DTLS-SRTP protection profiles (RFC 5764 §4.1.2, RFC 7714 §14.2), OpenSSL spellings.
constexpr Named kSrtpProfiles[] = {
    {"SRTP_AES128_CM_SHA1_80", 1},
    {"SRTP_AES128_CM_SHA1_32", 2},
    {"SRTP_AEAD_AES_128_GCM", 7},
    {"SRTP_AEAD_AES_256_GCM", 8},
};

constexpr std::size_t kMaxExportLength = 1024;
constexpr std::size_t kMaxRecordPlaintext = 16384;  // RFC 5246 §6.2.1

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// split_list splits "a:b,c" at colons and commas, dropping empty items.
std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find_first_of(":,", start), text.size());
    if (end > start) {
      out.emplace_back(text.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

std::string names_of(std::span<const Named> table) {
  std::string out;
  for (const Named& n : table) {
    out += out.empty() ? "" : ", ";
    out += n.name;
  }
  return out;
}

std::vector<std::uint16_t> lookup_list(std::string_view text, std::span<const Named> table,
                                       const char* option) {
  std::vector<std::uint16_t> out;
  for (const std::string& item : split_list(text)) {
    const auto found = std::find_if(table.begin(), table.end(),
                                    [&item](const Named& n) { return iequals(n.name, item); });
    if (found == table.end()) {
      throw UsageError(
          fmt::format("{}: unknown name '{}' (known: {})", option, item, names_of(table)));
    }
    if (std::find(out.begin(), out.end(), found->id) == out.end()) {
      out.push_back(found->id);
    }
  }
  if (out.empty()) {
    throw UsageError(fmt::format("{}: empty list", option));
  }
  return out;
}

const char* name_of(std::span<const Named> table, std::uint16_t id) noexcept {
  for (const Named& n : table) {
    if (n.id == id) {
      return n.name;
    }
  }
  return "unknown";
}

std::vector<std::uint8_t> parse_hex(std::string_view text, const char* option) {
  if (text.size() % 2 != 0) {
    throw UsageError(fmt::format("{}: odd number of hex digits", option));
  }
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
    if (ec != std::errc() || end != text.data() + i + 2) {
      throw UsageError(fmt::format("{}: '{}' is not hex", option, text));
    }
    out.push_back(static_cast<std::uint8_t>(value));
  }
  return out;
}

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

std::vector<std::uint8_t> load(const std::string& path, const char* option) {
  Result<std::vector<std::uint8_t>> bytes = io::load_file(path);
  if (!bytes) {
    throw UsageError(fmt::format("{}: cannot read {}", option, path));
  }
  return std::move(*bytes);
}

ExportRequest parse_export(const std::string& spec) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = spec.find(':', start);
    fields.push_back(spec.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) {
      break;
    }
    start = colon + 1;
  }
  if (fields.size() < 2 || fields.size() > 3 || fields[0].empty()) {
    throw UsageError(fmt::format("--export: '{}' is not LABEL:LENGTH[:CONTEXT_HEX]", spec));
  }
  ExportRequest r;
  r.label = fields[0];
  const std::string& length = fields[1];
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), r.length);
  if (length.empty() || ec != std::errc() || end != length.data() + length.size() ||
      r.length == 0 || r.length > kMaxExportLength) {
    throw UsageError(
        fmt::format("--export: length '{}' is not in [1, {}]", length, kMaxExportLength));
  }
  if (fields.size() == 3) {
    r.has_context = true;
    r.context = parse_hex(fields[2], "--export");
  }
  return r;
}

crypto::SignatureScheme check_scheme(crypto::KeyType type) noexcept {
  switch (type) {
    case crypto::KeyType::kRsa:
      return crypto::SignatureScheme::kRsaPssRsaeSha256;
    case crypto::KeyType::kEd25519:
      return crypto::SignatureScheme::kEd25519;
    case crypto::KeyType::kEcP256:
    case crypto::KeyType::kEcP384:
      break;
  }
  return crypto::SignatureScheme::kEcdsaSecp256r1Sha256;  // any ECDSA hash with either curve
}

// key_matches signs a message with `key` and checks it with the certificate's public key.
bool key_matches(const crypto::CertificateChain& chain, const crypto::PrivateKey& key) {
  const Result<crypto::PublicKey> pub = crypto::PublicKey::from_certificate(chain.der(0));
  if (!pub || pub->type() != key.type()) {
    return false;
  }
  const crypto::SignatureScheme scheme = check_scheme(key.type());
  const std::vector<std::uint8_t> message = bytes_of("wireseal: does the key fit?");
  std::vector<std::uint8_t> signature(key.max_signature_size());
  const Result<std::size_t> n = key.sign(scheme, message, signature);
  return n && pub->verify(scheme, message, std::span(signature).first(*n));
}

crypto::CertifiedKey load_certificate(const DtlsEndpointArgs& args) {
  Result<crypto::CertificateChain> chain =
      crypto::CertificateChain::from_pem(load(args.cert, "--cert"));
  if (!chain) {
    throw UsageError(fmt::format("--cert: no PEM certificate in {}", args.cert));
  }
  Result<crypto::PrivateKey> key = crypto::PrivateKey::from_pem(load(args.key, "--key"));
  if (!key) {
    throw UsageError(fmt::format(
        "--key: no usable unencrypted PEM private key in {} (RSA, P-256, P-384, Ed25519)",
        args.key));
  }
  if (!key_matches(*chain, *key)) {
    throw UsageError(fmt::format("--key: the key in {} is not the key of the certificate in {}",
                                 args.key, args.cert));
  }
  return crypto::CertifiedKey{std::move(*chain), std::move(*key)};
}

std::vector<std::uint16_t> parse_ciphers(const std::string& text) {
  std::vector<std::uint16_t> out;
  for (const std::string& name : split_list(text)) {
    const dtls::CipherSuite* suite = dtls::find_cipher_suite_by_name(name);
    if (suite == nullptr) {
      throw UsageError(fmt::format(
          "--ciphers: unknown cipher suite '{}' (see --help for the names wireseal knows)", name));
    }
    if (std::find(out.begin(), out.end(), suite->code) == out.end()) {
      out.push_back(suite->code);
    }
  }
  if (out.empty()) {
    throw UsageError("--ciphers: empty list");
  }
  return out;
}

std::vector<std::uint16_t> psk_default_suites() {
  std::vector<std::uint16_t> out;
  for (std::uint16_t code : dtls::default_cipher_suites()) {
    const dtls::CipherSuite* suite = dtls::find_cipher_suite(code);
    if (suite != nullptr && suite->auth == dtls::SuiteAuth::kPsk) {
      out.push_back(code);
    }
  }
  return out;
}

const char* group_name(std::uint16_t group) noexcept {
  switch (group) {
    case 29:
      return "X25519";
    case 23:
      return "P-256";
    case 24:
      return "P-384";
    default:
      return "none";
  }
}

const char* auth_name(dtls::PeerAuth auth) noexcept {
  switch (auth) {
    case dtls::PeerAuth::kFingerprint:
      return "peer authenticated by fingerprint";
    case dtls::PeerAuth::kChain:
      return "peer authenticated by a chain to --ca";
    case dtls::PeerAuth::kPsk:
      return "peer authenticated by the PSK";
    case dtls::PeerAuth::kVerifier:
      return "peer accepted by the caller's verifier";
    case dtls::PeerAuth::kNone:
      break;
  }
  return "peer not authenticated (allowed)";
}

std::string hex_upper(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    out += fmt::format("{:02X}", b);
  }
  return out;
}

volatile std::sig_atomic_t g_stop = 0;

void on_stop_signal(int /*signal*/) { g_stop = 1; }

}  // namespace

void add_endpoint_options(CLI::App& command, DtlsEndpointArgs& args, dtls::Role role) {
  const bool server = role == dtls::Role::kServer;
  CLI::Option* cert = command
                          .add_option("--cert", args.cert,
                                      "Our certificate chain (PEM, leaf first). Without --cert: "
                                      "a generated ECDSA P-256 self-signed certificate")
                          ->check(CLI::ExistingFile);
  CLI::Option* key = command.add_option("--key", args.key, "The private key of --cert (PEM)")
                         ->check(CLI::ExistingFile);
  cert->needs(key);
  key->needs(cert);
  command.add_option("--fingerprint", args.fingerprints,
                     server ? "Request the client's certificate and accept only one with this "
                              "fingerprint ('sha-256:AB:CD:...'; repeatable)"
                            : "Accept the server's certificate if it has this fingerprint "
                              "('sha-256:AB:CD:...'; repeatable)");
  command.add_flag("--print-fingerprint", args.print_fingerprint,
                   "Print our certificate's fingerprint ('fingerprint sha-256 AB:...') on stderr "
                   "at start");
  command
      .add_option("--ca", args.ca,
                  server ? "Request the client's certificate and accept it if it chains to a CA "
                           "in this PEM file"
                         : "Accept the server's certificate if it chains to a CA in this PEM "
                           "file and names --server-name (or the host of --connect)")
      ->check(CLI::ExistingFile);
  CLI::Option* psk =
      command.add_option("--psk", args.psk, "Pre-shared key, hex (enables the PSK suites)");
  CLI::Option* identity = command.add_option(
      "--psk-identity", args.psk_identity,
      server ? "The PSK identity clients must send" : "The PSK identity we send");
  psk->needs(identity);
  identity->needs(psk);
  if (server) {
    command.add_option("--psk-hint", args.psk_hint, "PSK identity hint sent to clients")
        ->needs(psk);
  } else {
    command.add_option("--server-name", args.server_name,
                       "Name sent as SNI and checked against the chain with --ca (default: the "
                       "host of --connect when it is a name)");
  }
  command.add_option("--ciphers", args.ciphers,
                     "Cipher suites in preference order, ':' or ',' separated, IANA or OpenSSL "
                     "names (default: AEAD suites; PSK suites only when a PSK is the only "
                     "authentication)");
  command.add_option("--groups", args.groups,
                     "ECDHE groups in preference order: X25519, P-256, P-384 (or x25519, "
                     "secp256r1, secp384r1)");
  command.add_option("--srtp", args.srtp,
                     "Negotiate use_srtp with these profiles, ':' or ',' separated: "
                     "SRTP_AES128_CM_SHA1_80, SRTP_AES128_CM_SHA1_32, SRTP_AEAD_AES_128_GCM, "
                     "SRTP_AEAD_AES_256_GCM");
  command.add_option("--mtu", args.mtu, "Largest datagram we send")
      ->check(CLI::Range(256, 65535))
      ->capture_default_str();
  command
      .add_option("--handshake-timeout", args.handshake_timeout,
                  "Give up a handshake after this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--export", args.exports,
                     "After the handshake print 'export LABEL HEX': RFC 5705 keying material "
                     "(LABEL:LENGTH[:CONTEXT_HEX]; repeatable)");
  command.add_flag("--insecure", args.insecure,
                   server ? "Accept clients that do not authenticate even with --psk"
                          : "Connect even without --fingerprint, --ca or --psk: the server is "
                            "then not authenticated");
  command.add_option("--keylog", args.keylog,
                     "Append each association's NSS key log line (CLIENT_RANDOM, as Wireshark "
                     "and 'wireseal dtls decrypt --keylog' read) to this file, created 0600");
  args.cid_option =
      command
          .add_option("--cid", args.cid,
                      "Negotiate an RFC 9146 connection ID: HEX is the one the peer's records "
                      "to us carry (up to 255 bytes; without HEX, none for us, but we send the "
                      "peer's). A server gives each association a random CID as long as HEX "
                      "and follows a client to a new address by it")
          ->expected(0, 1);
}

std::string endpoint_options_footer() {
  std::string suites;
  for (const dtls::CipherSuite& s : dtls::cipher_suites()) {
    suites += fmt::format("  {} ({})\n", s.openssl_name, s.iana_name);
  }
  return "Cipher suites (--ciphers):\n" + suites +
         "Exit status: 0 after a clean close, 1 when a handshake or an association fails (the "
         "cause on stderr), 2 for an option that cannot work.\n"
         "Standard output carries only the peer's application data; the handshake report "
         "(connected line, 'export LABEL HEX', 'srtp-profile NAME', 'srtp-keying-material HEX', "
         "'connection-id negotiated') "
         "and errors go to stderr.";
}

EndpointSetup build_endpoint_setup(const DtlsEndpointArgs& args, dtls::Role role,
                                   const std::string& connect_host) {
  const bool server = role == dtls::Role::kServer;
  const bool has_psk = !args.psk.empty();
  const bool by_certificate = !args.fingerprints.empty() || !args.ca.empty();
  if (!server && !by_certificate && !has_psk && !args.insecure) {
    throw UsageError(
        "no way to authenticate the server: give --fingerprint, --ca or --psk (or --insecure "
        "to accept any server)");
  }
  auto config = std::make_shared<dtls::EndpointConfig>();
  config->role = role;
  EndpointSetup setup;

  // A PSK as the only authentication: no certificate, and (unless --ciphers says otherwise)
  // only PSK suites, so that a server cannot pick a suite we would fail to authenticate.
  const bool psk_only = has_psk && !by_certificate && !args.insecure;
  if (!args.cert.empty()) {
    config->certificate.emplace(load_certificate(args));
  } else if (!psk_only) {
    Result<crypto::CertifiedKey> made = crypto::generate_self_signed(crypto::KeyType::kEcP256);
    if (!made) {
      throw std::runtime_error(
          fmt::format("cannot generate a certificate: {}", to_string(made.error())));
    }
    config->certificate.emplace(std::move(*made));
  }
  if (config->certificate) {
    const Result<crypto::Fingerprint> fp =
        crypto::fingerprint(crypto::FingerprintHash::kSha256, config->certificate->chain.der(0));
    if (fp) {
      setup.own_fingerprint = crypto::format_fingerprint(*fp);
    }
  }

  for (const std::string& text : args.fingerprints) {
    const Result<crypto::Fingerprint> fp = crypto::parse_fingerprint(text);
    if (!fp) {
      throw UsageError(fmt::format(
          "--fingerprint: '{}' is not a fingerprint (want sha-256:AB:CD:... with the whole "
          "digest)",
          text));
    }
    config->peer_fingerprints.push_back(*fp);
  }
  if (!args.ca.empty()) {
    Result<crypto::TrustStore> store = crypto::TrustStore::from_pem(load(args.ca, "--ca"));
    if (!store) {
      throw UsageError(fmt::format("--ca: no PEM certificate in {}", args.ca));
    }
    config->trust_store.emplace(std::move(*store));
  }
  if (!server) {
    // SNI carries names only (RFC 6066 §3); with --ca an IP literal is still what the
    // certificate must name, and the engine checks only server_name, which it also sends.
    if (!args.server_name.empty()) {
      config->server_name = args.server_name;
    } else if (!io::is_ip_literal(connect_host) || !args.ca.empty()) {
      config->server_name = connect_host;
    }
  }
  if (has_psk) {
    config->psk = parse_hex(args.psk, "--psk");
    if (config->psk.empty()) {
      throw UsageError("--psk: empty key");
    }
    config->psk_identity = bytes_of(args.psk_identity);
    config->psk_identity_hint = bytes_of(args.psk_hint);
  }
  if (!args.ciphers.empty()) {
    config->cipher_suites = parse_ciphers(args.ciphers);
  } else if (psk_only) {
    config->cipher_suites = psk_default_suites();
  }
  if (!args.groups.empty()) {
    config->groups = lookup_list(args.groups, kGroups, "--groups");
  }
  if (!args.srtp.empty()) {
    config->srtp_profiles = lookup_list(args.srtp, kSrtpProfiles, "--srtp");
  }
  config->mtu = args.mtu;
  config->handshake_timeout =
      std::chrono::milliseconds(std::llround(args.handshake_timeout * 1000.0));
  // The client is fail-closed unless --insecure. A server without --fingerprint, --ca or
  // --psk accepts clients without certificates (as `openssl s_server` does); with them it
  // requires one of them to hold.
  config->allow_unauthenticated_peer = args.insecure || (server && !by_certificate && !has_psk);
  for (const std::string& spec : args.exports) {
    setup.exports.push_back(parse_export(spec));
  }
  try {
    const dtls::Endpoint probe(config);  // what the engine refuses, refused before any I/O
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (args.cid_option != nullptr && args.cid_option->count() > 0) {
    config->connection_id = parse_hex(args.cid, "--cid");
    if (config->connection_id->size() > dtls::kMaxCidLength) {
      throw UsageError("--cid: longer than 255 bytes");
    }
  }
  if (!args.keylog.empty()) {
    setup.keylog = open_keylog(args.keylog);
    config->keylog = {append_keylog_line, setup.keylog.get()};
  }
  setup.config = std::move(config);
  return setup;
}

int run_command(const char* name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: {}\n", name, e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", name, e.what());
    return kExitFailure;
  }
}

Association::Association(std::shared_ptr<const dtls::EndpointConfig> config,
                         const io::UdpAddress& peer_address)
    : endpoint(std::move(config)), peer(peer_address), output(endpoint.max_datagram_size()) {}

bool flush(Association& a, io::UdpSocket& socket, bool connected_socket,
           const OutputHandler& handler) {
  for (;;) {
    const Result<dtls::Output> out = a.endpoint.poll_output(a.output);
    if (!out) {
      a.failed = true;
      return false;
    }
    switch (out->kind) {
      case dtls::Output::Kind::kDatagram: {
        const std::span<const std::uint8_t> d = std::span(a.output).first(out->size);
        // A lost datagram is what UDP does anyway: the handshake retransmits.
        static_cast<void>(connected_socket ? socket.send(d) : socket.send_to(a.peer, d));
        break;
      }
      case dtls::Output::Kind::kConnected:
        a.connected = true;
        a.max_plaintext = std::min(kMaxRecordPlaintext, a.endpoint.max_datagram_size());
        while (a.max_plaintext > 1 &&
               a.endpoint.sealed_size(a.max_plaintext) > a.endpoint.max_datagram_size()) {
          --a.max_plaintext;
        }
        a.record.resize(a.endpoint.sealed_size(a.max_plaintext));
        handler(a, *out);
        break;
      case dtls::Output::Kind::kClosed:
        a.closed = true;
        handler(a, *out);
        break;
      case dtls::Output::Kind::kFailed:
        a.failed = true;
        handler(a, *out);
        break;
      case dtls::Output::Kind::kApplicationData:
        handler(a, *out);
        break;
      case dtls::Output::Kind::kTimeout:
        a.deadline = out->deadline;
        return true;
      case dtls::Output::Kind::kIdle:
        a.deadline.reset();
        return true;
    }
  }
}

bool send_text(Association& a, io::UdpSocket& socket, bool connected_socket,
               std::span<const std::uint8_t> text) {
  if (!a.connected || a.max_plaintext == 0) {
    return false;
  }
  do {
    const std::span<const std::uint8_t> piece = text.first(std::min(text.size(), a.max_plaintext));
    text = text.subspan(piece.size());
    const Result<std::size_t> n = a.endpoint.send(piece, a.record);
    if (!n) {
      return false;
    }
    const std::span<const std::uint8_t> d = std::span(a.record).first(*n);
    static_cast<void>(connected_socket ? socket.send(d) : socket.send_to(a.peer, d));
  } while (!text.empty());
  return true;
}

void print_connected(const Association& a, const EndpointSetup& setup, const char* name) {
  const dtls::Negotiated& n = a.endpoint.negotiated();
  fmt::print(stderr, "{}: connected {}: {} ({}), group {}, {}{}\n", name, a.peer.to_string(),
             n.suite != nullptr ? n.suite->iana_name : "?",
             n.suite != nullptr ? n.suite->openssl_name : "?", group_name(n.group),
             auth_name(n.peer_auth), n.extended_master_secret ? ", extended master secret" : "");
  for (const ExportRequest& r : setup.exports) {
    std::vector<std::uint8_t> out(r.length);
    if (const Status st = a.endpoint.export_keying_material(r.label, r.context, r.has_context, out);
        !st) {
      fmt::print(stderr, "{}: --export {}: {}\n", name, r.label, to_string(st.error()));
      continue;
    }
    fmt::print(stderr, "export {} {}\n", r.label, hex_upper(out));
  }
  if (n.connection_id) {
    fmt::print(stderr, "connection-id negotiated\n");
  } else if (setup.config->connection_id) {
    fmt::print(stderr, "{}: {} did not negotiate a connection ID\n", name, a.peer.to_string());
  }
  if (n.srtp_profile != 0) {
    fmt::print(stderr, "srtp-profile {}\n", name_of(kSrtpProfiles, n.srtp_profile));
    const Result<dtls::SrtpKeyingMaterial> keys = a.endpoint.srtp_keying_material();
    if (keys) {
      fmt::print(stderr, "srtp-keying-material {}\n", hex_upper(keys->material()));
    }
  } else if (!setup.config->srtp_profiles.empty()) {
    fmt::print(stderr, "{}: {} did not negotiate use_srtp\n", name, a.peer.to_string());
  }
  // On a good link 0: each resend is a retransmission timeout the user waited through.
  fmt::print(stderr, "retransmissions {}\n", a.endpoint.stats().retransmissions);
  std::fflush(stderr);
}

std::string describe_failure(const dtls::Failure& f) {
  if (f.error == Error::kTimedOut) {
    return fmt::format("{} (--handshake-timeout)", f.reason);
  }
  if (f.alert_from_peer) {
    return fmt::format("{}: {}", f.reason, dtls::to_string(f.alert));
  }
  return fmt::format("{} (we sent the alert {})", f.reason, dtls::to_string(f.alert));
}

std::chrono::milliseconds wait_time(std::optional<dtls::Instant> deadline, dtls::Instant now,
                                    std::chrono::milliseconds cap) {
  if (!deadline) {
    return cap;
  }
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - now);
  return std::clamp(left, std::chrono::milliseconds(1), cap);
}

std::vector<std::string> StdinLines::read() {
  std::vector<std::string> lines;
  if (at_end_) {
    return lines;
  }
  std::array<char, 16384> buffer{};
  const ssize_t n = ::read(kStdinFd, buffer.data(), buffer.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
    return lines;
  }
  if (n <= 0) {  // the end, or an error that ends it (a closed descriptor)
    at_end_ = true;
    if (!partial_.empty()) {
      lines.push_back(std::exchange(partial_, {}));
    }
    return lines;
  }
  partial_.append(buffer.data(), static_cast<std::size_t>(n));
  std::size_t start = 0;
  for (std::size_t nl = partial_.find('\n'); nl != std::string::npos;
       nl = partial_.find('\n', start)) {
    lines.push_back(partial_.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  partial_.erase(0, start);
  return lines;
}

void write_stdout(std::span<const std::uint8_t> data) {
  std::fwrite(data.data(), 1, data.size(), stdout);
  std::fflush(stdout);
}

void install_stop_handlers() {
  static_cast<void>(std::signal(SIGINT, on_stop_signal));
  static_cast<void>(std::signal(SIGTERM, on_stop_signal));
}

bool stop_requested() noexcept { return g_stop != 0; }

}  // namespace wireseal::cli
