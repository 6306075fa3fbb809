// Classic pcap reading: global header, frame records, then the link layer down to UDP.
#include "common/bytes.h"
#include "packet.h"
#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

constexpr std::size_t kGlobalHeaderSize = 24;
constexpr std::size_t kRecordHeaderSize = 16;
constexpr std::uint32_t kMagicMicro = 0xA1B2C3D4;
constexpr std::uint32_t kMagicNano = 0xA1B23C4D;

bool known_link_type(std::uint32_t value) noexcept {
  switch (static_cast<LinkType>(value)) {
    case LinkType::kNull:
    case LinkType::kEthernet:
    case LinkType::kRaw:
    case LinkType::kLinuxSll:
    case LinkType::kIpv4:
    case LinkType::kIpv6:
    case LinkType::kLinuxSll2:
      return true;
  }
  return false;
}

}  // namespace

std::uint32_t PcapReader::load32(const std::uint8_t* p) const noexcept {
  return swapped_ ? load_be32(p) : load_le32(p);
}

Result<PcapReader> PcapReader::create(std::span<const std::uint8_t> file) noexcept {
  if (file.size() < kGlobalHeaderSize) {
    return Error::kMalformed;
  }
  // The magic tells both the byte order of every header field and the timestamp unit.
  const std::uint32_t le = load_le32(file.data());
  const std::uint32_t be = load_be32(file.data());
  bool swapped = false;
  bool nano = false;
  if (le == kMagicMicro || le == kMagicNano) {
    nano = le == kMagicNano;
  } else if (be == kMagicMicro || be == kMagicNano) {
    swapped = true;
    nano = be == kMagicNano;
  } else {
    return Error::kMalformed;
  }
  PcapReader reader(file.subspan(kGlobalHeaderSize), LinkType::kNull, swapped, nano);
  // The upper bits of the link-type field carry FCS information (pcap spec §"LinkType").
  const std::uint32_t link = reader.load32(file.data() + 20) & 0x0FFFFFFFu;
  if (!known_link_type(link)) {
    return Error::kUnsupported;
  }
  reader.link_type_ = static_cast<LinkType>(link);
  return reader;
}

Result<UdpDatagram> PcapReader::next() noexcept {
  while (!rest_.empty()) {
    if (rest_.size() < kRecordHeaderSize) {
      rest_ = {};
      return Error::kMalformed;
    }
    const std::uint64_t seconds = load32(rest_.data());
    const std::uint64_t fraction = load32(rest_.data() + 4);
    const std::size_t captured = load32(rest_.data() + 8);
    if (captured > rest_.size() - kRecordHeaderSize) {
      rest_ = {};
      return Error::kMalformed;
    }
    const std::span<const std::uint8_t> frame = rest_.subspan(kRecordHeaderSize, captured);
    rest_ = rest_.subspan(kRecordHeaderSize + captured);
    ++frames_;
    const std::optional<detail::UdpParts> udp = detail::parse_frame(link_type_, frame);
    if (!udp) {
      ++skipped_;
      continue;
    }
    const std::uint64_t ns = seconds * 1'000'000'000u + (nanosecond_ ? fraction : fraction * 1000u);
    return UdpDatagram{frames_, ns, udp->source, udp->destination, udp->payload};
  }
  return Error::kBadState;
}

Result<std::vector<UdpDatagram>> read_udp_datagrams(std::span<const std::uint8_t> file) {
  Result<PcapReader> reader = PcapReader::create(file);
  if (!reader) {
    return reader.error();
  }
  std::vector<UdpDatagram> datagrams;
  while (!reader->done()) {
    Result<UdpDatagram> d = reader->next();
    if (!d) {
      if (d.error() == Error::kBadState) {
        break;  // only skipped frames were left
      }
      return d.error();
    }
    datagrams.push_back(*d);
  }
  return datagrams;
}

}  // namespace wireseal::io
