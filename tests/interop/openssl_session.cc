#include "openssl_session.h"

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "child_process.h"
#include "support/hex.h"
#include "udp_peer.h"

namespace wireseal::interop {
namespace {

using std::chrono::milliseconds;

constexpr const char* kPskHex = "00112233445566778899aabbccddeeff";
constexpr const char* kPskIdentity = "wireseal-interop";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// lines returns the application data one side sends, one write each: lengths chosen so CBC
// padding and AEAD lengths vary (short, several blocks, and more than one 1500-byte MTU's
// worth would be fragmented, so stay below it).
std::vector<std::string> lines(const std::string& who, const SuiteCase& suite) {
  const std::string head = who + " over " + suite.openssl_name + ": ";
  return {head + "hello\n", head + std::string(150, who[0]) + "\n",
          head + std::string(1000, '0' + static_cast<char>(head.size() % 10)) + "\n"};
}

}  // namespace

std::vector<std::uint8_t> psk_bytes() { return test::from_hex(kPskHex); }

std::string suite_label(const SuiteCase& suite) {
  return std::string(suite.openssl_name) + (suite.no_etm ? " -no_etm" : "");
}

void PrintTo(const SuiteCase& suite, std::ostream* os) { *os << suite_label(suite); }

std::string OpensslDtls::make_certificate() {
  const std::string key = workdir_ + "/key.pem";
  const std::string cert = workdir_ + "/cert.pem";
  const std::vector<std::vector<std::string>> steps = {
      {openssl_, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key},
      {openssl_, "req", "-new", "-x509", "-key", key, "-out", cert, "-subj", "/CN=wireseal-interop",
       "-days", "2"},
  };
  for (const auto& argv : steps) {
    const std::string err = workdir_ + "/cert-step.err";
    ChildProcess p(argv, err);
    const std::optional<int> status = p.wait_exit(milliseconds(10000));
    if (status != 0) {
      return "`openssl " + argv[1] + "` failed: " + slurp(err);
    }
  }
  return {};
}

SessionCapture OpensslDtls::run(const SuiteCase& suite, const std::string& tag,
                                UdpRelay::Transform transform) {
  SessionCapture cap;
  cap.server_keylog = keylog_path(tag, false);
  cap.client_keylog = keylog_path(tag, true);

  // -quiet: stdout carries only the peer's application data, and stdin lines are never
  // taken as s_server/s_client commands.
  std::vector<std::string> server_argv = {openssl_,
                                          "s_server",
                                          "-dtls1_2",
                                          "-accept",
                                          "127.0.0.1:0",  // the port is chosen below
                                          "-cipher",
                                          suite.openssl_name,
                                          "-keylogfile",
                                          cap.server_keylog,
                                          "-quiet",
                                          "-naccept",
                                          "1"};
  std::vector<std::string> client_argv = {
      openssl_,           "s_client",    "-dtls1_2",        "-cipher",
      suite.openssl_name, "-keylogfile", cap.client_keylog, "-quiet"};
  if (suite.psk) {
    for (auto* argv : {&server_argv, &client_argv}) {
      argv->insert(argv->end(), {"-psk", kPskHex, "-psk_identity", kPskIdentity});
    }
    server_argv.push_back("-nocert");
  } else {
    server_argv.insert(server_argv.end(),
                       {"-cert", workdir_ + "/cert.pem", "-key", workdir_ + "/key.pem"});
  }
  if (suite.no_etm) {
    server_argv.push_back("-no_etm");
    client_argv.push_back("-no_etm");
  }

  std::optional<ChildProcess> started;
  cap.server_port = start_udp_peer(
      [&server_argv](std::uint16_t port) {
        std::vector<std::string> argv = server_argv;
        argv[4] = "127.0.0.1:" + std::to_string(port);
        return argv;
      },
      started, workdir_ + "/" + tag + ".server.err");
  if (cap.server_port == 0) {
    cap.diagnostics += "s_server did not start in 8 attempts (port taken?): " +
                       slurp(workdir_ + "/" + tag + ".server.err") + "\n";
    return cap;
  }
  ChildProcess& server = *started;
  UdpRelay relay(cap.server_port, std::move(transform));
  client_argv.insert(client_argv.begin() + 2,
                     {"-connect", "127.0.0.1:" + std::to_string(relay.listen_port())});
  {
    ChildProcess client(client_argv, workdir_ + "/" + tag + ".client.err");
    // Client first (its write also drives the handshake), then the server answers once all
    // the client's data has arrived, so data provably flows both ways over the finished
    // handshake. One write per line, each awaited, so each becomes its own record.
    cap.client_data_arrived = true;
    for (const std::string& line : lines("client", suite)) {
      cap.client_line += line;
      cap.client_data_arrived = cap.client_data_arrived && client.write_stdin(line) &&
                                server.wait_for_output(cap.client_line, milliseconds(8000));
    }
    cap.server_data_arrived = cap.client_data_arrived;
    for (const std::string& line : lines("server", suite)) {
      cap.server_line += line;
      cap.server_data_arrived = cap.server_data_arrived && server.write_stdin(line) &&
                                client.wait_for_output(cap.server_line, milliseconds(8000));
    }
    client.stop();
    cap.diagnostics += "s_client stdout: " + client.output() +
                       "\ns_client stderr: " + slurp(workdir_ + "/" + tag + ".client.err") + "\n";
  }
  server.stop();
  relay.stop();
  cap.diagnostics += "s_server stdout: " + server.output() +
                     "\ns_server stderr: " + slurp(workdir_ + "/" + tag + ".server.err") + "\n";
  cap.datagrams = relay.datagrams();
  cap.client_port = relay.client_port().value_or(0);
  return cap;
}

}  // namespace wireseal::interop
