#include <cstdio>

#include "wireseal/io/pcap.h"

namespace wireseal::io {

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept {
  IpAddress ip;
  ip.bytes[0] = a;
  ip.bytes[1] = b;
  ip.bytes[2] = c;
  ip.bytes[3] = d;
  return ip;
}

std::string IpAddress::to_string() const {
  char buf[48];
  if (version == 4) {
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", bytes[0], bytes[1], bytes[2], bytes[3]);
    return buf;
  }
  unsigned words[8];
  for (std::size_t i = 0; i < 8; ++i) {
    words[i] = unsigned{bytes[2 * i]} << 8 | bytes[2 * i + 1];
  }
  // RFC 5952 §4.2: compress the longest run (length >= 2, first if tied) of zero words.
  std::size_t best_at = 8;
  std::size_t best_len = 1;
  for (std::size_t i = 0; i < 8;) {
    std::size_t j = i;
    while (j < 8 && words[j] == 0) {
      ++j;
    }
    if (j - i > best_len) {
      best_at = i;
      best_len = j - i;
    }
    i = j == i ? i + 1 : j;
  }
  std::string out;
  for (std::size_t i = 0; i < 8; ++i) {
    if (i == best_at) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') {
      out += ':';
    }
    std::snprintf(buf, sizeof buf, "%x", words[i]);
    out += buf;
  }
  return out;
}

std::string UdpEndpoint::to_string() const {
  const std::string ip = address.to_string();
  return (address.version == 6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}

}  // namespace wireseal::io
