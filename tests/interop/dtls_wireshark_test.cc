// dtls::Endpoint's records read by an independent dissector: a client and a server talk over
// memory with RFC 9146 connection IDs (different lengths each way), the datagrams go into a
// pcap and the client's NSS key log into a file, and Wireshark's tshark (Debian's package)
// must decrypt every application record to the text that was sent. This checks the CID record
// format and its AAD, the key log line and the key schedule against code that shares nothing
// with ours. A missing tshark fails the test. AES-128-GCM only: Debian 12's Wireshark 4.0
// fails the tag of every DTLS ChaCha20-Poly1305 record, CID or not, including those our
// OpenSSL and GnuTLS interop tests exchange with ChaCha20 correctly.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "child_process.h"
#include "support/hex.h"
#ifdef WIRESEAL_HAVE_DTLS_INSPECT
#include "dtls_decrypt.h"
#endif
#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/io/pcap.h"

namespace wireseal::interop {
namespace {

using dtls::Endpoint;
using dtls::EndpointConfig;
using dtls::Output;

void append_line(void* lines, std::string_view line) noexcept {
  *static_cast<std::string*>(lines) += std::string(line) + "\n";
}

// Conversation runs the two endpoints over memory and records every datagram.
class Conversation {
 public:
  Conversation(std::shared_ptr<const EndpointConfig> client,
               std::shared_ptr<const EndpointConfig> server)
      : client_(std::move(client)), server_(std::move(server)) {}

  bool handshake() {
    if (!client_.start({}) || !server_.start({})) {
      return false;
    }
    for (int round = 0; round < 16 && !(client_.connected() && server_.connected()); ++round) {
      pump(client_, server_, true);
      pump(server_, client_, false);
    }
    return client_.connected() && server_.connected();
  }

  // send seals `text` on one side and hands the record to the other.
  bool send(bool from_client, const std::string& text) {
    Endpoint& from = from_client ? client_ : server_;
    Endpoint& to = from_client ? server_ : client_;
    std::vector<std::uint8_t> record(from.sealed_size(text.size()));
    const Result<std::size_t> n = from.send(
        std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), record);
    if (!n) {
      return false;
    }
    record.resize(*n);
    capture(from_client, record);
    if (!to.handle_datagram({}, record)) {
      return false;
    }
    for (;;) {  // a kConnected event may still be waiting before the data
      const Result<Output> out = to.poll_output(buffer_);
      if (!out || out->kind == Output::Kind::kTimeout || out->kind == Output::Kind::kIdle) {
        return false;
      }
      if (out->kind == Output::Kind::kApplicationData) {
        return std::string(out->data.begin(), out->data.end()) == text;
      }
    }
  }

  const io::PcapWriter& pcap() const { return pcap_; }
  const Endpoint& client() const { return client_; }

 private:
  void pump(Endpoint& from, Endpoint& to, bool from_client) {
    for (int guard = 0; guard < 64; ++guard) {
      const Result<Output> out = from.poll_output(buffer_);
      if (!out || out->kind == Output::Kind::kTimeout || out->kind == Output::Kind::kIdle) {
        return;
      }
      if (out->kind == Output::Kind::kDatagram) {
        const std::span<std::uint8_t> datagram = std::span(buffer_).first(out->size);
        capture(from_client, datagram);
        (void)to.handle_datagram({}, datagram);
      }
    }
  }

  void capture(bool from_client, std::span<const std::uint8_t> datagram) {
    const io::UdpEndpoint client{io::IpAddress::v4(127, 0, 0, 1), 50000};
    const io::UdpEndpoint server{io::IpAddress::v4(127, 0, 0, 1), 4433};
    time_ns_ += 1000000;
    EXPECT_TRUE(pcap_.add_udp(time_ns_, from_client ? client : server,
                              from_client ? server : client, datagram));
  }

  Endpoint client_;
  Endpoint server_;
  io::PcapWriter pcap_;
  std::uint64_t time_ns_ = 1700000000ULL * 1000000000ULL;
  std::array<std::uint8_t, 1500> buffer_{};
};

// tshark_app_data runs tshark over the capture with the key log and returns the decrypted
// application data it prints, one record per line (hex).
std::string tshark_app_data(const std::string& tshark, const std::string& dir) {
  ChildProcess child(
      {tshark, "-n", "-r", dir + "/capture.pcap", "-o", "tls.keylog_file:" + dir + "/keys.log",
       "-d", "udp.port==4433,dtls", "-Y", "dtls.app_data", "-T", "fields", "-e", "data.data"},
      dir + "/tshark.err");
  child.drain(std::chrono::seconds(60));
  (void)child.wait_exit(std::chrono::seconds(5));
  return child.output();
}

std::string hex_of(const std::string& text) {
  return test::to_hex(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// configs makes a client (keeping its key log in `keylog`) and a server for `suite`, with
// connection IDs of different lengths each way when `with_cid`.
std::pair<std::shared_ptr<EndpointConfig>, std::shared_ptr<EndpointConfig>> configs(
    std::uint16_t suite, bool with_cid, std::string& keylog) {
  Result<crypto::CertifiedKey> id = crypto::generate_self_signed(crypto::KeyType::kEcP256);
  EXPECT_TRUE(id);
  auto client = std::make_shared<EndpointConfig>();
  client->role = dtls::Role::kClient;
  client->cipher_suites = {suite};
  client->allow_unauthenticated_peer = true;
  client->keylog = {append_line, &keylog};
  auto server = std::make_shared<EndpointConfig>();
  server->role = dtls::Role::kServer;
  server->cipher_suites = {suite};
  server->certificate.emplace(std::move(*id));
  server->allow_unauthenticated_peer = true;
  if (with_cid) {
    client->connection_id = std::vector<std::uint8_t>{0xc1, 0xc2, 0xc3};
    server->connection_id = std::vector<std::uint8_t>{0x51, 0x52, 0x53, 0x54, 0x55, 0x56};
  }
  return {client, server};
}

const std::vector<std::string> kLines = {"up over a connection ID", "and down again",
                                         "third record"};

// talk_and_capture runs the handshake and kLines (up, down, up), saving the capture and the
// client's key log in `dir`.
void talk_and_capture(const std::shared_ptr<EndpointConfig>& client,
                      const std::shared_ptr<EndpointConfig>& server, const std::string& keylog,
                      const std::string& dir, bool expect_cid) {
  Conversation talk(client, server);
  ASSERT_TRUE(talk.handshake());
  ASSERT_EQ(talk.client().negotiated().connection_id, expect_cid);
  ASSERT_TRUE(talk.send(true, kLines[0]));
  ASSERT_TRUE(talk.send(false, kLines[1]));
  ASSERT_TRUE(talk.send(true, kLines[2]));
  ASSERT_TRUE(talk.pcap().save(dir + "/capture.pcap"));
  std::ofstream(dir + "/keys.log") << keylog;
}

TEST(Wireshark, DecryptsConnectionIdRecordsWithOurKeyLog) {
  const std::string tshark = find_program("tshark");
  ASSERT_FALSE(tshark.empty()) << "tshark not on PATH (scripts/install-deps.sh installs it)";
  char tmpl[] = "/tmp/wireseal-wireshark-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;

  {
    const std::uint16_t suite = 0xC02B;
    std::string keylog;
    const auto [client, server] = configs(suite, true, keylog);
    talk_and_capture(client, server, keylog, dir, true);
    if (HasFatalFailure()) {
      return;
    }
    const std::string decrypted = tshark_app_data(tshark, dir);
    std::string expected;
    for (const std::string& line : kLines) {
      expected += hex_of(line) + "\n";
    }
    std::ifstream err_file(dir + "/tshark.err");
    const std::string err((std::istreambuf_iterator<char>(err_file)), {});
    EXPECT_EQ(decrypted, expected) << "tshark stderr: " << err;
  }
  if (HasFailure()) {
    std::printf("capture and key log kept in %s\n", dir.c_str());
  } else {
    std::filesystem::remove_all(dir);
  }
}

#ifdef WIRESEAL_HAVE_DTLS_INSPECT
// The landed `wireseal dtls decrypt --keylog` engine reads our own traffic too, with and
// without connection IDs.
TEST(WiresealDecrypt, ReadsOurOwnTrafficWithOurKeyLog) {
  for (const bool with_cid : {false, true}) {
    SCOPED_TRACE(with_cid ? "with connection IDs" : "without connection IDs");
    char tmpl[] = "/tmp/wireseal-decrypt-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    std::string keylog;
    const auto [client, server] = configs(0xC02B, with_cid, keylog);
    talk_and_capture(client, server, keylog, dir, with_cid);
    std::ifstream in(dir + "/capture.pcap", std::ios::binary);
    const std::vector<std::uint8_t> pcap((std::istreambuf_iterator<char>(in)), {});
    const Result<cli::DecryptReport> report =
        cli::decrypt_capture(pcap, io::KeyLog::parse(keylog), {});
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(report);
    EXPECT_EQ(report->failed, 0U);
    ASSERT_EQ(report->flows.size(), 1U);
    EXPECT_TRUE(report->flows[0].have_keys);
    std::vector<std::string> texts;
    for (const cli::RecordResult& r : report->records) {
      if (r.type == dtls::ContentType::kApplicationData) {
        EXPECT_EQ(r.status, cli::RecordStatus::kDecrypted);
        texts.emplace_back(r.plaintext.begin(), r.plaintext.end());
      }
      if (r.epoch == 1) {
        // The captured record's outer type tells whether it carried a CID.
        EXPECT_EQ(r.record[0] == static_cast<std::uint8_t>(dtls::ContentType::kTls12Cid), with_cid);
      }
    }
    EXPECT_EQ(texts, kLines);
  }
}
#endif

}  // namespace
}  // namespace wireseal::interop
