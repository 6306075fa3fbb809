// Classic pcap writing of UDP datagrams over Ethernet or raw IP, with valid checksums so
// Wireshark shows no warnings.
#include <algorithm>
#include <stdexcept>

#include "common/byte_cursor.h"
#include "common/bytes.h"
#include "packet.h"
#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

constexpr std::size_t kMaxFrame = 65535;
constexpr std::size_t kGlobalHeaderSize = 24;
constexpr std::size_t kRecordHeaderSize = 16;

// append grows `out` by n zero bytes and returns a writer over them. The writer views the
// vector's storage: nothing may grow `out` again while it is in use.
ByteWriter append(std::vector<std::uint8_t>& out, std::size_t n) {
  out.resize(out.size() + n);
  return ByteWriter(std::span<std::uint8_t>(out).last(n));
}

// udp_checksum covers the pseudo-header (RFC 768 / RFC 8200 §8.1) and the UDP segment.
std::uint16_t udp_checksum(const UdpEndpoint& src, const UdpEndpoint& dst,
                           std::span<const std::uint8_t> segment) {
  std::uint32_t sum = detail::ones_complement_sum(src.address.view(), 0);
  sum = detail::ones_complement_sum(dst.address.view(), sum);
  std::uint8_t tail[8] = {};
  store_be32(tail, static_cast<std::uint32_t>(segment.size()));
  tail[7] = 17;
  sum = detail::ones_complement_sum(tail, sum);
  sum = detail::ones_complement_sum(segment, sum);
  const std::uint16_t c = detail::fold_checksum(sum);
  return c == 0 ? 0xFFFF : c;  // 0 would mean "no checksum"
}

}  // namespace

PcapWriter::PcapWriter(LinkType link_type) : link_type_(link_type) {
  if (link_type != LinkType::kEthernet && link_type != LinkType::kRaw &&
      link_type != LinkType::kIpv4) {
    throw std::invalid_argument("wireseal::io: PcapWriter supports Ethernet and raw IP only");
  }
  // Written little-endian with the microsecond magic; readers take the byte order from it.
  ByteWriter header = append(bytes_, kGlobalHeaderSize);
  header.u32le(0xA1B2C3D4);
  header.u16le(2);  // version 2.4
  header.u16le(4);
  header.u32le(0);  // thiszone
  header.u32le(0);  // sigfigs
  header.u32le(kMaxFrame);
  header.u32le(static_cast<std::uint32_t>(link_type));
}

Status PcapWriter::add_udp(std::uint64_t timestamp_ns, const UdpEndpoint& source,
                           const UdpEndpoint& destination, std::span<const std::uint8_t> payload) {
  const bool v6 = source.address.version == 6;
  if (source.address.version != destination.address.version) {
    return Error::kInvalidArgument;
  }
  if (v6 && link_type_ == LinkType::kIpv4) {
    return Error::kUnsupported;
  }
  const std::size_t link_len = link_type_ == LinkType::kEthernet ? 14 : 0;
  const std::size_t ip_len = v6 ? 40 : 20;
  const std::size_t udp_len = 8 + payload.size();
  if (udp_len > 0xFFFF || (!v6 && ip_len + udp_len > 0xFFFF) ||
      link_len + ip_len + udp_len > kMaxFrame) {
    return Error::kInvalidArgument;
  }
  std::vector<std::uint8_t> frame(link_len + ip_len + udp_len, 0);
  std::uint8_t* p = frame.data();
  if (link_len != 0) {
    // Locally administered, fixed MACs: the capture is synthetic.
    const std::uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 2};
    const std::uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 1};
    std::copy_n(dst_mac, 6, p);
    std::copy_n(src_mac, 6, p + 6);
    store_be16(p + 12, v6 ? 0x86DD : 0x0800);
    p += link_len;
  }
  std::uint8_t* ip = p;
  if (v6) {
    ip[0] = 0x60;
    store_be16(ip + 4, static_cast<std::uint16_t>(udp_len));
    ip[6] = 17;  // next header: UDP
    ip[7] = 64;  // hop limit
    std::copy_n(source.address.bytes.data(), 16, ip + 8);
    std::copy_n(destination.address.bytes.data(), 16, ip + 24);
  } else {
    ip[0] = 0x45;
    store_be16(ip + 2, static_cast<std::uint16_t>(ip_len + udp_len));
    store_be16(ip + 4, ip_id_++);
    store_be16(ip + 6, 0x4000);  // don't fragment
    ip[8] = 64;                  // TTL
    ip[9] = 17;                  // UDP
    std::copy_n(source.address.bytes.data(), 4, ip + 12);
    std::copy_n(destination.address.bytes.data(), 4, ip + 16);
    store_be16(ip + 10, detail::fold_checksum(detail::ones_complement_sum({ip, 20}, 0)));
  }
  std::uint8_t* udp = ip + ip_len;
  store_be16(udp, source.port);
  store_be16(udp + 2, destination.port);
  store_be16(udp + 4, static_cast<std::uint16_t>(udp_len));
  std::copy(payload.begin(), payload.end(), udp + 8);
  store_be16(udp + 6, udp_checksum(source, destination, {udp, udp_len}));

  ByteWriter record = append(bytes_, kRecordHeaderSize);
  record.u32le(static_cast<std::uint32_t>(timestamp_ns / 1'000'000'000u));
  record.u32le(static_cast<std::uint32_t>(timestamp_ns % 1'000'000'000u / 1000u));
  record.u32le(static_cast<std::uint32_t>(frame.size()));  // captured length
  record.u32le(static_cast<std::uint32_t>(frame.size()));  // original length
  bytes_.insert(bytes_.end(), frame.begin(), frame.end());
  ++frames_;
  return {};
}

}  // namespace wireseal::io
