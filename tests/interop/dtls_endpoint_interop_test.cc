// dtls::Endpoint against OpenSSL's and GnuTLS's DTLS over real UDP sockets on 127.0.0.1, both
// roles:
// the handshake completes, application data flows both ways, and the RFC 5705 exports and the
// DTLS-SRTP keys OpenSSL prints (-keymatexport) equal ours byte for byte.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "endpoint_driver.h"
#include "udp_relay.h"
#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"

namespace wireseal::interop {
namespace {

struct Case {
  const char* name;
  std::uint16_t suite;
  crypto::KeyType key;  // ignored for PSK suites
  bool psk;
  const char* srtp;  // OpenSSL profile name, or nullptr
  std::uint16_t srtp_id;
  std::size_t mtu;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const char* openssl_name(std::uint16_t suite) {
  return dtls::find_cipher_suite(suite)->openssl_name;
}

// expect_no_stall: on a lossless loopback, a handshake (with the cookie exchange when we
// serve) completes without any flight sent twice. A flight the peer ignored (an epoch-0
// record number it had seen, say) is sent again only by our timer, one second later.
void expect_no_stall(Driver& us, bool we_serve) {
  EXPECT_EQ(us.endpoint().stats().retransmissions, 0U)
      << "the handshake waited for a retransmission timeout";
  if (we_serve) {
    EXPECT_EQ(us.hello_verify_requests(), 1U);
  }
}

// OpensslTest: a PeerTest that needs the openssl command.
template <class Param>
class OpensslTest : public PeerTest<Param> {
 protected:
  void SetUp() override {
    openssl_ = find_program("openssl");
    ASSERT_FALSE(openssl_.empty()) << "openssl not on PATH (scripts/install-deps.sh installs it)";
    this->make_dir();
  }

  std::string openssl_;
};

class OpensslPeer : public OpensslTest<std::tuple<Case, dtls::Role>> {};

TEST_P(OpensslPeer, HandshakeDataAndExports) {
  const auto& [c, our_role] = GetParam();
  const bool we_serve = our_role == dtls::Role::kServer;
  auto config = std::make_shared<EndpointConfig>();
  config->role = our_role;
  config->cipher_suites = {c.suite};
  config->mtu = c.mtu;
  std::vector<std::string> argv = {openssl_,
                                   we_serve ? "s_client" : "s_server",
                                   "-dtls1_2",
                                   "-cipher",
                                   openssl_name(c.suite),
                                   "-keymatexport",
                                   kExportLabel,
                                   "-keymatexportlen",
                                   std::to_string(kExportLength),
                                   "-mtu",
                                   std::to_string(c.mtu)};
  if (c.psk) {
    config->psk = psk_bytes();
    config->psk_identity = bytes(kPskIdentity);
    argv.insert(argv.end(), {"-psk", kPskHex, "-psk_identity", kPskIdentity});
    if (!we_serve) {
      argv.push_back("-nocert");
    }
  } else {
    crypto::CertifiedKey server_id = write_identity(c.key, "server");
    const Result<crypto::Fingerprint> fp =
        crypto::fingerprint(crypto::FingerprintHash::kSha256, server_id.chain.der(0));
    ASSERT_TRUE(fp);
    if (we_serve) {
      config->certificate.emplace(std::move(server_id));
    } else {
      config->peer_fingerprints = {*fp};
      argv.insert(argv.end(), {"-cert", dir_ + "/server.crt", "-key", dir_ + "/server.key"});
    }
  }
  if (we_serve) {
    config->allow_unauthenticated_peer = !c.psk;  // s_client sends no certificate
  }
  if (c.srtp != nullptr) {
    config->srtp_profiles = {c.srtp_id};
    argv.insert(argv.end(), {"-use_srtp", c.srtp});
  }

  Udp udp;
  std::optional<ChildProcess> peer;
  if (we_serve) {
    argv.insert(argv.end(), {"-connect", "127.0.0.1:" + std::to_string(udp.port())});
    peer.emplace(argv, dir_ + "/peer.err");
  } else {
    const std::uint16_t port = start_s_server(argv, 1, peer, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "openssl s_server did not start";
    udp.connect_to(port);
  }
  Driver us(config, udp);
  if (we_serve) {
    us.use_cookies();  // as `wireseal dtls server` does by default
  }
  const bool connected = us.pump([&us] { return us.connected(); }, milliseconds(10000));
  std::ifstream err_file(dir_ + "/peer.err");
  const std::string peer_err((std::istreambuf_iterator<char>(err_file)), {});
  ASSERT_TRUE(connected) << us.endpoint().failure().reason << "\npeer stdout: " << peer->output()
                         << "\npeer stderr: " << peer_err;
  expect_no_stall(us, we_serve);

  // OpenSSL prints its exports once the handshake is done.
  std::array<std::uint8_t, kExportLength> ours{};
  ASSERT_TRUE(us.endpoint().export_keying_material(kExportLabel, {}, false, ours));
  EXPECT_TRUE(peer->wait_for_output("Keying material: " + hex(ours), milliseconds(5000)))
      << peer->output();
  if (c.srtp != nullptr) {
    EXPECT_EQ(us.endpoint().negotiated().srtp_profile, c.srtp_id);
    EXPECT_TRUE(peer->wait_for_output(std::string("SRTP Extension negotiated, profile=") + c.srtp,
                                      milliseconds(5000)))
        << peer->output();
  }

  // Data both ways: ours shows up on OpenSSL's stdout, a line on its stdin comes back to us.
  us.send("wireseal says hello\n");
  EXPECT_TRUE(peer->wait_for_output("wireseal says hello", milliseconds(5000))) << peer->output();
  ASSERT_TRUE(peer->write_stdin("openssl answers\n"));
  EXPECT_TRUE(us.receives("openssl answers"));
  peer->stop();
}

const char* role_suffix(dtls::Role our_role) {
  return our_role == dtls::Role::kServer ? "_WiresealServer" : "_WiresealClient";
}

std::string case_name(const testing::TestParamInfo<std::tuple<Case, dtls::Role>>& info) {
  const Case& c = std::get<0>(info.param);
  return std::string(c.name) + role_suffix(std::get<1>(info.param));
}

// One case per suite family and authentication, plus use_srtp and a small MTU.
const Case kCases[] = {
    {"EcdsaP256Gcm", 0xC02B, crypto::KeyType::kEcP256, false, nullptr, 0, 1200},
    {"EcdsaP384Gcm256", 0xC02C, crypto::KeyType::kEcP384, false, nullptr, 0, 1200},
    {"EcdsaChaCha", 0xCCA9, crypto::KeyType::kEcP256, false, nullptr, 0, 1200},
    {"EcdsaCcm", 0xC0AC, crypto::KeyType::kEcP256, false, nullptr, 0, 1200},
    {"EcdsaCcm8", 0xC0AE, crypto::KeyType::kEcP256, false, nullptr, 0, 1200},
    {"EcdsaCbcSha384", 0xC024, crypto::KeyType::kEcP256, false, nullptr, 0, 1200},
    {"RsaGcm", 0xC02F, crypto::KeyType::kRsa, false, nullptr, 0, 1200},
    {"RsaCbcSha", 0xC013, crypto::KeyType::kRsa, false, nullptr, 0, 1200},
    {"RsaGcmSmallMtu", 0xC030, crypto::KeyType::kRsa, false, nullptr, 0, 400},
    {"PskGcm", 0x00A8, crypto::KeyType::kEcP256, true, nullptr, 0, 1200},
    {"PskCbcSha256", 0x00AE, crypto::KeyType::kEcP256, true, nullptr, 0, 1200},
    {"EcdhePskChaCha", 0xCCAC, crypto::KeyType::kEcP256, true, nullptr, 0, 1200},
    {"EcdhePskCbc", 0xC037, crypto::KeyType::kEcP256, true, nullptr, 0, 1200},
    {"SrtpAesCm80", 0xC02B, crypto::KeyType::kEcP256, false, "SRTP_AES128_CM_SHA1_80", 1, 1200},
    {"SrtpAeadGcm", 0xC02B, crypto::KeyType::kEcP256, false, "SRTP_AEAD_AES_128_GCM", 7, 1200},
};

INSTANTIATE_TEST_SUITE_P(Dtls12, OpensslPeer,
                         testing::Combine(testing::ValuesIn(kCases),
                                          testing::Values(dtls::Role::kClient,
                                                          dtls::Role::kServer)),
                         case_name);

// --- A bad link to OpenSSL (RFC 6347 §4.2.4): the landed UDP relay between us and s_server or
// s_client drops 30 %, duplicates 20 % and reorders 20 % of the datagrams each way; the
// handshake completes within the retransmission budget and both ends export the same keys.

class OpensslLossyLink : public OpensslTest<std::tuple<std::uint32_t, dtls::Role>> {};

TEST_P(OpensslLossyLink, HandshakeCompletesOnRetransmissions) {
  const auto& [seed, our_role] = GetParam();
  const bool we_serve = our_role == dtls::Role::kServer;
  crypto::CertifiedKey id = write_identity(crypto::KeyType::kEcP256, "server");
  const Result<crypto::Fingerprint> fp =
      crypto::fingerprint(crypto::FingerprintHash::kSha256, id.chain.der(0));
  ASSERT_TRUE(fp);
  auto config = std::make_shared<EndpointConfig>();
  config->role = our_role;
  config->cipher_suites = {0xC02B};
  config->initial_retransmit_timeout = milliseconds(250);  // OpenSSL's own timer starts at 1 s
  if (we_serve) {
    config->certificate.emplace(std::move(id));
    config->allow_unauthenticated_peer = true;
  } else {
    config->peer_fingerprints = {*fp};
  }
  const Impairment bad_link{0.3, 0.2, 0.2, seed};
  std::vector<std::string> argv = {openssl_,
                                   we_serve ? "s_client" : "s_server",
                                   "-dtls1_2",
                                   "-keymatexport",
                                   kExportLabel,
                                   "-keymatexportlen",
                                   std::to_string(kExportLength)};
  Udp udp;
  std::optional<UdpRelay> relay;
  std::optional<ChildProcess> peer;
  if (we_serve) {
    relay.emplace(udp.port(), UdpRelay::Transform{}, milliseconds(90000), bad_link);
    argv.insert(argv.end(), {"-connect", "127.0.0.1:" + std::to_string(relay->listen_port())});
    peer.emplace(argv, dir_ + "/peer.err");
  } else {
    argv.insert(argv.end(), {"-cert", dir_ + "/server.crt", "-key", dir_ + "/server.key"});
    const std::uint16_t port = start_s_server(argv, 1, peer, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "openssl s_server did not start";
    relay.emplace(port, UdpRelay::Transform{}, milliseconds(90000), bad_link);
    udp.connect_to(relay->listen_port());
  }
  Driver us(config, udp);
  ASSERT_TRUE(us.pump([&us] { return us.connected(); }, milliseconds(60000)))
      << us.endpoint().failure().reason << "\npeer: " << peer->output()
      << slurp_file(dir_ + "/peer.err");
  std::array<std::uint8_t, kExportLength> ours{};
  ASSERT_TRUE(us.endpoint().export_keying_material(kExportLabel, {}, false, ours));
  EXPECT_TRUE(peer->wait_for_output("Keying material: " + hex(ours), milliseconds(20000)))
      << peer->output();
  RecordProperty("retransmissions", static_cast<int>(us.endpoint().stats().retransmissions));
  peer->stop();
}

std::string lossy_case_name(
    const testing::TestParamInfo<std::tuple<std::uint32_t, dtls::Role>>& info) {
  return "Seed" + std::to_string(std::get<0>(info.param)) + role_suffix(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Dtls12, OpensslLossyLink,
                         testing::Combine(testing::Values(1U, 2U, 3U),
                                          testing::Values(dtls::Role::kClient,
                                                          dtls::Role::kServer)),
                         lossy_case_name);

// --- GnuTLS: gnutls-serv (which insists on a cookie exchange) and gnutls-cli.

struct GnutlsCase {
  const char* name;
  std::uint16_t suite;
  crypto::KeyType key;
  bool psk;
  const char* priority;  // pins the suite: key exchange, cipher, MAC
  const char* srtp;      // GnuTLS profile name, or nullptr
  std::uint16_t srtp_id;
};

void PrintTo(const GnutlsCase& c, std::ostream* os) { *os << c.name; }

std::string lower(std::string s) {
  for (char& ch : s) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return s;
}

class GnutlsInterop : public PeerTest<std::tuple<GnutlsCase, dtls::Role>> {
 protected:
  void SetUp() override {
    serv_ = find_program("gnutls-serv");
    cli_ = find_program("gnutls-cli");
    ASSERT_FALSE(serv_.empty() || cli_.empty())
        << "gnutls-serv/gnutls-cli not on PATH (scripts/install-deps.sh installs gnutls-bin)";
    make_dir();
  }

  std::string serv_;
  std::string cli_;
};

TEST_P(GnutlsInterop, HandshakeAndData) {
  const auto& [c, our_role] = GetParam();
  const bool we_serve = our_role == dtls::Role::kServer;
  if (we_serve && dtls::find_cipher_suite(c.suite)->key_exchange == dtls::KeyExchange::kEcdhePsk) {
    GTEST_SKIP() << "gnutls-cli 3.7.9 dies of SIGSEGV right after an ECDHE-PSK handshake, against "
                    "gnutls-serv too; the wireseal-client direction covers ECDHE-PSK with GnuTLS";
  }
  auto config = std::make_shared<EndpointConfig>();
  config->role = our_role;
  config->cipher_suites = {c.suite};
  const std::string priority = std::string("NORMAL:-VERS-ALL:+VERS-DTLS1.2:") + c.priority;
  std::vector<std::string> argv =
      we_serve ? std::vector<std::string>{cli_, "--udp", "--priority", priority}
               : std::vector<std::string>{serv_, "--udp", "--echo", "--priority", priority};
  if (c.psk) {
    config->psk = psk_bytes();
    config->psk_identity = bytes(kPskIdentity);
    if (we_serve) {
      argv.insert(argv.end(), {"--pskusername", kPskIdentity, "--pskkey", kPskHex});
    } else {
      const std::string line = std::string(kPskIdentity) + ":" + kPskHex + "\n";
      write_file("psk.passwd", bytes(line));
      argv.insert(argv.end(), {"--pskpasswd", dir_ + "/psk.passwd"});
    }
  } else {
    crypto::CertifiedKey id = write_identity(c.key, "server");
    const Result<crypto::Fingerprint> fp =
        crypto::fingerprint(crypto::FingerprintHash::kSha256, id.chain.der(0));
    ASSERT_TRUE(fp);
    if (we_serve) {
      config->certificate.emplace(std::move(id));
      config->allow_unauthenticated_peer = true;  // gnutls-cli sends no certificate
      argv.push_back("--insecure");
    } else {
      config->peer_fingerprints = {*fp};
      argv.insert(argv.end(),
                  {"--x509certfile", dir_ + "/server.crt", "--x509keyfile", dir_ + "/server.key"});
    }
  }
  if (c.srtp != nullptr) {
    config->srtp_profiles = {c.srtp_id};
    argv.push_back(std::string("--srtp-profiles=") + c.srtp);
  }

  Udp udp;
  std::optional<ChildProcess> peer;
  if (we_serve) {
    argv.insert(argv.end(), {"--keymatexport=" + std::string(kExportLabel),
                             "--keymatexportsize=" + std::to_string(kExportLength), "--port",
                             std::to_string(udp.port()), "127.0.0.1"});
    peer.emplace(argv, dir_ + "/peer.err");
  } else {
    // gnutls-serv binds 0.0.0.0 and :: on one port.
    const std::uint16_t port = start_udp_peer(
        [&argv](std::uint16_t p) {
          std::vector<std::string> with_port = argv;
          with_port.insert(with_port.end(), {"--port", std::to_string(p)});
          return with_port;
        },
        peer, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "gnutls-serv did not start";
    udp.connect_to(port);
  }
  Driver us(config, udp);
  if (we_serve) {
    us.use_cookies();  // as `wireseal dtls server` does by default
  }
  const bool connected = us.pump([&us] { return us.connected(); }, milliseconds(10000));
  std::ifstream err_file(dir_ + "/peer.err");
  const std::string peer_err((std::istreambuf_iterator<char>(err_file)), {});
  ASSERT_TRUE(connected) << us.endpoint().failure().reason << "\npeer stdout: " << peer->output()
                         << "\npeer stderr: " << peer_err;
  expect_no_stall(us, we_serve);
  if (c.srtp != nullptr) {
    EXPECT_EQ(us.endpoint().negotiated().srtp_profile, c.srtp_id);
  }
  if (we_serve) {
    std::array<std::uint8_t, kExportLength> ours{};
    ASSERT_TRUE(us.endpoint().export_keying_material(kExportLabel, {}, false, ours));
    EXPECT_TRUE(peer->wait_for_output("- Key material: " + lower(hex(ours)), milliseconds(5000)))
        << "ours: " << lower(hex(ours)) << "\npeer stdout: " << peer->output()
        << "\npeer stderr: " << slurp_file(dir_ + "/peer.err");
    // gnutls-cli sends its stdin lines; we answer one.
    ASSERT_TRUE(peer->write_stdin("gnutls says hello\n"));
    EXPECT_TRUE(us.receives("gnutls says hello"));
    us.send("wireseal answers\n");
    EXPECT_TRUE(peer->wait_for_output("wireseal answers", milliseconds(5000))) << peer->output();
  } else {
    // gnutls-serv --echo sends every record back.
    us.send("wireseal says hello\n");
    EXPECT_TRUE(us.receives("wireseal says hello"));
  }
  peer->stop();
}

std::string gnutls_case_name(
    const testing::TestParamInfo<std::tuple<GnutlsCase, dtls::Role>>& info) {
  const GnutlsCase& c = std::get<0>(info.param);
  return std::string(c.name) + role_suffix(std::get<1>(info.param));
}

const GnutlsCase kGnutlsCases[] = {
    {"EcdsaGcm", 0xC02B, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-128-GCM:-MAC-ALL:+AEAD", nullptr, 0},
    {"EcdsaP384Gcm256", 0xC02C, crypto::KeyType::kEcP384, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-256-GCM:-MAC-ALL:+AEAD", nullptr, 0},
    {"EcdsaChaCha", 0xCCA9, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+CHACHA20-POLY1305:-MAC-ALL:+AEAD", nullptr, 0},
    {"EcdsaCcm", 0xC0AC, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-128-CCM:-MAC-ALL:+AEAD", nullptr, 0},
    {"EcdsaCbcSha1", 0xC009, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-128-CBC:-MAC-ALL:+SHA1", nullptr, 0},
    {"RsaGcm", 0xC02F, crypto::KeyType::kRsa, false,
     "-KX-ALL:+ECDHE-RSA:-CIPHER-ALL:+AES-128-GCM:-MAC-ALL:+AEAD", nullptr, 0},
    {"RsaCbcSha256", 0xC027, crypto::KeyType::kRsa, false,
     "-KX-ALL:+ECDHE-RSA:-CIPHER-ALL:+AES-128-CBC:-MAC-ALL:+SHA256", nullptr, 0},
    {"PskGcm", 0x00A8, crypto::KeyType::kEcP256, true,
     "-KX-ALL:+PSK:-CIPHER-ALL:+AES-128-GCM:-MAC-ALL:+AEAD", nullptr, 0},
    {"EcdhePskChaCha", 0xCCAC, crypto::KeyType::kEcP256, true,
     "-KX-ALL:+ECDHE-PSK:-CIPHER-ALL:+CHACHA20-POLY1305:-MAC-ALL:+AEAD", nullptr, 0},
    {"SrtpAesCm80", 0xC02B, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-128-GCM:-MAC-ALL:+AEAD", "SRTP_AES128_CM_HMAC_SHA1_80",
     1},
    // GnuTLS 3.7 has no AEAD SRTP profiles (RFC 7714); OpenSSL's cases cover them.
    {"SrtpAesCm32", 0xC02B, crypto::KeyType::kEcP256, false,
     "-KX-ALL:+ECDHE-ECDSA:-CIPHER-ALL:+AES-128-GCM:-MAC-ALL:+AEAD", "SRTP_AES128_CM_HMAC_SHA1_32",
     2},
};

INSTANTIATE_TEST_SUITE_P(Dtls12, GnutlsInterop,
                         testing::Combine(testing::ValuesIn(kGnutlsCases),
                                          testing::Values(dtls::Role::kClient,
                                                          dtls::Role::kServer)),
                         gnutls_case_name);

}  // namespace
}  // namespace wireseal::interop
