#pragma once
// Builders for hand-made capture files: any byte order, timestamp unit and link type, so the
// reader's paths are tested on files the writer cannot produce.

#include <cstdint>
#include <vector>

#include "wireseal/io/pcap.h"

namespace wireseal::io::test {

using Bytes = std::vector<std::uint8_t>;

struct RawFrame {
  std::uint32_t seconds;
  std::uint32_t fraction;  // microseconds or nanoseconds
  Bytes data;
};

// make_pcap builds a classic pcap file with the given header fields and frames.
Bytes make_pcap(bool big_endian, bool nanosecond, std::uint32_t link_type,
                const std::vector<RawFrame>& frames);

// udp_ip_packet returns an IPv4 or IPv6 packet (per the endpoints) carrying one UDP datagram,
// as PcapWriter builds it for raw-IP captures.
Bytes udp_ip_packet(const UdpEndpoint& src, const UdpEndpoint& dst, const Bytes& payload);

UdpEndpoint v4(std::uint8_t last, std::uint16_t port);
UdpEndpoint v6(std::uint8_t last, std::uint16_t port);  // 2001:db8::last

}  // namespace wireseal::io::test
