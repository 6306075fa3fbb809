#include "hello_scan.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace wireseal::interop {
namespace {

std::size_t be(const std::vector<std::uint8_t>& b, std::size_t at, std::size_t n) {
  std::size_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v = v << 8 | b.at(at + i);  // .at(): a short message throws, and the caller reports it
  }
  return v;
}

// parse_server_hello reads body = version(2) random(32) session_id<1> suite(2) comp(1)
// extensions<2>.
void parse_server_hello(const std::vector<std::uint8_t>& body, HelloFacts& facts) {
  std::copy_n(body.begin() + 2, 32, facts.server_random.begin());
  std::size_t at = 34;
  at += 1 + be(body, at, 1);
  facts.cipher_suite = static_cast<std::uint16_t>(be(body, at, 2));
  at += 3;
  if (at == body.size()) {
    return;
  }
  const std::size_t end = at + 2 + be(body, at, 2);
  for (at += 2; at < end;) {
    const std::size_t type = be(body, at, 2);
    facts.encrypt_then_mac = facts.encrypt_then_mac || type == 22;
    facts.extended_master_secret = facts.extended_master_secret || type == 23;
    at += 4 + be(body, at + 2, 2);
  }
}

}  // namespace

std::optional<HelloFacts> scan_hellos(const std::vector<RelayedDatagram>& datagrams,
                                      std::string* error) {
  HelloFacts facts;
  bool have_client = false;
  bool have_server = false;
  try {
    for (const RelayedDatagram& d : datagrams) {
      const std::vector<std::uint8_t>& b = d.bytes;
      // Records: type(1) version(2) epoch(2) seq(6) length(2) fragment.
      for (std::size_t at = 0; at + 13 <= b.size();) {
        const std::size_t length = be(b, at + 11, 2);
        const bool epoch0_handshake = b[at] == 22 && be(b, at + 3, 2) == 0;
        std::size_t hs = at + 13;
        at += 13 + length;
        // Handshake messages: type(1) length(3) message_seq(2) frag_offset(3) frag_length(3).
        while (epoch0_handshake && hs + 12 <= at) {
          const std::uint8_t type = b.at(hs);
          const std::size_t frag_len = be(b, hs + 9, 3);
          if (hs + 12 + frag_len > b.size()) {
            throw std::out_of_range("handshake fragment");
          }
          const std::vector<std::uint8_t> body(
              b.begin() + static_cast<std::ptrdiff_t>(hs + 12),
              b.begin() + static_cast<std::ptrdiff_t>(hs + 12 + frag_len));
          if (type == 1 && body.size() >= 34) {
            std::copy_n(body.begin() + 2, 32, facts.client_random.begin());
            have_client = true;
          } else if (type == 2) {
            parse_server_hello(body, facts);
            have_server = true;
          }
          hs += 12 + frag_len;
        }
      }
    }
  } catch (const std::out_of_range&) {
    *error = "truncated record or hello";
    return std::nullopt;
  }
  if (!have_client || !have_server) {
    *error = have_client ? "no ServerHello captured" : "no ClientHello captured";
    return std::nullopt;
  }
  return facts;
}

}  // namespace wireseal::interop
