// Session resumption (RFC 5246 §7.3 by session ID, RFC 5077 by ticket) between dtls::Endpoint
// and OpenSSL's and GnuTLS's DTLS 1.2 over real UDP on 127.0.0.1, both roles: a full
// handshake, then a second association that both sides report as resumed, with data through it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "endpoint_driver.h"
#include "udp_relay.h"
#include "wireseal/dtls/session.h"

namespace wireseal::interop {
namespace {

// How the session is carried: a ticket, or the server's session ID (tickets turned off).
enum class Carrier : std::uint8_t { kTicket, kSessionId };

struct ResumptionCase {
  const char* name;
  Carrier carrier;
  dtls::Role our_role;
};

void PrintTo(const ResumptionCase& c, std::ostream* os) { *os << c.name; }

// Both carriers, both roles, against each peer.
const ResumptionCase kCases[] = {
    {"Ticket_WiresealClient", Carrier::kTicket, dtls::Role::kClient},
    {"SessionId_WiresealClient", Carrier::kSessionId, dtls::Role::kClient},
    {"Ticket_WiresealServer", Carrier::kTicket, dtls::Role::kServer},
    {"SessionId_WiresealServer", Carrier::kSessionId, dtls::Role::kServer},
};

std::string case_name(const testing::TestParamInfo<ResumptionCase>& info) {
  return info.param.name;
}

std::shared_ptr<EndpointConfig> server_config(crypto::CertifiedKey id, Carrier carrier) {
  auto c = std::make_shared<EndpointConfig>();
  c->role = dtls::Role::kServer;
  c->certificate.emplace(std::move(id));
  c->allow_unauthenticated_peer = true;  // the peers' clients send no certificate
  // One store each, so the peer can only have resumed through the one under test.
  if (carrier == Carrier::kSessionId) {
    c->session_cache = std::make_shared<dtls::SessionCache>();
  } else {
    std::array<std::uint8_t, dtls::SessionTicketKeys::kSecretSize> secret{};
    secret.fill(0x42);
    c->session_ticket_keys = std::make_shared<dtls::SessionTicketKeys>(secret);
  }
  return c;
}

std::shared_ptr<EndpointConfig> client_config(const crypto::Fingerprint& server, Carrier carrier) {
  auto c = std::make_shared<EndpointConfig>();
  c->role = dtls::Role::kClient;
  c->peer_fingerprints = {server};
  c->session_tickets = carrier == Carrier::kTicket;
  return c;
}

class ResumptionTest : public PeerTest<ResumptionCase> {
 protected:
  void SetUp() override { make_dir(); }

  // identity writes an ECDSA P-256 server certificate for the peer and returns it.
  crypto::CertifiedKey identity(crypto::Fingerprint& fingerprint) {
    crypto::CertifiedKey id = write_identity(crypto::KeyType::kEcP256, "server");
    const Result<crypto::Fingerprint> fp =
        crypto::fingerprint(crypto::FingerprintHash::kSha256, id.chain.der(0));
    EXPECT_TRUE(fp);
    fingerprint = *fp;
    return id;
  }

  std::string peer_err() const { return slurp_file(dir_ + "/peer.err"); }

  // connect_client runs one wireseal client association against a peer server on `port`,
  // offering `saved`, sends `line` (which the peer prints, or echoes when `peer_echoes`) and
  // returns the session it leaves (or nothing).
  std::optional<dtls::Session> connect_client(const std::shared_ptr<EndpointConfig>& config,
                                              std::uint16_t port,
                                              const std::optional<dtls::Session>& saved,
                                              bool expect_resumed, ChildProcess& peer,
                                              const std::string& line, bool peer_echoes = false) {
    Udp udp;
    udp.connect_to(port);
    Driver us(config, udp);
    if (saved) {
      EXPECT_TRUE(us.endpoint().offer_session(*saved));
    }
    const bool connected = us.pump([&us] { return us.connected(); }, milliseconds(10000));
    EXPECT_TRUE(connected) << us.endpoint().failure().reason << "\npeer stdout: " << peer.output()
                           << "\npeer stderr: " << peer_err();
    if (!connected) {
      return std::nullopt;
    }
    EXPECT_EQ(us.endpoint().negotiated().resumed, expect_resumed);
    us.send(line + "\n");
    if (peer_echoes) {
      EXPECT_TRUE(us.receives(line)) << peer.output();
    } else {
      EXPECT_TRUE(peer.wait_for_output(line, milliseconds(5000))) << peer.output();
    }
    Result<dtls::Session> session = us.endpoint().session();
    EXPECT_TRUE(session) << to_string(session.error());
    us.close();
    std::this_thread::sleep_for(milliseconds(50));  // let the peer take the close_notify
    return session ? std::optional(std::move(*session)) : std::nullopt;
  }

  // client_rounds runs a full association with the peer server listening on `port`, and one
  // resuming it.
  void client_rounds(Carrier carrier, const crypto::Fingerprint& fingerprint, std::uint16_t port,
                     ChildProcess& peer, bool peer_echoes) {
    auto config = client_config(fingerprint, carrier);
    const std::optional<dtls::Session> first =
        connect_client(config, port, std::nullopt, false, peer, "first association", peer_echoes);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->ticket.empty(), carrier == Carrier::kSessionId);
    connect_client(config, port, first, true, peer, "resumed association", peer_echoes);
  }
};

// --- OpenSSL

class OpensslResumption : public ResumptionTest {};

TEST_P(OpensslResumption, SecondAssociationResumes) {
  const ResumptionCase& c = GetParam();
  const std::string openssl = find_program("openssl");
  ASSERT_FALSE(openssl.empty()) << "openssl not on PATH (scripts/install-deps.sh installs it)";
  crypto::Fingerprint fingerprint;
  crypto::CertifiedKey id = identity(fingerprint);
  const std::vector<std::string> no_ticket = c.carrier == Carrier::kSessionId
                                                 ? std::vector<std::string>{"-no_ticket"}
                                                 : std::vector<std::string>{};
  if (c.our_role == dtls::Role::kClient) {
    std::optional<ChildProcess> peer;
    std::vector<std::string> argv = {
        openssl, "s_server",          "-dtls1_2", "-cert", dir_ + "/server.crt",
        "-key",  dir_ + "/server.key"};
    argv.insert(argv.end(), no_ticket.begin(), no_ticket.end());
    const std::uint16_t port = start_s_server(argv, 2, peer, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "s_server did not start: " << peer_err();
    client_rounds(c.carrier, fingerprint, port, *peer, false);
    EXPECT_TRUE(peer->wait_for_output("Reused session-id", milliseconds(2000))) << peer->output();
    peer->stop();
    return;
  }

  auto config = server_config(std::move(id), c.carrier);
  const std::string session_file = dir_ + "/session.pem";
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    Udp udp;
    Driver us(config, udp);
    std::vector<std::string> argv = {
        openssl,     "s_client",  "-dtls1_2", "-connect", "127.0.0.1:" + std::to_string(udp.port()),
        "-sess_out", session_file};
    if (round == 1) {
      argv.insert(argv.end(), {"-sess_in", session_file});
    }
    argv.insert(argv.end(), no_ticket.begin(), no_ticket.end());
    ChildProcess peer(argv, dir_ + "/peer.err");
    ASSERT_TRUE(us.pump([&us] { return us.connected(); }, milliseconds(10000)))
        << us.endpoint().failure().reason << "\npeer: " << peer.output() << peer_err();
    EXPECT_EQ(us.endpoint().negotiated().resumed, round == 1);
    EXPECT_TRUE(peer.wait_for_output(round == 1 ? "Reused, " : "New, ", milliseconds(5000)))
        << peer.output();
    ASSERT_TRUE(peer.write_stdin("openssl round " + std::to_string(round) + "\n"));
    EXPECT_TRUE(us.receives("openssl round " + std::to_string(round)));
    // s_client writes -sess_out once its handshake is done; wait for it before stopping.
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
    while (
        (!std::filesystem::exists(session_file) || std::filesystem::file_size(session_file) == 0) &&
        std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    peer.stop();
  }
}

INSTANTIATE_TEST_SUITE_P(Dtls12, OpensslResumption, testing::ValuesIn(kCases), case_name);

// --- GnuTLS

class GnutlsResumption : public ResumptionTest {};

TEST_P(GnutlsResumption, SecondAssociationResumes) {
  const ResumptionCase& c = GetParam();
  const std::string serv = find_program("gnutls-serv");
  const std::string cli = find_program("gnutls-cli");
  ASSERT_FALSE(serv.empty() || cli.empty())
      << "gnutls-serv/gnutls-cli not on PATH (scripts/install-deps.sh installs gnutls-bin)";
  crypto::Fingerprint fingerprint;
  crypto::CertifiedKey id = identity(fingerprint);
  const std::string priority = "NORMAL:-VERS-ALL:+VERS-DTLS1.2";
  if (c.our_role == dtls::Role::kClient) {
    std::optional<ChildProcess> peer;
    const std::uint16_t port = start_udp_peer(
        [&](std::uint16_t p) {
          std::vector<std::string> argv = {serv,
                                           "--udp",
                                           "--echo",
                                           "--priority",
                                           priority,
                                           "--x509certfile",
                                           dir_ + "/server.crt",
                                           "--x509keyfile",
                                           dir_ + "/server.key",
                                           "--port",
                                           std::to_string(p)};
          if (c.carrier == Carrier::kSessionId) {
            argv.emplace_back("--noticket");
          }
          return argv;
        },
        peer, dir_ + "/peer.err");
    ASSERT_NE(port, 0) << "gnutls-serv did not start: " << peer_err();
    client_rounds(c.carrier, fingerprint, port, *peer, true);
    peer->stop();
    return;
  }

  // gnutls-cli --resume makes a full handshake, closes, and connects again from a new port,
  // resuming; standard input then goes over the resumed association.
  auto config = server_config(std::move(id), c.carrier);
  Udp udp;
  std::vector<std::string> argv = {cli,          "--udp",  "--insecure", "--resume",
                                   "--priority", priority, "--port",     std::to_string(udp.port()),
                                   "127.0.0.1"};
  if (c.carrier == Carrier::kSessionId) {
    argv.emplace_back("--noticket");
  }
  ChildProcess peer(argv, dir_ + "/peer.err");
  {
    Driver first(config, udp);
    ASSERT_TRUE(first.pump([&first] { return first.connected(); }, milliseconds(10000)))
        << first.endpoint().failure().reason << "\npeer: " << peer.output() << peer_err();
    EXPECT_FALSE(first.endpoint().negotiated().resumed);
    first.pump([&first] { return first.closed(); }, milliseconds(3000));
  }
  udp.forget_peer();
  Driver second(config, udp);
  ASSERT_TRUE(second.pump([&second] { return second.connected(); }, milliseconds(10000)))
      << second.endpoint().failure().reason << "\npeer: " << peer.output() << peer_err();
  EXPECT_TRUE(second.endpoint().negotiated().resumed);
  EXPECT_TRUE(peer.wait_for_output("This is a resumed session", milliseconds(5000)))
      << peer.output();
  ASSERT_TRUE(peer.write_stdin("gnutls resumed\n"));
  EXPECT_TRUE(second.receives("gnutls resumed")) << peer.output() << peer_err();
  peer.stop();
}

INSTANTIATE_TEST_SUITE_P(Dtls12, GnutlsResumption, testing::ValuesIn(kCases), case_name);

}  // namespace
}  // namespace wireseal::interop
