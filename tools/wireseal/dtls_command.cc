// `wireseal dtls decrypt`: decrypt the DTLS 1.2 records of a capture with an NSS key log.
// The work is in dtls_decrypt.cc; this file parses options and prints the report.
#include <fmt/core.h>

#include <cstdint>
#include <optional>
#include <string>

#include "dtls_decrypt.h"
#include "dtls_endpoint_options.h"
#include "subcommand.h"
#include "wireseal/dtls/record_cipher.h"

namespace wireseal::cli {
namespace {

struct DtlsDecryptArgs {
  std::string keylog;
  std::string capture;
  std::string format = "text";
  int port = 0;  // 0: every port
};

std::optional<std::uint16_t> port_filter(int port) {
  return port == 0 ? std::nullopt : std::optional<std::uint16_t>(static_cast<std::uint16_t>(port));
}

std::string as_hex(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    out += fmt::format("{:02x}", b);
  }
  return out;
}

// as_text shows printable ASCII as is and escapes everything else, C style.
std::string as_text(std::span<const std::uint8_t> bytes) {
  std::string out;
  for (std::uint8_t b : bytes) {
    switch (b) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (b >= 0x20 && b < 0x7F) {
          out += static_cast<char>(b);
        } else {
          out += fmt::format("\\x{:02x}", b);
        }
    }
  }
  return out;
}

std::string record_name(const RecordResult& r) {
  return fmt::format("frame {} {}->{} epoch {} seq {}", r.frame, peer_name(r.sender),
                     peer_name(other_peer(r.sender)), r.epoch, r.sequence);
}

void print_flow(std::size_t index, const FlowResult& f) {
  std::string suite = "no ServerHello";
  if (f.server_hello) {
    const std::optional<dtls::SuiteInfo> info = dtls::suite_info(f.server_hello->cipher_suite);
    suite = fmt::format("suite 0x{:04X} {}, encrypt_then_mac {}, extended_master_secret {}",
                        f.server_hello->cipher_suite,
                        info ? dtls::info(info->cipher).name : "(unsupported)",
                        f.server_hello->extensions.encrypt_then_mac ? "yes" : "no",
                        f.server_hello->extensions.extended_master_secret ? "yes" : "no");
  }
  fmt::print("flow {}: client {} <-> server {}: {}, keys {}\n", index, f.client.to_string(),
             f.server.to_string(), suite, f.have_keys ? "derived" : "missing");
  for (const std::string& note : f.notes) {
    fmt::print(stderr, "wireseal dtls decrypt: flow {}: {}\n", index, note);
  }
}

int run_decrypt(const DtlsDecryptArgs& args) {
  Result<io::KeyLog> keylog = io::KeyLog::load(args.keylog);
  if (!keylog) {
    fmt::print(stderr, "wireseal dtls decrypt: cannot read key log {}\n", args.keylog);
    return 1;
  }
  if (keylog->malformed_lines() != 0) {
    fmt::print(stderr, "wireseal dtls decrypt: {} malformed CLIENT_RANDOM line(s) in {} ignored\n",
               keylog->malformed_lines(), args.keylog);
  }
  Result<std::vector<std::uint8_t>> pcap = io::load_file(args.capture);
  if (!pcap) {
    fmt::print(stderr, "wireseal dtls decrypt: cannot read {}\n", args.capture);
    return 1;
  }
  const Result<DecryptReport> report =
      decrypt_capture(*pcap, *keylog, DecryptOptions{port_filter(args.port)});
  if (!report) {
    fmt::print(stderr, "wireseal dtls decrypt: {} is not a readable pcap file: {}\n", args.capture,
               to_string(report.error()));
    return 1;
  }
  for (std::size_t i = 0; i < report->flows.size(); ++i) {
    print_flow(i, report->flows[i]);
  }
  const bool hex = args.format == "hex";
  for (const RecordResult& r : report->records) {
    if (r.status == RecordStatus::kFailed) {
      fmt::print(stderr, "wireseal dtls decrypt: {} {}: cannot decrypt: {}\n", record_name(r),
                 content_type_name(r.type), r.error);
      continue;
    }
    fmt::print("{} {} {} bytes{}{}: {}\n", record_name(r), content_type_name(r.type),
               r.plaintext.size(), r.status == RecordStatus::kDecrypted ? " decrypted" : "",
               r.summary.empty() ? "" : " [" + r.summary + "]",
               hex ? as_hex(r.plaintext) : as_text(r.plaintext));
  }
  for (const std::string& note : report->notes) {
    fmt::print(stderr, "wireseal dtls decrypt: {}\n", note);
  }
  if (report->failed != 0) {
    fmt::print(stderr, "wireseal dtls decrypt: {} protected record(s) failed\n", report->failed);
    return 1;
  }
  return 0;
}

}  // namespace

Run set_up_dtls(CLI::App& command) {
  command.require_subcommand(1);
  CLI::App* decrypt = command.add_subcommand(
      "decrypt", "Decrypt the DTLS 1.2 records of a pcap capture with an NSS key log");
  auto args = std::make_shared<DtlsDecryptArgs>();
  decrypt->add_option("--keylog", args->keylog, "NSS key log (CLIENT_RANDOM lines)")
      ->required()
      ->check(CLI::ExistingFile);
  decrypt->add_option("capture", args->capture, "classic pcap file (not pcapng)")
      ->required()
      ->check(CLI::ExistingFile);
  decrypt->add_option("--format", args->format, "how to print plaintext")
      ->check(CLI::IsMember({"hex", "text"}))
      ->capture_default_str();
  decrypt->add_option("--port", args->port, "only datagrams from or to this UDP port")
      ->check(CLI::Range(1, 65535));
  CLI::App* server =
      command.add_subcommand("server", "Serve DTLS 1.2 over UDP: echo, or print what clients send");
  CLI::App* client = command.add_subcommand(
      "client", "Connect to a DTLS 1.2 server over UDP: stdin lines out, replies to stdout");
  const Run run_server = set_up_dtls_server(*server);
  const Run run_client = set_up_dtls_client(*client);
  return [args, server, client, run_server, run_client] {
    if (server->parsed()) {
      return run_server();
    }
    if (client->parsed()) {
      return run_client();
    }
    return run_decrypt(*args);
  };
}

}  // namespace wireseal::cli
