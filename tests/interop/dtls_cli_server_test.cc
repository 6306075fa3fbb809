// `wireseal dtls server --cid` against our own client over real UDP: the association survives
// the client's move to a new source port (NAT rebinding, RFC 9146 §6), found by the connection
// ID the server gave it, while a forged record with that CID from a third port moves nothing.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "endpoint_driver.h"
#include "udp_peer.h"

namespace wireseal::interop {
namespace {

TEST(CliServer, FollowsAClientToANewPortByConnectionId) {
  char tmpl[] = "/tmp/wireseal-cli-server-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::optional<ChildProcess> server;
  const std::uint16_t port = start_udp_peer(
      [](std::uint16_t p) {
        return std::vector<std::string>{WIRESEAL_CLI_PATH,
                                        "dtls",
                                        "server",
                                        "--listen",
                                        "127.0.0.1:" + std::to_string(p),
                                        "--echo",
                                        "--cid",
                                        "0102030405060708"};
      },
      server, dir + "/server.err");
  ASSERT_NE(port, 0) << slurp_file(dir + "/server.err");

  auto config = std::make_shared<EndpointConfig>();
  config->role = dtls::Role::kClient;
  config->allow_unauthenticated_peer = true;
  config->connection_id = std::vector<std::uint8_t>{};  // CIDs on our records, none on theirs
  Udp first;
  first.connect_to(port);
  Driver client(config, first);
  ASSERT_TRUE(client.pump([&client] { return client.connected(); }, milliseconds(10000)))
      << client.endpoint().failure().reason << slurp_file(dir + "/server.err");
  ASSERT_TRUE(client.endpoint().negotiated().connection_id);
  client.send("before the move");
  EXPECT_TRUE(client.receives("before the move"));

  // The server's CID, as our records carry it (after type, version, epoch and sequence).
  std::array<std::uint8_t, 256> record{};
  const std::string probe = "probe";
  const Result<std::size_t> n = client.endpoint().send(bytes(probe), record);
  ASSERT_TRUE(n);
  ASSERT_EQ(record[0], 25);  // tls12_cid
  // A forged record with that CID from a third port: it fails to authenticate, nothing moves.
  Udp forger;
  forger.connect_to(port);
  std::array<std::uint8_t, 256> forged = record;
  forged[*n - 1] ^= 0x01;
  forger.send(std::span(forged).first(*n));

  Udp second;
  second.connect_to(port);
  client.use_socket(second);
  client.send("after the move");
  EXPECT_TRUE(client.receives("after the move")) << slurp_file(dir + "/server.err");
  std::array<std::uint8_t, 2048> stray{};
  EXPECT_FALSE(forger.receive(stray, milliseconds(200)));  // no echo went to the forger
  server->stop();
  const std::string log = slurp_file(dir + "/server.err");
  EXPECT_NE(log.find("moved to 127.0.0.1:" + std::to_string(second.port())), std::string::npos)
      << log;
  EXPECT_EQ(log.find(std::to_string(forger.port())), std::string::npos) << log;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wireseal::interop
