// Client certificates (mutual authentication, as WebRTC does) against OpenSSL and GnuTLS, both
// roles, with ECDSA P-256 and RSA-2048 client keys: our server asks for and requires the
// client's certificate and checks it by fingerprint; our client sends its certificate to a
// peer server that requires one and verifies it against the client certificate as its CA
// (self-signed, as WebRTC's are), failing the handshake otherwise.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "endpoint_driver.h"
#include "udp_peer.h"

namespace wireseal::interop {
namespace {

enum class Peer : std::uint8_t { kOpenssl, kGnutls };

using Param = std::tuple<Peer, dtls::Role, crypto::KeyType>;

class ClientCertificate : public PeerTest<Param> {
 protected:
  void SetUp() override { make_dir(); }
};

// peer_argv: the peer, on the other side of `we_serve`, with what mutual authentication needs
// (its port or our port is added by the caller).
std::vector<std::string> peer_argv(Peer peer, bool we_serve, const std::string& dir) {
  const std::string client_crt = dir + "/client.crt";
  const std::string client_key = dir + "/client.key";
  if (peer == Peer::kOpenssl) {
    const std::string openssl = find_program("openssl");
    if (we_serve) {
      return {openssl, "s_client", "-dtls1_2", "-cert", client_crt, "-key", client_key};
    }
    return {openssl,   "s_server",          "-dtls1_2", "-cert", dir + "/server.crt",
            "-key",    dir + "/server.key", "-Verify",  "1",     "-verify_return_error",
            "-CAfile", client_crt};
  }
  const std::string priority = "NORMAL:-VERS-ALL:+VERS-DTLS1.2";
  if (we_serve) {
    return {find_program("gnutls-cli"), "--udp",    "--priority",    priority,  "--insecure",
            "--x509certfile",           client_crt, "--x509keyfile", client_key};
  }
  return {find_program("gnutls-serv"),
          "--udp",
          "--echo",
          "--priority",
          priority,
          "--x509certfile",
          dir + "/server.crt",
          "--x509keyfile",
          dir + "/server.key",
          "--require-client-cert",
          "--verify-client-cert",
          "--x509cafile",
          client_crt};
}

TEST_P(ClientCertificate, MutualAuthentication) {
  const Peer peer = std::get<0>(GetParam());
  const dtls::Role our_role = std::get<1>(GetParam());
  const crypto::KeyType client_key = std::get<2>(GetParam());
  const bool we_serve = our_role == dtls::Role::kServer;
  ASSERT_FALSE(peer_argv(peer, we_serve, dir_)[0].empty())
      << "peer program not on PATH (scripts/install-deps.sh installs openssl and gnutls-bin)";
  crypto::CertifiedKey server_id = write_identity(crypto::KeyType::kEcP256, "server");
  crypto::CertifiedKey client_id = write_identity(client_key, "client");
  const Result<crypto::Fingerprint> server_fp =
      crypto::fingerprint(crypto::FingerprintHash::kSha256, server_id.chain.der(0));
  const Result<crypto::Fingerprint> client_fp =
      crypto::fingerprint(crypto::FingerprintHash::kSha256, client_id.chain.der(0));
  ASSERT_TRUE(server_fp && client_fp);
  const std::vector<std::uint8_t> client_der(client_id.chain.der(0).begin(),
                                             client_id.chain.der(0).end());

  auto config = std::make_shared<EndpointConfig>();
  config->role = our_role;
  if (we_serve) {
    config->certificate.emplace(std::move(server_id));
    config->peer_fingerprints = {*client_fp};  // asks for the client's certificate, requires it
  } else {
    config->certificate.emplace(std::move(client_id));
    config->peer_fingerprints = {*server_fp};
  }

  std::vector<std::string> argv = peer_argv(peer, we_serve, dir_);
  Udp udp;
  std::optional<ChildProcess> child;
  if (we_serve) {
    if (peer == Peer::kOpenssl) {
      argv.insert(argv.end(), {"-connect", "127.0.0.1:" + std::to_string(udp.port())});
    } else {
      argv.insert(argv.end(), {"--port", std::to_string(udp.port()), "127.0.0.1"});
    }
    child.emplace(argv, dir_ + "/peer.err");
  } else {
    const std::uint16_t port =
        peer == Peer::kOpenssl
            ? start_s_server(argv, 1, child, dir_ + "/peer.err")
            : start_udp_peer(
                  [&argv](std::uint16_t p) {
                    std::vector<std::string> with_port = argv;
                    with_port.insert(with_port.end(), {"--port", std::to_string(p)});
                    return with_port;
                  },
                  child, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "the peer server did not start: " << slurp_file(dir_ + "/peer.err");
    udp.connect_to(port);
  }
  Driver us(config, udp);
  ASSERT_TRUE(us.pump([&us] { return us.connected(); }, milliseconds(10000)))
      << us.endpoint().failure().reason << "\npeer stdout: " << child->output()
      << "\npeer stderr: " << slurp_file(dir_ + "/peer.err");
  EXPECT_EQ(us.endpoint().negotiated().peer_auth, dtls::PeerAuth::kFingerprint);
  if (we_serve) {
    const std::span<const std::uint8_t> got = us.endpoint().peer_certificate();
    EXPECT_TRUE(std::equal(got.begin(), got.end(), client_der.begin(), client_der.end()));
  }
  // Data both ways over the mutually authenticated association.
  if (we_serve) {
    ASSERT_TRUE(child->write_stdin("peer says hello\n"));
    EXPECT_TRUE(us.receives("peer says hello")) << child->output();
  } else if (peer == Peer::kOpenssl) {
    EXPECT_TRUE(child->wait_for_output("Client certificate", milliseconds(5000)))
        << child->output();
    us.send("wireseal says hello\n");
    EXPECT_TRUE(child->wait_for_output("wireseal says hello", milliseconds(5000)))
        << child->output();
  } else {
    us.send("wireseal says hello\n");
    EXPECT_TRUE(us.receives("wireseal says hello")) << child->output();  // gnutls-serv --echo
  }
  child->stop();
}

std::string param_name(const testing::TestParamInfo<Param>& info) {
  const auto& [peer, role, key] = info.param;
  return std::string(peer == Peer::kOpenssl ? "Openssl" : "Gnutls") +
         (key == crypto::KeyType::kRsa ? "RsaClientKey" : "EcdsaClientKey") +
         (role == dtls::Role::kServer ? "_WiresealServer" : "_WiresealClient");
}

INSTANTIATE_TEST_SUITE_P(Dtls12, ClientCertificate,
                         testing::Combine(testing::Values(Peer::kOpenssl, Peer::kGnutls),
                                          testing::Values(dtls::Role::kClient, dtls::Role::kServer),
                                          testing::Values(crypto::KeyType::kEcP256,
                                                          crypto::KeyType::kRsa)),
                         param_name);

}  // namespace
}  // namespace wireseal::interop
