// `wireseal srtp encrypt|decrypt`: protect or unprotect the RTP/RTCP packets of a capture with
// SDES or hex keys. The work is in srtp_pcap.cc; this file parses options and reports.
#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "srtp_keys.h"
#include "srtp_pcap.h"
#include "subcommand.h"
#include "wireseal/io/pcap.h"

namespace wireseal::cli {
namespace {

struct SrtpArgs {
  std::string input;
  std::string output;
  std::string profile = "AES_CM_128_HMAC_SHA1_80";
  std::string sdes;
  std::string key;
  std::string salt;
  std::vector<std::string> ssrcs;
};

std::uint32_t parse_ssrc(const std::string& text) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used, 0);  // decimal, or 0x... hex
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v > UINT32_MAX) {
    throw std::invalid_argument(fmt::format("--ssrc '{}' is not a 32-bit number", text));
  }
  return static_cast<std::uint32_t>(v);
}

int run(const SrtpArgs& a, SrtpDirection direction) {
  SrtpPcapOptions o;
  o.direction = direction;
  o.profile = profile_from_name(a.profile);
  if (!a.sdes.empty() == (!a.key.empty() || !a.salt.empty())) {
    throw std::invalid_argument("give the keys either as --sdes or as --key and --salt");
  }
  o.keys = !a.sdes.empty() ? parse_sdes_inline(a.sdes, o.profile)
                           : parse_hex_keys(a.key, a.salt, o.profile);
  for (const std::string& s : a.ssrcs) {
    o.ssrcs.push_back(parse_ssrc(s));
  }
  Result<std::vector<std::uint8_t>> file = io::load_file(a.input);
  if (!file) {
    throw std::runtime_error(fmt::format("cannot read {}", a.input));
  }
  const SrtpPcapReport r = rewrite_srtp_pcap(*file, o);
  for (const std::string& e : r.errors) {
    fmt::print(stderr, "{}: {}\n", a.input, e);
  }
  if (!io::save_file(a.output, r.pcap)) {
    throw std::runtime_error(fmt::format("cannot write {}", a.output));
  }
  fmt::print("{}: {} datagrams, {} RTP and {} RTCP packets {}, {} failed, {} passed through{}\n",
             a.output, r.datagrams, r.rtp, r.rtcp,
             direction == SrtpDirection::kEncrypt ? "protected" : "unprotected", r.errors.size(),
             r.passed_through,
             r.not_udp != 0 ? fmt::format(", {} non-UDP frames not copied", r.not_udp) : "");
  return r.errors.empty() ? 0 : 1;
}

void add_options(CLI::App& c, SrtpArgs& a) {
  c.add_option("input", a.input, "Capture to read (classic pcap)")->required();
  c.add_option("-o,--output", a.output, "Capture to write")->required();
  c.add_option("--profile", a.profile,
               "SRTP profile: AES_CM_128_HMAC_SHA1_80 (default), AES_CM_128_HMAC_SHA1_32, "
               "AES_192_CM_HMAC_SHA1_80/32, AES_256_CM_HMAC_SHA1_80/32, NULL_HMAC_SHA1_80/32, "
               "AEAD_AES_128_GCM, AEAD_AES_256_GCM");
  c.add_option("--sdes", a.sdes,
               "SDES key parameter (RFC 4568): 'inline:<base64 key||salt>[|lifetime][|MKI:len]'");
  c.add_option("--key", a.key, "Master key as hex (with --salt)");
  c.add_option("--salt", a.salt, "Master salt as hex (with --key)");
  c.add_option("--ssrc", a.ssrcs,
               "Only packets of this SSRC (decimal or 0x hex; repeatable). Default: all");
}

}  // namespace

Run set_up_srtp(CLI::App& command) {
  command.require_subcommand(1);
  auto args = std::make_shared<SrtpArgs>();
  auto direction = std::make_shared<SrtpDirection>(SrtpDirection::kDecrypt);
  CLI::App* dec = command.add_subcommand(
      "decrypt", "Unprotect the SRTP/SRTCP packets of a capture; other datagrams are copied");
  CLI::App* enc = command.add_subcommand(
      "encrypt", "Protect the RTP/RTCP packets of a capture; other datagrams are copied");
  add_options(*dec, *args);
  add_options(*enc, *args);
  dec->callback([direction] { *direction = SrtpDirection::kDecrypt; });
  enc->callback([direction] { *direction = SrtpDirection::kEncrypt; });
  command.footer(
      "Examples:\n"
      "  wireseal srtp decrypt call.pcap -o plain.pcap --sdes "
      "'inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4'\n"
      "  wireseal srtp encrypt plain.pcap -o srtp.pcap --profile AEAD_AES_128_GCM \\\n"
      "      --key 000102030405060708090a0b0c0d0e0f --salt a0a1a2a3a4a5a6a7a8a9aaab "
      "--ssrc 0xcafebabe\n"
      "Exit status: 0 if every selected packet was processed, 1 otherwise.");
  return [args, direction] { return run(*args, *direction); };
}

}  // namespace wireseal::cli
