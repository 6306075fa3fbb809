#pragma once
// One DTLS 1.2 connection between `openssl s_client` and `openssl s_server`, through a
// recording UdpRelay, with application data sent both ways. Everything is bounded in time.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "udp_relay.h"

namespace wireseal::interop {

struct SuiteCase {
  const char* openssl_name;  // -cipher argument
  std::uint16_t iana;        // the suite the ServerHello must choose
  bool psk;                  // PSK suite: no certificate, -psk/-psk_identity on both sides
  bool no_etm;               // pass -no_etm (CBC suites: MAC-then-encrypt records)
};

// psk_bytes is the pre-shared key run() gives both peers for PSK suites.
std::vector<std::uint8_t> psk_bytes();

// suite_label is the OpenSSL name, plus " -no_etm" when EtM is disabled.
std::string suite_label(const SuiteCase& suite);
// PrintTo names a case in gtest and ctest listings (instead of its raw bytes).
void PrintTo(const SuiteCase& suite, std::ostream* os);

struct SessionCapture {
  std::vector<RelayedDatagram> datagrams;
  std::uint16_t client_port = 0;  // the client's real source port
  std::uint16_t server_port = 0;  // s_server's port
  std::string server_keylog;      // paths of the key logs each side wrote
  std::string client_keylog;
  std::string client_line;  // all application data each side sent (several writes)
  std::string server_line;
  bool client_data_arrived = false;  // seen on s_server's stdout
  bool server_data_arrived = false;  // seen on s_client's stdout
  std::string diagnostics;           // children's output, for failure messages
};

class OpensslDtls {
 public:
  // OpensslDtls uses the `openssl` binary at `openssl` and keeps its files in `workdir`.
  OpensslDtls(std::string openssl, std::string workdir)
      : openssl_(std::move(openssl)), workdir_(std::move(workdir)) {}

  // make_certificate creates a P-256 ECDSA key and a self-signed certificate in workdir.
  // Returns an empty string on success, else what went wrong.
  std::string make_certificate();

  // run performs one connection with `suite`; `tag` names its files. `transform`, if set,
  // rewrites datagrams in the relay.
  SessionCapture run(const SuiteCase& suite, const std::string& tag,
                     UdpRelay::Transform transform = {});

  // keylog_path is where run() has the client or the server write its key log.
  std::string keylog_path(const std::string& tag, bool client) const {
    return workdir_ + "/" + tag + (client ? ".client.keylog" : ".server.keylog");
  }

 private:
  std::string openssl_;
  std::string workdir_;
};

}  // namespace wireseal::interop
