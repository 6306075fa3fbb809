// dtls/handshake_<kind>: one full DTLS 1.2 handshake per iteration, client and server in one
// thread over memory, through dtls::Endpoint and through OpenSSL (two SSL objects over memory
// BIOs, one SSL_CTX per side made once, as a careful OpenSSL user would).
//
// Both sides are created inside the timed loop (an association's whole cost), the
// configuration and certificates outside it. The client checks the server by its SHA-256
// fingerprint in wireseal's case and does no verification in OpenSSL's (SSL_VERIFY_NONE):
// the baseline is spared the chain check, not burdened with it. No cookie exchange on either
// side. Sizes are "1": one handshake. Counters: allocs/op and B/op (the counting allocator,
// every allocation both endpoints make), and for wireseal steady_bytes (memory_used() of the
// client once connected) and peak_bytes (its largest memory_used() during the handshake).
//
// dtls/handshake_server_only_<kind>: the server's share of the same handshake, stateless
// cookie exchange included (wireseal: HelloVerifier over both hellos; OpenSSL:
// SSL_OP_COOKIE_EXCHANGE with HMAC-SHA256 cookie callbacks), the client's work run with the
// timer paused. Counter handshakes_per_s: what one core can serve. Each pause and resume costs
// the harness about a microsecond, four times a handshake, charged to both alike.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/dtls_fixture.h"
#include "bench/suites.h"
#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/hello_verifier.h"

namespace wireseal::bench {
namespace {

struct HandshakeCase {
  const char* name;
  crypto::KeyType key;  // server certificate (ignored for PSK)
  std::uint16_t group;
  std::uint16_t suite;
  const char* openssl_cipher;
  const char* openssl_group;
  bool psk;
};

constexpr HandshakeCase kCases[] = {
    {"handshake_ecdhe_ecdsa_p256", crypto::KeyType::kEcP256, 23, 0xC02B,
     "ECDHE-ECDSA-AES128-GCM-SHA256", "P-256", false},
    // OpenSSL's client refuses an ECDSA certificate on a curve it did not offer (RFC 8422
    // §5.1.1), so both offer P-256 after X25519 and negotiate X25519.
    {"handshake_x25519_ecdsa", crypto::KeyType::kEcP256, 29, 0xC02B,
     "ECDHE-ECDSA-AES128-GCM-SHA256", "X25519:P-256", false},
    {"handshake_ecdhe_rsa2048", crypto::KeyType::kRsa, 29, 0xC02F, "ECDHE-RSA-AES128-GCM-SHA256",
     "X25519", false},
    {"handshake_psk", crypto::KeyType::kEcP256, 0, 0x00A8, "PSK-AES128-GCM-SHA256", "X25519", true},
};

constexpr std::array<std::uint8_t, 16> kPsk{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
constexpr const char* kPskIdentity = "bench";
constexpr std::array<std::size_t, 1> kOne{1};

crypto::CertifiedKey make_identity(crypto::KeyType type) {
  Result<crypto::CertifiedKey> id = crypto::generate_self_signed(type, "bench");
  if (!id) {
    throw std::runtime_error("cannot generate a certificate");
  }
  return std::move(*id);
}

// --- wireseal

struct WiresealPair {
  std::shared_ptr<const dtls::EndpointConfig> client;
  std::shared_ptr<const dtls::EndpointConfig> server;
};

WiresealPair wireseal_configs(const HandshakeCase& c) {
  auto client = std::make_shared<dtls::EndpointConfig>();
  auto server = std::make_shared<dtls::EndpointConfig>();
  client->role = dtls::Role::kClient;
  server->role = dtls::Role::kServer;
  for (dtls::EndpointConfig* cfg : {client.get(), server.get()}) {
    cfg->cipher_suites = {c.suite};
    if (c.group == 23) {
      cfg->groups = {23};
    } else if (c.group == 29) {
      cfg->groups = {29, 23};
    }
    if (c.psk) {
      cfg->psk.assign(kPsk.begin(), kPsk.end());
      cfg->psk_identity.assign(kPskIdentity, kPskIdentity + 5);
    }
  }
  if (!c.psk) {
    crypto::CertifiedKey id = make_identity(c.key);
    const Result<crypto::Fingerprint> fp =
        crypto::fingerprint(crypto::FingerprintHash::kSha256, id.chain.der(0));
    client->peer_fingerprints = {*fp};
    server->certificate.emplace(std::move(id));
    server->allow_unauthenticated_peer = true;  // no client certificate, as in the baseline
  }
  return {client, server};
}

// The wireseal handshake: datagrams handed across until both sides report kConnected.
class WiresealHandshake {
 public:
  explicit WiresealHandshake(const HandshakeCase& c) : configs_(wireseal_configs(c)) {}

  bool operator()() {
    dtls::Endpoint client(configs_.client);
    dtls::Endpoint server(configs_.server);
    const dtls::Instant now{};
    if (!client.start(now) || !server.start(now)) {
      return false;
    }
    bool client_up = false;
    bool server_up = false;
    for (int round = 0; round < 16 && !(client_up && server_up); ++round) {
      if (!pump(client, server, client_up) || !pump(server, client, server_up)) {
        return false;
      }
      peak_bytes = std::max(peak_bytes, client.memory_used());
    }
    steady_bytes = client.memory_used();
    return client_up && server_up;
  }

  std::size_t steady_bytes = 0;
  std::size_t peak_bytes = 0;

 private:
  // pump hands every datagram `from` has to `to`.
  bool pump(dtls::Endpoint& from, dtls::Endpoint& to, bool& from_connected) {
    for (;;) {
      const Result<dtls::Output> out = from.poll_output(buffer_);
      if (!out) {
        return false;
      }
      switch (out->kind) {
        case dtls::Output::Kind::kDatagram:
          if (!to.handle_datagram(dtls::Instant{}, std::span(buffer_).first(out->size))) {
            return false;
          }
          break;
        case dtls::Output::Kind::kConnected:
          from_connected = true;
          break;
        case dtls::Output::Kind::kFailed:
          return false;
        default:
          return true;
      }
    }
  }

  WiresealPair configs_;
  std::array<std::uint8_t, 1500> buffer_{};
};

// --- OpenSSL

struct CtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<SSL_CTX, CtxFree>;

unsigned int psk_client_cb(SSL*, const char*, char* identity, unsigned int max_identity,
                           unsigned char* psk, unsigned int max_psk) {
  std::snprintf(identity, max_identity, "%s", kPskIdentity);
  if (max_psk < kPsk.size()) {
    return 0;
  }
  std::copy(kPsk.begin(), kPsk.end(), psk);
  return static_cast<unsigned int>(kPsk.size());
}

unsigned int psk_server_cb(SSL*, const char*, unsigned char* psk, unsigned int max_psk) {
  if (max_psk < kPsk.size()) {
    return 0;
  }
  std::copy(kPsk.begin(), kPsk.end(), psk);
  return static_cast<unsigned int>(kPsk.size());
}

Ctx openssl_ctx(const HandshakeCase& c, bool server, const crypto::CertifiedKey* id) {
  Ctx ctx(SSL_CTX_new(DTLS_method()));
  if (!ctx) {
    throw std::runtime_error("SSL_CTX_new failed");
  }
  SSL_CTX_set_min_proto_version(ctx.get(), DTLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx.get(), DTLS1_2_VERSION);
  SSL_CTX_set_cipher_list(ctx.get(), c.openssl_cipher);
  // SSL_CTX_set1_groups_list is a macro that casts the string's const away (clang's
  // -Wcast-qual sees that): pass a mutable copy through SSL_CTX_ctrl instead.
  std::string groups = c.openssl_group;
  SSL_CTX_ctrl(ctx.get(), SSL_CTRL_SET_GROUPS_LIST, 0, groups.data());
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_QUERY_MTU);
  if (c.psk) {
    if (server) {
      SSL_CTX_set_psk_server_callback(ctx.get(), psk_server_cb);
    } else {
      SSL_CTX_set_psk_client_callback(ctx.get(), psk_client_cb);
    }
  } else if (server) {
    std::vector<std::uint8_t> pem(16384);
    const Result<std::size_t> n = id->chain.to_pem(pem);
    BIO* cert_bio = BIO_new_mem_buf(pem.data(), static_cast<int>(*n));
    X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
    BIO_free(cert_bio);
    const Result<std::size_t> k = id->key.to_pem(pem);
    BIO* key_bio = BIO_new_mem_buf(pem.data(), static_cast<int>(*k));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
    BIO_free(key_bio);
    const bool ok = cert != nullptr && key != nullptr &&
                    SSL_CTX_use_certificate(ctx.get(), cert) == 1 &&
                    SSL_CTX_use_PrivateKey(ctx.get(), key) == 1;
    X509_free(cert);
    EVP_PKEY_free(key);
    if (!ok) {
      throw std::runtime_error("OpenSSL refused the certificate");
    }
  }
  return ctx;
}

// Timer pauses the benchmark's clock around the client's work (none outside the loop).
class Timer {
 public:
  explicit Timer(benchmark::State* state) : state_(state) {}
  void pause() {
    if (state_ != nullptr) {
      state_->PauseTiming();
    }
  }
  void resume() {
    if (state_ != nullptr) {
      state_->ResumeTiming();
    }
  }

 private:
  benchmark::State* state_;
};

constexpr std::array<std::uint8_t, 6> kClientAddress{127, 0, 0, 1, 0x13, 0x88};

// OpenSSL's stateful cookie exchange needs the application's cookie: HMAC-SHA256 of the
// client's address under a secret, as a careful user would make it.
constexpr std::array<std::uint8_t, 16> kOpensslCookieKey{9, 8, 7, 6, 5, 4, 3, 2,
                                                         1, 0, 1, 2, 3, 4, 5, 6};

bool make_cookie(unsigned char* cookie, std::size_t* len) {
  std::string digest_name = "SHA256";
  return EVP_Q_mac(nullptr, "HMAC", nullptr, digest_name.data(), nullptr, kOpensslCookieKey.data(),
                   kOpensslCookieKey.size(), kClientAddress.data(), kClientAddress.size(), cookie,
                   DTLS1_COOKIE_LENGTH, len) != nullptr;
}

int generate_cookie_cb(SSL*, unsigned char* cookie, unsigned int* cookie_len) {
  std::size_t len = 0;
  if (!make_cookie(cookie, &len)) {
    return 0;
  }
  *cookie_len = static_cast<unsigned int>(len);
  return 1;
}

int verify_cookie_cb(SSL*, const unsigned char* cookie, unsigned int cookie_len) {
  std::array<unsigned char, DTLS1_COOKIE_LENGTH> expected{};
  std::size_t len = 0;
  return make_cookie(expected.data(), &len) && len == cookie_len &&
                 CRYPTO_memcmp(expected.data(), cookie, len) == 0
             ? 1
             : 0;
}

// The OpenSSL handshake: each side's written bytes become the other's next read.
class OpensslHandshake {
 public:
  // With `cookie_exchange` the server runs SSL_OP_COOKIE_EXCHANGE with HMAC cookies.
  explicit OpensslHandshake(const HandshakeCase& c, bool cookie_exchange = false)
      : cookie_exchange_(cookie_exchange) {
    std::optional<crypto::CertifiedKey> id;
    if (!c.psk) {
      id.emplace(make_identity(c.key));
    }
    client_ctx_ = openssl_ctx(c, false, id ? &*id : nullptr);
    server_ctx_ = openssl_ctx(c, true, id ? &*id : nullptr);
    if (cookie_exchange) {
      SSL_CTX_set_cookie_generate_cb(server_ctx_.get(), generate_cookie_cb);
      SSL_CTX_set_cookie_verify_cb(server_ctx_.get(), verify_cookie_cb);
    }
  }

  // With `server_only` the client's work runs with its timer paused.
  bool operator()(benchmark::State* server_only = nullptr) {
    Timer timer(server_only);
    timer.pause();
    SSL* client = side(client_ctx_.get(), c_in_, c_out_);
    SSL_set_connect_state(client);
    timer.resume();
    SSL* server = side(server_ctx_.get(), s_in_, s_out_);
    if (cookie_exchange_) {
      SSL_set_options(server, SSL_OP_COOKIE_EXCHANGE);
    }
    SSL_set_accept_state(server);
    bool done = false;
    for (int round = 0; round < 32 && !done; ++round) {
      timer.pause();
      const int rc = SSL_do_handshake(client);
      move(c_out_, s_in_);
      timer.resume();
      const int rs = SSL_do_handshake(server);
      move(s_out_, c_in_);
      done = rc == 1 && rs == 1;
    }
    SSL_free(server);
    timer.pause();
    SSL_free(client);
    ERR_clear_error();
    timer.resume();
    return done;
  }

 private:
  // side makes one SSL over a pair of memory BIOs (`in` it reads, `out` it writes).
  static SSL* side(SSL_CTX* ctx, BIO*& in, BIO*& out) {
    SSL* ssl = SSL_new(ctx);
    in = BIO_new(BIO_s_mem());
    out = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(in, -1);
    SSL_set_bio(ssl, in, out);
    SSL_set_mtu(ssl, 1200);
    return ssl;
  }

  // move hands every pending datagram from one side's write BIO to the other's read BIO.
  void move(BIO* from, BIO* to) {
    for (;;) {
      const int n = BIO_read(from, buffer_.data(), static_cast<int>(buffer_.size()));
      if (n <= 0) {
        return;
      }
      BIO_write(to, buffer_.data(), n);
    }
  }

  Ctx client_ctx_;
  Ctx server_ctx_;
  bool cookie_exchange_;
  BIO* c_in_ = nullptr;  // owned by the SSL objects of the handshake in progress
  BIO* c_out_ = nullptr;
  BIO* s_in_ = nullptr;
  BIO* s_out_ = nullptr;
  std::array<std::uint8_t, 16384> buffer_{};
};

// --- the server alone

class WiresealServerSide {
 public:
  explicit WiresealServerSide(const HandshakeCase& c)
      : configs_(wireseal_configs(c)), verifier_(kCookieSecret) {}

  bool operator()(benchmark::State* state) {
    Timer timer(state);
    timer.pause();
    dtls::Endpoint client(configs_.client);
    if (!client.start({}) || !next_datagram(client)) {
      return false;
    }
    timer.resume();
    // The first hello is answered statelessly; the second, with the cookie, is accepted.
    std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
    if (verifier_.check(kClientAddress, datagram(), reply).verdict !=
        dtls::HelloVerifier::Verdict::kReply) {
      return false;
    }
    timer.pause();
    if (!client.handle_datagram({}, reply) || !next_datagram(client)) {
      return false;
    }
    timer.resume();
    if (verifier_.check(kClientAddress, datagram(), reply).verdict !=
        dtls::HelloVerifier::Verdict::kAccept) {
      return false;
    }
    dtls::Endpoint server(configs_.server);
    bool client_up = false;
    bool server_up = false;
    if (!server.start({}) || !server.handle_datagram({}, datagram())) {
      return false;
    }
    // Each side's work is what it does in poll_output and handle_datagram: the server's is
    // timed, the client's not.
    for (int round = 0; round < 8 && !(client_up && server_up); ++round) {
      if (!collect(server, server_up)) {
        return false;
      }
      timer.pause();
      const bool ok = deliver(client) && collect(client, client_up);
      timer.resume();
      if (!ok || !deliver(server)) {
        return false;
      }
    }
    return client_up && server_up;
  }

 private:
  static constexpr std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> kCookieSecret{
      1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
      17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

  std::span<std::uint8_t> datagram() { return std::span(buffer_).first(size_); }

  // next_datagram takes the one datagram `from` sends now (a hello) into buffer_.
  bool next_datagram(dtls::Endpoint& from) {
    const Result<dtls::Output> out = from.poll_output(buffer_);
    size_ = out && out->kind == dtls::Output::Kind::kDatagram ? out->size : 0;
    return size_ != 0;
  }

  // collect takes every datagram `from` has into the queue, noting its kConnected.
  bool collect(dtls::Endpoint& from, bool& from_connected) {
    for (;;) {
      const Result<dtls::Output> out = from.poll_output(buffer_);
      if (!out || out->kind == dtls::Output::Kind::kFailed) {
        return false;
      }
      if (out->kind == dtls::Output::Kind::kConnected) {
        from_connected = true;
      } else if (out->kind == dtls::Output::Kind::kDatagram) {
        if (queued_ == queue_.size()) {
          return false;
        }
        Bytes& d = queue_[queued_++];
        d.assign(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(out->size));
      } else {
        return true;
      }
    }
  }

  // deliver hands the queued datagrams to `to`.
  bool deliver(dtls::Endpoint& to) {
    for (std::size_t i = 0; i < queued_; ++i) {
      if (!to.handle_datagram({}, queue_[i])) {
        return false;
      }
    }
    queued_ = 0;
    return true;
  }

  WiresealPair configs_;
  dtls::HelloVerifier verifier_;
  std::array<std::uint8_t, 1500> buffer_{};
  std::size_t size_ = 0;
  std::array<Bytes, 16> queue_{};  // one flight's datagrams, kept between handshakes
  std::size_t queued_ = 0;
};

// OpensslServerOnly is the OpenSSL handshake with the cookie exchange, timed on the server.
struct OpensslServerOnly : OpensslHandshake {
  explicit OpensslServerOnly(const HandshakeCase& c) : OpensslHandshake(c, true) {}
};

// run_server_side times the server's share of each handshake and reports handshakes_per_s.
template <class Side>
void run_server_side(benchmark::State& state, const HandshakeCase& c) {
  try {
    Side side(c);
    if (!side(nullptr)) {
      state.SkipWithError("handshake failed before timing");
      return;
    }
    for (auto _ : state) {
      if (!side(&state)) {
        state.SkipWithError("handshake failed");
        break;
      }
    }
    state.counters["handshakes_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// --- steady state: application records through connected endpoints at 1200 bytes, beside
// the bare RecordSealer/RecordOpener on the same keys' cipher (AES-128-GCM).

constexpr std::size_t kSteadySize = 1200;

// Connected is a client and a server after a PSK handshake (the cheapest to set up).
struct Connected {
  std::optional<dtls::Endpoint> client;
  std::optional<dtls::Endpoint> server;
  Connected() {
    const WiresealPair configs = wireseal_configs(kCases[3]);
    client.emplace(configs.client);
    server.emplace(configs.server);
    std::array<std::uint8_t, 1500> buffer{};
    (void)client->start({});
    (void)server->start({});
    for (int round = 0; round < 8; ++round) {
      for (auto [from, to] : {std::pair{&*client, &*server}, std::pair{&*server, &*client}}) {
        for (;;) {
          const Result<dtls::Output> out = from->poll_output(buffer);
          if (!out || out->kind == dtls::Output::Kind::kTimeout ||
              out->kind == dtls::Output::Kind::kIdle) {
            break;
          }
          if (out->kind == dtls::Output::Kind::kDatagram) {
            (void)to->handle_datagram({}, std::span(buffer).first(out->size));
          }
        }
      }
    }
    if (!client->connected() || !server->connected()) {
      throw std::runtime_error("steady-state fixture: handshake failed");
    }
  }
};

auto make_endpoint_send() {
  auto pair = std::make_shared<Connected>();
  auto record = std::make_shared<Bytes>(pair->client->sealed_size(kSteadySize));
  auto plaintext = std::make_shared<Bytes>(kSteadySize, 0x5a);
  return timed(
      [pair, record, plaintext]() noexcept {
        pin(*record);
        return static_cast<bool>(pair->client->send(*plaintext, *record));
      },
      kSteadySize);
}

// Receive: a ring of records the client sealed, each handed to the server once (its replay
// window refuses a second time); refilled untimed when used up.
class EndpointReceive {
 public:
  static constexpr std::size_t kRing = 128;
  EndpointReceive() : pair_(std::make_shared<Connected>()) { refill(); }
  bool operator()(benchmark::State* state) {
    if (next_ == kRing) {
      if (state != nullptr) {
        state->PauseTiming();
      }
      refill();
      if (state != nullptr) {
        state->ResumeTiming();
      }
    }
    Bytes& record = ring_[next_++];
    if (!pair_->server->handle_datagram({}, record)) {
      return false;
    }
    const Result<dtls::Output> out = pair_->server->poll_output(buffer_);
    return out && out->kind == dtls::Output::Kind::kApplicationData &&
           out->data.size() == kSteadySize;
  }

 private:
  void refill() {
    for (Bytes& r : ring_) {
      r.resize(pair_->client->sealed_size(kSteadySize));
      const Result<std::size_t> n = pair_->client->send(plaintext_, r);
      r.resize(n ? *n : 0);
    }
    next_ = 0;
  }
  std::shared_ptr<Connected> pair_;
  Bytes plaintext_ = Bytes(kSteadySize, 0x5a);  // made once: refills allocate nothing
  std::array<Bytes, kRing> ring_{};
  std::size_t next_ = 0;
  std::array<std::uint8_t, 1500> buffer_{};
};

}  // namespace

void register_dtls_handshake() {
  register_op(
      "dtls", "endpoint_send", kWireseal, [](std::size_t) { return make_endpoint_send(); },
      std::span<const std::size_t>(&kSteadySize, 1));
  register_named(benchmark_name("dtls", "endpoint_receive", kWireseal, kSteadySize),
                 [](benchmark::State& state) {
                   try {
                     auto receive = std::make_shared<EndpointReceive>();
                     auto t = timed([receive, &state] { return (*receive)(&state); }, kSteadySize);
                     run_timed(state, t);
                   } catch (const std::exception& e) {
                     state.SkipWithError(e.what());
                   }
                 });
  // The server alone, for the certificate case WebRTC servers run most and for PSK.
  for (const HandshakeCase& c : {kCases[0], kCases[3]}) {
    const std::string op = std::string("handshake_server_only") + (c.psk ? "_psk" : "_p256");
    register_named(benchmark_name("dtls", op, kWireseal, 1),
                   [c](benchmark::State& state) { run_server_side<WiresealServerSide>(state, c); });
    register_named(benchmark_name("dtls", op, kOpenSsl, 1),
                   [c](benchmark::State& state) { run_server_side<OpensslServerOnly>(state, c); });
  }
  for (const HandshakeCase& c : kCases) {
    register_named(benchmark_name("dtls", c.name, kWireseal, 1), [c](benchmark::State& state) {
      try {
        auto handshake = std::make_shared<WiresealHandshake>(c);
        auto t = timed([handshake] { return (*handshake)(); }, 0);
        run_timed(state, t);
        state.counters["steady_bytes"] = static_cast<double>(handshake->steady_bytes);
        state.counters["peak_bytes"] = static_cast<double>(handshake->peak_bytes);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
      }
    });
    register_op(
        "dtls", c.name, kOpenSsl,
        [c](std::size_t) {
          auto handshake = std::make_shared<OpensslHandshake>(c);
          return timed([handshake] { return (*handshake)(); }, 0);
        },
        kOne);
  }
}

}  // namespace wireseal::bench
