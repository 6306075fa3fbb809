#include "pcap_test_util.h"

#include <stdexcept>

namespace wireseal::io::test {
namespace {

void put32(Bytes& out, std::uint32_t v, bool big_endian) {
  for (int i = 0; i < 4; ++i) {
    const int shift = big_endian ? 24 - 8 * i : 8 * i;
    out.push_back(static_cast<std::uint8_t>(v >> shift));
  }
}

void put16(Bytes& out, std::uint16_t v, bool big_endian) {
  out.push_back(static_cast<std::uint8_t>(big_endian ? v >> 8 : v));
  out.push_back(static_cast<std::uint8_t>(big_endian ? v : v >> 8));
}

}  // namespace

Bytes make_pcap(bool big_endian, bool nanosecond, std::uint32_t link_type,
                const std::vector<RawFrame>& frames) {
  Bytes out;
  put32(out, nanosecond ? 0xA1B23C4D : 0xA1B2C3D4, big_endian);
  put16(out, 2, big_endian);
  put16(out, 4, big_endian);
  put32(out, 0, big_endian);
  put32(out, 0, big_endian);
  put32(out, 262144, big_endian);
  put32(out, link_type, big_endian);
  for (const RawFrame& f : frames) {
    put32(out, f.seconds, big_endian);
    put32(out, f.fraction, big_endian);
    put32(out, static_cast<std::uint32_t>(f.data.size()), big_endian);
    put32(out, static_cast<std::uint32_t>(f.data.size()), big_endian);
    out.insert(out.end(), f.data.begin(), f.data.end());
  }
  return out;
}

Bytes udp_ip_packet(const UdpEndpoint& src, const UdpEndpoint& dst, const Bytes& payload) {
  PcapWriter w(LinkType::kRaw);
  if (!w.add_udp(0, src, dst, payload)) {
    throw std::runtime_error("udp_ip_packet: add_udp failed");
  }
  constexpr std::size_t kHeaders = 24 + 16;  // global header + one frame header
  return Bytes(w.bytes().begin() + kHeaders, w.bytes().end());
}

UdpEndpoint v4(std::uint8_t last, std::uint16_t port) {
  return UdpEndpoint{IpAddress::v4(192, 0, 2, last), port};
}

UdpEndpoint v6(std::uint8_t last, std::uint16_t port) {
  IpAddress ip;
  ip.version = 6;
  ip.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last};
  return UdpEndpoint{ip, port};
}

}  // namespace wireseal::io::test
