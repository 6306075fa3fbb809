#include "packet.h"

#include <algorithm>

#include "common/bytes.h"

namespace wireseal::io::detail {
namespace {

constexpr std::uint8_t kProtoUdp = 17;
constexpr std::size_t kUdpHeaderSize = 8;
constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;
constexpr std::uint16_t kEtherTypeQinQ = 0x88A8;

std::optional<UdpParts> parse_udp(const IpAddress& src, const IpAddress& dst,
                                  std::span<const std::uint8_t> segment) noexcept {
  if (segment.size() < kUdpHeaderSize) {
    return std::nullopt;
  }
  const std::size_t length = load_be16(segment.data() + 4);
  if (length < kUdpHeaderSize || length > segment.size()) {
    return std::nullopt;
  }
  return UdpParts{{src, load_be16(segment.data())},
                  {dst, load_be16(segment.data() + 2)},
                  segment.subspan(kUdpHeaderSize, length - kUdpHeaderSize)};
}

std::optional<UdpParts> parse_ipv4(std::span<const std::uint8_t> p) noexcept {
  if (p.size() < 20) {
    return std::nullopt;
  }
  const std::size_t header_len = std::size_t{p[0] & 0x0Fu} * 4;
  const std::size_t total_len = load_be16(p.data() + 2);
  // total_len also trims Ethernet padding after short packets.
  if (header_len < 20 || total_len < header_len || total_len > p.size()) {
    return std::nullopt;
  }
  const std::uint16_t flags_offset = load_be16(p.data() + 6);
  const bool more_fragments = (flags_offset & 0x2000u) != 0;
  if (more_fragments || (flags_offset & 0x1FFFu) != 0 || p[9] != kProtoUdp) {
    return std::nullopt;
  }
  IpAddress src;
  IpAddress dst;
  std::copy_n(p.data() + 12, 4, src.bytes.begin());
  std::copy_n(p.data() + 16, 4, dst.bytes.begin());
  return parse_udp(src, dst, p.subspan(header_len, total_len - header_len));
}

std::optional<UdpParts> parse_ipv6(std::span<const std::uint8_t> p) noexcept {
  constexpr std::size_t kHeader = 40;
  if (p.size() < kHeader) {
    return std::nullopt;
  }
  const std::size_t payload_len = load_be16(p.data() + 4);
  // Payload length 0 means a jumbogram (hop-by-hop option): not something DTLS uses.
  if (payload_len == 0 || kHeader + payload_len > p.size()) {
    return std::nullopt;
  }
  IpAddress src;
  IpAddress dst;
  src.version = 6;
  dst.version = 6;
  std::copy_n(p.data() + 8, 16, src.bytes.begin());
  std::copy_n(p.data() + 24, 16, dst.bytes.begin());
  std::span<const std::uint8_t> rest = p.subspan(kHeader, payload_len);
  std::uint8_t next = p[6];
  // Walk the extension headers that may precede UDP; a fragment header means "skip".
  for (int hops = 0; hops < 8; ++hops) {
    switch (next) {
      case kProtoUdp:
        return parse_udp(src, dst, rest);
      case 0:     // hop-by-hop options
      case 43:    // routing
      case 60: {  // destination options
        if (rest.size() < 8) {
          return std::nullopt;
        }
        const std::size_t ext_len = (std::size_t{rest[1]} + 1) * 8;
        if (ext_len > rest.size()) {
          return std::nullopt;
        }
        next = rest[0];
        rest = rest.subspan(ext_len);
        break;
      }
      default:  // 44 (fragment), other transports, ESP, ...
        return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<UdpParts> parse_ether_payload(std::uint16_t ether_type,
                                            std::span<const std::uint8_t> p) noexcept {
  switch (ether_type) {
    case kEtherTypeIpv4:
      return parse_ipv4(p);
    case kEtherTypeIpv6:
      return parse_ipv6(p);
    default:
      return std::nullopt;
  }
}

std::optional<UdpParts> parse_ethernet(std::span<const std::uint8_t> f) noexcept {
  std::size_t offset = 12;
  // Up to two VLAN tags (802.1ad outer, 802.1Q inner) sit between the MACs and the type.
  for (int tags = 0; tags <= 2; ++tags) {
    if (f.size() < offset + 2) {
      return std::nullopt;
    }
    const std::uint16_t type = load_be16(f.data() + offset);
    if (type != kEtherTypeVlan && type != kEtherTypeQinQ) {
      return parse_ether_payload(type, f.subspan(offset + 2));
    }
    offset += 4;
  }
  return std::nullopt;
}

std::optional<UdpParts> parse_null(std::span<const std::uint8_t> f) noexcept {
  if (f.size() < 4) {
    return std::nullopt;
  }
  // The family is in the capturing host's byte order, which the file does not record:
  // accept either order. AF_INET is 2 everywhere; AF_INET6 is 10 (Linux), 24, 28 or 30 (BSDs).
  const std::uint32_t be = load_be32(f.data());
  const std::uint32_t le = std::uint32_t{f[0]} | std::uint32_t{f[1]} << 8 |
                           std::uint32_t{f[2]} << 16 | std::uint32_t{f[3]} << 24;
  const std::uint32_t family = be <= 0xFFFF ? be : le;
  const std::span<const std::uint8_t> packet = f.subspan(4);
  if (family == 2) {
    return parse_ipv4(packet);
  }
  if (family == 10 || family == 24 || family == 28 || family == 30) {
    return parse_ipv6(packet);
  }
  return std::nullopt;
}

}  // namespace

std::optional<UdpParts> parse_ip(std::span<const std::uint8_t> packet) noexcept {
  if (packet.empty()) {
    return std::nullopt;
  }
  switch (packet[0] >> 4) {
    case 4:
      return parse_ipv4(packet);
    case 6:
      return parse_ipv6(packet);
    default:
      return std::nullopt;
  }
}

std::optional<UdpParts> parse_frame(LinkType link_type,
                                    std::span<const std::uint8_t> frame) noexcept {
  switch (link_type) {
    case LinkType::kNull:
      return parse_null(frame);
    case LinkType::kEthernet:
      return parse_ethernet(frame);
    case LinkType::kRaw:
      return parse_ip(frame);
    case LinkType::kIpv4:
      return parse_ipv4(frame);
    case LinkType::kIpv6:
      return parse_ipv6(frame);
    case LinkType::kLinuxSll:  // 16-byte header, protocol type last
      if (frame.size() < 16) {
        return std::nullopt;
      }
      return parse_ether_payload(load_be16(frame.data() + 14), frame.subspan(16));
    case LinkType::kLinuxSll2:  // 20-byte header, protocol type first
      if (frame.size() < 20) {
        return std::nullopt;
      }
      return parse_ether_payload(load_be16(frame.data()), frame.subspan(20));
  }
  return std::nullopt;
}

std::uint32_t ones_complement_sum(std::span<const std::uint8_t> bytes, std::uint32_t sum) noexcept {
  std::size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) {
    sum += load_be16(bytes.data() + i);
    sum = (sum & 0xFFFFu) + (sum >> 16);
  }
  if (i < bytes.size()) {
    sum += std::uint32_t{bytes[i]} << 8;  // odd length: pad with a zero byte
    sum = (sum & 0xFFFFu) + (sum >> 16);
  }
  return sum;
}

std::uint16_t fold_checksum(std::uint32_t sum) noexcept {
  while (sum >> 16 != 0) {
    sum = (sum & 0xFFFFu) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(~sum & 0xFFFFu);
}

}  // namespace wireseal::io::detail
