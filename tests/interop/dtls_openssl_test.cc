// DTLS 1.2 record layer against real OpenSSL: `openssl s_client` and `openssl s_server` talk
// through a recording UDP relay; wireseal's handshake codec parses (and writes again) every
// plaintext handshake message; wireseal then derives the keys from OpenSSL's key log, opens
// every epoch-1 record OpenSSL produced (both directions) and seals each plaintext again,
// expecting OpenSSL's exact bytes. The capture is also written as a pcap and decrypted by the
// engine of `wireseal dtls decrypt` (and the CLI binary itself when the tools are built).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"
#include "handshake_codec_check.h"
#include "hello_scan.h"
#include "openssl_session.h"
#include "record_check.h"
#include "resealer.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/io/keylog.h"
#include "wireseal/io/pcap.h"

#ifdef WIRESEAL_HAVE_DTLS_INSPECT
#include "dtls_decrypt.h"
#endif

namespace wireseal::interop {
namespace {

using std::chrono::milliseconds;

const SuiteCase kSuites[] = {
    {"ECDHE-ECDSA-AES128-GCM-SHA256", 0xC02B, false, false},
    {"ECDHE-ECDSA-AES256-GCM-SHA384", 0xC02C, false, false},
    {"ECDHE-ECDSA-AES128-CCM", 0xC0AC, false, false},
    {"ECDHE-ECDSA-AES128-CCM8", 0xC0AE, false, false},
    {"ECDHE-ECDSA-CHACHA20-POLY1305", 0xCCA9, false, false},
    {"ECDHE-ECDSA-AES128-SHA256", 0xC023, false, false},
    {"ECDHE-ECDSA-AES128-SHA256", 0xC023, false, true},
    {"ECDHE-ECDSA-AES256-SHA", 0xC00A, false, false},
    {"ECDHE-ECDSA-AES256-SHA", 0xC00A, false, true},
    {"PSK-AES128-CCM8", 0xC0A8, true, false},
    {"PSK-AES128-GCM-SHA256", 0x00A8, true, false},
};

std::string test_name(const ::testing::TestParamInfo<SuiteCase>& p) {
  std::string n = suite_label(p.param);
  std::replace(n.begin(), n.end(), '-', '_');
  std::replace(n.begin(), n.end(), ' ', '_');
  return n;
}

// MatrixRow is one line of the interop matrix printed after the suite; both tests of a
// suite fill in their columns.
struct MatrixRow {
  std::string suite;
  const char* direction;
  DirectionTally tally;
  std::string cli = "-";
  std::string accepted = "-";  // OpenSSL accepted wireseal-sealed records: "n/n" or "FAILED"
  std::string codec = "-";     // the handshake codec on OpenSSL's plaintext messages
};

std::string identical_cell(const DirectionTally& t) {
  if (t.records == 0) {
    return "-";
  }
  const std::string n = std::to_string(t.records);
  if (t.foreign_nonce != 0) {
    // OpenSSL's explicit GCM nonce is its own counter: re-encrypted with that nonce.
    return std::to_string(t.identical) + "/" + n + " (nonce)";
  }
  return std::to_string(t.identical) + "/" + n + (t.cbc ? " (IV)" : "");
}

class DtlsOpensslInterop : public ::testing::TestWithParam<SuiteCase> {
 protected:
  static void SetUpTestSuite() {
    // A child that dies while we write its stdin must fail the test, not kill the process.
    ::signal(SIGPIPE, SIG_IGN);
    openssl_ = find_program("openssl");
    char dir[] = "/tmp/wireseal-interop-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
      setup_error_ = "mkdtemp failed";
      return;
    }
    workdir_ = dir;
    if (openssl_.empty()) {
      return;
    }
    ChildProcess version({openssl_, "version"}, workdir_ + "/version.err");
    version.drain(milliseconds(5000));
    openssl_version_ = version.output().substr(0, version.output().find('\n'));
    setup_error_ = OpensslDtls(openssl_, workdir_).make_certificate();
  }

  static void TearDownTestSuite() {
    print_matrix();
    // WIRESEAL_INTEROP_KEEP=1 keeps the captures, key logs and peer output for inspection.
    if (std::getenv("WIRESEAL_INTEROP_KEEP") != nullptr) {
      std::printf("interop files kept in %s\n", workdir_.c_str());
      return;
    }
    std::error_code ignored;
    std::filesystem::remove_all(workdir_, ignored);
  }

  static void print_matrix() {
    if (matrix_.empty()) {
      return;
    }
    std::printf("\nDTLS 1.2 interop matrix: wireseal RecordOpener/RecordSealer vs %s\n",
                openssl_version_.c_str());
    std::printf("%-34s %-15s %-8s %-10s %-15s %-12s %-16s %-24s %s\n", "suite", "direction",
                "records", "decrypted", "re-sealed ==", "CBC fresh-IV", "OpenSSL accepts",
                "wireseal dtls decrypt", "handshake codec");
    std::printf("%-34s %-15s %-8s %-10s %-15s %-12s %-16s %-24s %s\n", "", "", "(ep. 1)",
                "(opener)", "(sealer)", "round trip", "wireseal records", "(engine, binary)",
                "(parsed, rewritten ==)");
    for (const MatrixRow& r : matrix_) {
      const DirectionTally& t = r.tally;
      const std::string n = std::to_string(t.records);
      const bool passive_ran = t.records != 0;
      std::printf("%-34s %-15s %-8s %-10s %-15s %-12s %-16s %-24s %s\n", r.suite.c_str(),
                  r.direction, passive_ran ? n.c_str() : "-",
                  passive_ran ? (std::to_string(t.opened) + "/" + n).c_str() : "-",
                  identical_cell(t).c_str(),
                  t.cbc ? (std::to_string(t.fresh_roundtrip) + "/" + n).c_str() : "n/a",
                  r.accepted.c_str(), r.cli.c_str(), r.codec.c_str());
    }
    std::fflush(stdout);
  }

  static std::string openssl_;
  static std::string openssl_version_;
  static std::string workdir_;
  static std::string setup_error_;
  static std::vector<MatrixRow> matrix_;

  // row finds or adds the matrix row of `suite` and one direction.
  static MatrixRow& row(const SuiteCase& suite, bool from_client) {
    const char* direction = from_client ? "client->server" : "server->client";
    const std::string label = suite_label(suite);
    for (MatrixRow& r : matrix_) {
      if (r.suite == label && r.direction == direction) {
        return r;
      }
    }
    matrix_.push_back(MatrixRow{label, direction, {}});
    return matrix_.back();
  }
};

std::string DtlsOpensslInterop::openssl_;
std::string DtlsOpensslInterop::openssl_version_;
std::string DtlsOpensslInterop::workdir_;
std::string DtlsOpensslInterop::setup_error_;
std::vector<MatrixRow> DtlsOpensslInterop::matrix_;

// write_pcap records the relayed datagrams with the real client and server ports.
io::PcapWriter write_pcap(const SessionCapture& cap) {
  io::PcapWriter writer(io::LinkType::kEthernet);
  const io::UdpEndpoint client{io::IpAddress::v4(127, 0, 0, 1), cap.client_port};
  const io::UdpEndpoint server{io::IpAddress::v4(127, 0, 0, 1), cap.server_port};
  for (const RelayedDatagram& d : cap.datagrams) {
    EXPECT_TRUE(writer.add_udp(d.timestamp_ns, d.from_client ? client : server,
                               d.from_client ? server : client, d.bytes));
  }
  return writer;
}

// check_cli runs the `wireseal dtls decrypt` engine, and the binary when built, on the pcap;
// returns the matrix cell text.
std::string check_cli(const SessionCapture& cap, const io::PcapWriter& pcap,
                      const std::string& pcap_path, const io::KeyLog& keylog,
                      const std::vector<OpenedRecordInfo>& expected) {
  std::string cell = "not built";
#ifdef WIRESEAL_HAVE_DTLS_INSPECT
  const Result<cli::DecryptReport> report = cli::decrypt_capture(pcap.bytes(), keylog, {});
  EXPECT_TRUE(report);
  if (!report) {
    return "pcap unreadable";
  }
  EXPECT_EQ(report->failed, 0u);
  EXPECT_EQ(report->flows.size(), 1u);
  std::vector<OpenedRecordInfo> got;
  for (const cli::RecordResult& r : report->records) {
    if (r.epoch == 0) {
      continue;
    }
    EXPECT_EQ(r.status, cli::RecordStatus::kDecrypted) << "frame " << r.frame << ": " << r.error;
    got.push_back({r.sender == cli::Peer::kClient, r.sequence, r.type, r.plaintext});
  }
  EXPECT_EQ(got, expected) << "the CLI engine disagrees with the direct RecordOpener results";
  cell = report->failed == 0 && got == expected ? "engine ok" : "engine FAILED";

  // A flipped bit in the last protected datagram must be reported against that frame.
  Result<std::vector<io::UdpDatagram>> datagrams = io::read_udp_datagrams(pcap.bytes());
  EXPECT_TRUE(datagrams && !datagrams->empty());
  if (datagrams && !datagrams->empty()) {
    const io::UdpDatagram& last = datagrams->back();
    std::vector<std::uint8_t> tampered(last.payload.begin(), last.payload.end());
    tampered.back() ^= 1;
    datagrams->back().payload = tampered;
    const cli::DecryptReport bad = cli::decrypt_datagrams(*datagrams, keylog, {});
    EXPECT_EQ(bad.failed, 1u);
    const cli::RecordResult& r = bad.records.back();
    EXPECT_EQ(r.frame, last.frame);
    EXPECT_EQ(r.status, cli::RecordStatus::kFailed);
    EXPECT_EQ(r.error, to_string(Error::kAuthFailed));
  }
#ifdef WIRESEAL_CLI_PATH
  ChildProcess cli({WIRESEAL_CLI_PATH, "dtls", "decrypt", "--keylog", cap.server_keylog, "--format",
                    "text", "--port", std::to_string(cap.server_port), pcap_path},
                   pcap_path + ".cli.err");
  const bool eof = cli.drain(milliseconds(10000));
  const std::optional<int> status = cli.wait_exit(milliseconds(eof ? 5000 : 0));
  // Every line the peers exchanged is printed (the text format escapes newlines).
  bool shows_data = true;
  for (const std::string* data : {&cap.client_line, &cap.server_line}) {
    std::size_t start = 0;
    for (std::size_t end; (end = data->find('\n', start)) != std::string::npos; start = end + 1) {
      const std::string text = data->substr(start, end - start) + "\\n";
      shows_data = shows_data && cli.output().find(text) != std::string::npos;
    }
  }
  EXPECT_EQ(status, 0) << cli.output();
  EXPECT_TRUE(shows_data) << cli.output();
  cell += status == 0 && shows_data ? ", binary ok" : ", binary FAILED";
#else
  (void)cap;
  (void)pcap_path;
#endif
#else
  (void)cap;
  (void)pcap;
  (void)pcap_path;
  (void)keylog;
  (void)expected;
#endif
  return cell;
}

TEST_P(DtlsOpensslInterop, OpensEveryRecordAndSealsOpensslsBytes) {
  ASSERT_FALSE(openssl_.empty())
      << "the `openssl` command-line tool is not on PATH (Debian package `openssl`)";
  ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  const SuiteCase& suite = GetParam();
  std::string tag = test_name({suite, 0});
  const SessionCapture cap = OpensslDtls(openssl_, workdir_).run(suite, tag);
  ASSERT_TRUE(cap.client_data_arrived) << "client data never reached s_server\n" << cap.diagnostics;
  ASSERT_TRUE(cap.server_data_arrived) << "server data never reached s_client\n" << cap.diagnostics;
  ASSERT_NE(cap.client_port, 0);

  // The negotiated parameters, read by the test itself from the plaintext hellos.
  std::string error;
  const std::optional<HelloFacts> hello = scan_hellos(cap.datagrams, &error);
  ASSERT_TRUE(hello) << error;
  ASSERT_EQ(hello->cipher_suite, suite.iana);
  const std::optional<dtls::SuiteInfo> si = dtls::suite_info(suite.iana);
  ASSERT_TRUE(si);
  const bool cbc = dtls::info(si->cipher).kind == dtls::CipherKind::kCbc;
  EXPECT_EQ(hello->encrypt_then_mac, cbc && !suite.no_etm) << "unexpected EtM negotiation";

  // The plaintext handshake through wireseal's message codec, both directions.
  const CodecTally codec = check_handshake_codec(
      cap.datagrams, suite.iana, suite.psk ? dtls::KeyExchange::kPsk : dtls::KeyExchange::kEcdhe);
  for (const std::string& failure : codec.failures) {
    ADD_FAILURE() << "handshake codec: " << failure;
  }
  EXPECT_EQ(codec.parsed, codec.messages);
  EXPECT_EQ(codec.identical, codec.rewritable);
  // ClientHello, ServerHello, ServerHelloDone, ClientKeyExchange at least; with certificates
  // also Certificate and ServerKeyExchange.
  EXPECT_GE(codec.messages, suite.psk ? 4u : 6u);
  const std::string codec_cell =
      std::to_string(codec.parsed) + "/" + std::to_string(codec.messages) + ", " +
      std::to_string(codec.identical) + "/" + std::to_string(codec.rewritable);

  // Keys: both sides logged the same master secret for this client random.
  Result<io::KeyLog> keylog = io::KeyLog::load(cap.server_keylog);
  Result<io::KeyLog> client_keylog = io::KeyLog::load(cap.client_keylog);
  ASSERT_TRUE(keylog && client_keylog);
  const io::KeyLog::MasterSecret* secret = keylog->find(hello->client_random);
  const io::KeyLog::MasterSecret* client_secret = client_keylog->find(hello->client_random);
  ASSERT_NE(secret, nullptr) << "no CLIENT_RANDOM line for this connection";
  ASSERT_NE(client_secret, nullptr);
  EXPECT_EQ(*secret, *client_secret);
  const Result<dtls::KeyBlock> block = dtls::KeyBlock::derive(
      si->cipher, si->prf_hash, *secret, hello->client_random, hello->server_random);
  ASSERT_TRUE(block);

  // Every epoch-1 record, both directions.
  RecordChecker checker(si->cipher, *block, cbc && hello->encrypt_then_mac);
  for (const RelayedDatagram& d : cap.datagrams) {
    dtls::DatagramReader reader(d.bytes);
    while (!reader.done()) {
      const Result<dtls::RecordView> r = reader.next();
      ASSERT_TRUE(r) << "OpenSSL sent an unparseable record";
      if (r->epoch == 1) {
        checker.check(d.from_client, r->record);
      }
    }
  }
  for (const std::string& failure : checker.failures()) {
    ADD_FAILURE() << failure;
  }

  // Both Finished messages, recomputed by wireseal's Transcript from the plaintext handshake
  // and the logged master secret, equal the ones OpenSSL encrypted.
  const auto first_handshake = [&](bool from_client) -> std::span<const std::uint8_t> {
    for (const OpenedRecordInfo& r : checker.opened()) {
      if (r.from_client == from_client && r.type == dtls::ContentType::kHandshake) {
        return r.plaintext;
      }
    }
    return {};
  };
  for (const std::string& failure : check_finished(codec, si->prf_hash, *secret,
                                                   first_handshake(true), first_handshake(false))) {
    ADD_FAILURE() << "Finished: " << failure;
  }
  if (suite.psk) {
    // The PSK premaster and the master secret (EMS when negotiated) from the PSK alone.
    for (const std::string& failure : check_psk_master_secret(
             codec, si->prf_hash, hello->extended_master_secret, psk_bytes(), *secret)) {
      ADD_FAILURE() << "PSK: " << failure;
    }
  }
  const DirectionTally& up = checker.tally(true);
  const DirectionTally& down = checker.tally(false);
  EXPECT_GE(up.records, 4u) << "expected Finished and the client's three writes";
  EXPECT_GE(down.records, 4u) << "expected Finished and the server's three writes";
  EXPECT_EQ(checker.application_data(true), cap.client_line);
  EXPECT_EQ(checker.application_data(false), cap.server_line);
  EXPECT_EQ(up.finished, 1u);
  EXPECT_EQ(down.finished, 1u);
  for (const DirectionTally* t : {&up, &down}) {
    EXPECT_EQ(t->opened, t->records);
    // Every record is reproduced exactly (with OpenSSL's GCM explicit nonce where it is not the
    // sequence number), and RecordSealer's own sequence-nonce records re-open.
    EXPECT_EQ(t->identical, t->records);
    EXPECT_EQ(t->fresh_roundtrip, t->foreign_nonce + (t->cbc ? t->records : 0));
  }

  // The same capture as a pcap file, read back and decrypted by the CLI's engine.
  const io::PcapWriter pcap = write_pcap(cap);
  const std::string pcap_path = workdir_ + "/" + tag + ".pcap";
  ASSERT_TRUE(pcap.save(pcap_path));
  const Result<std::vector<io::UdpDatagram>> read_back = io::read_udp_datagrams(pcap.bytes());
  ASSERT_TRUE(read_back);
  ASSERT_EQ(read_back->size(), cap.datagrams.size());
  for (std::size_t i = 0; i < read_back->size(); ++i) {
    const io::UdpDatagram& d = (*read_back)[i];
    EXPECT_TRUE(std::equal(d.payload.begin(), d.payload.end(), cap.datagrams[i].bytes.begin(),
                           cap.datagrams[i].bytes.end()));
    EXPECT_EQ(d.source.port, cap.datagrams[i].from_client ? cap.client_port : cap.server_port);
  }
  const std::string cli = check_cli(cap, pcap, pcap_path, *keylog, checker.opened());

  row(suite, true).tally = up;
  row(suite, true).cli = cli;
  row(suite, true).codec = codec_cell;
  row(suite, false).tally = down;
  row(suite, false).cli = cli;
}

// The other direction of interop: every epoch-1 record is replaced in flight by wireseal's
// sealing of the same plaintext, and the OpenSSL peers must still finish the handshake and
// deliver the data. For GCM (OpenSSL's own nonce counter) and CBC (fresh IVs) the bytes
// OpenSSL receives differ from what it sent.
TEST_P(DtlsOpensslInterop, OpensslAcceptsWiresealSealedRecords) {
  ASSERT_FALSE(openssl_.empty())
      << "the `openssl` command-line tool is not on PATH (Debian package `openssl`)";
  ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  const SuiteCase& suite = GetParam();
  const std::string tag = test_name({suite, 0}) + "_resealed";
  OpensslDtls peers(openssl_, workdir_);
  Resealer resealer(peers.keylog_path(tag, true), peers.keylog_path(tag, false));
  const SessionCapture cap = peers.run(
      suite, tag, [&resealer](bool from_client, const std::vector<std::uint8_t>& datagram) {
        return resealer(from_client, datagram);
      });
  for (const std::string& failure : resealer.failures()) {
    ADD_FAILURE() << failure;
  }
  EXPECT_TRUE(cap.client_data_arrived) << "s_server rejected wireseal's records\n"
                                       << cap.diagnostics;
  EXPECT_TRUE(cap.server_data_arrived) << "s_client rejected wireseal's records\n"
                                       << cap.diagnostics;
  // Finished and the application data, at least, went through as wireseal's bytes.
  EXPECT_GE(resealer.replaced(true), 4u);
  EXPECT_GE(resealer.replaced(false), 4u);
  const bool ok = resealer.failures().empty() && cap.client_data_arrived && cap.server_data_arrived;
  for (const bool from_client : {true, false}) {
    const std::string cell = std::to_string(resealer.replaced(from_client)) + " (" +
                             std::to_string(resealer.differing(from_client)) + " differ)";
    row(suite, from_client).accepted = ok ? cell : "FAILED";
  }
}

INSTANTIATE_TEST_SUITE_P(OpenSsl, DtlsOpensslInterop, ::testing::ValuesIn(kSuites), test_name);

}  // namespace
}  // namespace wireseal::interop
