#pragma once
// Link-layer, IP and UDP header parsing for the pcap reader, and the Internet checksum for the
// writer. Internal to the io module.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "wireseal/io/pcap.h"

namespace wireseal::io::detail {

struct UdpParts {
  UdpEndpoint source;
  UdpEndpoint destination;
  std::span<const std::uint8_t> payload;
};

// parse_frame finds the UDP datagram in one captured frame of `link_type`. nullopt for
// anything else: other protocols, IP fragments, and headers or lengths that do not fit the
// captured bytes (a snapped frame is never reported as a shorter datagram).
std::optional<UdpParts> parse_frame(LinkType link_type,
                                    std::span<const std::uint8_t> frame) noexcept;

// parse_ip parses an IPv4 or IPv6 packet (version from the first nibble) down to UDP.
std::optional<UdpParts> parse_ip(std::span<const std::uint8_t> packet) noexcept;

// ones_complement_sum adds `bytes` as big-endian 16-bit words to `sum` (RFC 1071); fold and
// complement the result to get a checksum.
std::uint32_t ones_complement_sum(std::span<const std::uint8_t> bytes, std::uint32_t sum) noexcept;
std::uint16_t fold_checksum(std::uint32_t sum) noexcept;

}  // namespace wireseal::io::detail
