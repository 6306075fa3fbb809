// PcapReader on hand-made files: both byte orders and timestamp units, every supported link
// type, and the frames it must skip (other protocols, fragments, truncated headers).
#include <gtest/gtest.h>

#include <algorithm>

#include "pcap_test_util.h"
#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

using test::Bytes;
using test::make_pcap;
using test::RawFrame;
using test::udp_ip_packet;

const Bytes kPayload = {0x16, 0xfe, 0xfd, 0x00, 0x01, 0x02, 0x03};

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Bytes ethernet(std::uint16_t ether_type, const Bytes& packet) {
  Bytes f(12, 0xAA);
  f.push_back(static_cast<std::uint8_t>(ether_type >> 8));
  f.push_back(static_cast<std::uint8_t>(ether_type));
  return concat(f, packet);
}

// read_all reads every datagram, requiring a clean end of file.
std::vector<UdpDatagram> read_all(const Bytes& file, std::size_t* skipped = nullptr) {
  Result<PcapReader> reader = PcapReader::create(file);
  EXPECT_TRUE(reader);
  std::vector<UdpDatagram> out;
  if (!reader) {
    return out;
  }
  for (;;) {
    Result<UdpDatagram> d = reader->next();
    if (!d) {
      EXPECT_EQ(d.error(), Error::kBadState);
      break;
    }
    out.push_back(*d);
  }
  if (skipped != nullptr) {
    *skipped = reader->skipped();
  }
  return out;
}

void expect_datagram(const UdpDatagram& d, const UdpEndpoint& src, const UdpEndpoint& dst) {
  EXPECT_EQ(d.source, src);
  EXPECT_EQ(d.destination, dst);
  EXPECT_TRUE(std::equal(d.payload.begin(), d.payload.end(), kPayload.begin(), kPayload.end()));
}

struct ByteOrderCase {
  bool big_endian;
  bool nanosecond;
};

class PcapByteOrder : public ::testing::TestWithParam<ByteOrderCase> {};

TEST_P(PcapByteOrder, ReadsHeadersAndTimestamps) {
  const auto [big_endian, nano] = GetParam();
  const Bytes packet = udp_ip_packet(test::v4(1, 5000), test::v4(2, 4433), kPayload);
  const Bytes file = make_pcap(big_endian, nano, 1,
                               {{1700000000, 123456, ethernet(0x0800, packet)},
                                {1700000001, 999999, ethernet(0x0800, packet)}});
  Result<PcapReader> reader = PcapReader::create(file);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->link_type(), LinkType::kEthernet);
  EXPECT_EQ(reader->nanosecond(), nano);
  const std::vector<UdpDatagram> all = read_all(file);
  ASSERT_EQ(all.size(), 2u);
  const std::uint64_t unit = nano ? 1 : 1000;
  EXPECT_EQ(all[0].timestamp_ns, 1700000000ull * 1'000'000'000ull + 123456 * unit);
  EXPECT_EQ(all[1].timestamp_ns, 1700000001ull * 1'000'000'000ull + 999999 * unit);
  EXPECT_EQ(all[0].frame, 1u);
  EXPECT_EQ(all[1].frame, 2u);
  expect_datagram(all[0], test::v4(1, 5000), test::v4(2, 4433));
  // No copies: the payload is a view into the file buffer.
  EXPECT_GE(all[1].payload.data(), file.data());
  EXPECT_LE(all[1].payload.data() + all[1].payload.size(), file.data() + file.size());
}

INSTANTIATE_TEST_SUITE_P(All, PcapByteOrder,
                         ::testing::Values(ByteOrderCase{false, false}, ByteOrderCase{false, true},
                                           ByteOrderCase{true, false}, ByteOrderCase{true, true}));

TEST(PcapLinkTypes, EveryLinkTypeYieldsTheDatagram) {
  const UdpEndpoint a4 = test::v4(1, 1111);
  const UdpEndpoint b4 = test::v4(2, 2222);
  const UdpEndpoint a6 = test::v6(1, 3333);
  const UdpEndpoint b6 = test::v6(2, 4444);
  const Bytes ip4 = udp_ip_packet(a4, b4, kPayload);
  const Bytes ip6 = udp_ip_packet(a6, b6, kPayload);
  Bytes sll(16, 0);
  sll[14] = 0x08;  // protocol 0x0800
  Bytes sll2(20, 0);
  sll2[0] = 0x86;  // protocol 0x86DD
  sll2[1] = 0xDD;
  const Bytes vlan = {0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xBB, 0xBB, 0xBB,
                      0xBB, 0xBB, 0xBB, 0x81, 0x00, 0x00, 0x05, 0x08, 0x00};
  struct Case {
    std::uint32_t link;
    Bytes frame;
    bool v6;
  };
  const Case cases[] = {
      {1, ethernet(0x0800, ip4), false},
      {1, ethernet(0x86DD, ip6), true},
      {1, concat(vlan, ip4), false},
      {101, ip4, false},
      {101, ip6, true},
      {228, ip4, false},
      {229, ip6, true},
      {113, concat(sll, ip4), false},
      {276, concat(sll2, ip6), true},
      {0, concat({2, 0, 0, 0}, ip4), false},  // AF_INET, little-endian host
      {0, concat({0, 0, 0, 2}, ip4), false},  // AF_INET, big-endian host
      {0, concat({0, 0, 0, 24}, ip6), true},  // AF_INET6 (NetBSD/OpenBSD), big-endian
      {0, concat({30, 0, 0, 0}, ip6), true},  // AF_INET6 (macOS), little-endian
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("link type " + std::to_string(c.link) + (c.v6 ? " IPv6" : " IPv4"));
    const Bytes file = make_pcap(false, false, c.link, {{0, 0, c.frame}});  // payloads view it
    const std::vector<UdpDatagram> all = read_all(file);
    ASSERT_EQ(all.size(), 1u);
    expect_datagram(all[0], c.v6 ? a6 : a4, c.v6 ? b6 : b4);
  }
}

TEST(PcapSkips, NonUdpFragmentsAndTruncatedFramesAreSkipped) {
  const Bytes ip4 = udp_ip_packet(test::v4(1, 1), test::v4(2, 2), kPayload);
  const Bytes ip6 = udp_ip_packet(test::v6(1, 1), test::v6(2, 2), kPayload);
  Bytes tcp = ip4;
  tcp[9] = 6;
  Bytes more_fragments = ip4;
  more_fragments[6] = 0x20;  // MF set (checksums are not verified by the reader)
  Bytes later_fragment = ip4;
  later_fragment[6] = 0x00;
  later_fragment[7] = 0x10;  // fragment offset 16 * 8
  Bytes bad_udp_length = ip4;
  bad_udp_length[20 + 5] = 0xFF;  // UDP length larger than the packet
  Bytes bad_ihl = ip4;
  bad_ihl[0] = 0x44;  // IHL 4 < 5
  Bytes ip6_fragment = ip6;
  ip6_fragment[6] = 44;                               // next header: fragment
  const Bytes truncated(ip4.begin(), ip4.end() - 3);  // snapped: total length says more
  const Bytes arp = ethernet(0x0806, Bytes(28, 0));
  std::vector<RawFrame> frames;
  for (const Bytes* p :
       std::initializer_list<const Bytes*>{&tcp, &more_fragments, &later_fragment, &bad_udp_length,
                                           &bad_ihl, &ip6_fragment, &truncated}) {
    frames.push_back({0, 0, ethernet((*p)[0] >> 4 == 6 ? 0x86DD : 0x0800, *p)});
  }
  frames.push_back({0, 0, arp});
  frames.push_back({0, 0, Bytes(5, 0)});  // runt frame
  frames.push_back({0, 0, ethernet(0x0800, ip4)});
  std::size_t skipped = 0;
  const Bytes file = make_pcap(false, false, 1, frames);  // payloads view it
  const std::vector<UdpDatagram> all = read_all(file, &skipped);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].frame, frames.size());
  EXPECT_EQ(skipped, frames.size() - 1);
}

TEST(PcapIpv6, ExtensionHeadersBeforeUdpAreWalked) {
  Bytes ip6 = udp_ip_packet(test::v6(1, 7), test::v6(2, 8), kPayload);
  // Insert an 8-byte hop-by-hop header (next header UDP, length 0) after the fixed header.
  const Bytes hop_by_hop = {17, 0, 1, 4, 0, 0, 0, 0};
  ip6.insert(ip6.begin() + 40, hop_by_hop.begin(), hop_by_hop.end());
  ip6[6] = 0;
  const std::size_t payload_len = (std::size_t{ip6[4]} << 8 | ip6[5]) + 8;
  ip6[4] = static_cast<std::uint8_t>(payload_len >> 8);
  ip6[5] = static_cast<std::uint8_t>(payload_len);
  const Bytes file = make_pcap(false, false, 229, {{0, 0, ip6}});  // payloads view it
  const std::vector<UdpDatagram> all = read_all(file);
  ASSERT_EQ(all.size(), 1u);
  expect_datagram(all[0], test::v6(1, 7), test::v6(2, 8));
}

TEST(PcapIpv4, EthernetPaddingIsNotPayload) {
  const Bytes ip4 = udp_ip_packet(test::v4(1, 1), test::v4(2, 2), kPayload);
  const Bytes padded = concat(ethernet(0x0800, ip4), Bytes(10, 0));  // minimum frame padding
  const Bytes file = make_pcap(false, false, 1, {{0, 0, padded}});   // payloads view it
  const std::vector<UdpDatagram> all = read_all(file);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].payload.size(), kPayload.size());
}

TEST(PcapErrors, BadFilesAreRejected) {
  EXPECT_EQ(PcapReader::create(Bytes(10, 0)).error(), Error::kMalformed);
  Bytes bad_magic = make_pcap(false, false, 1, {});
  bad_magic[0] = 0x0A;  // pcapng section header block starts 0A 0D 0D 0A
  EXPECT_EQ(PcapReader::create(bad_magic).error(), Error::kMalformed);
  EXPECT_EQ(PcapReader::create(make_pcap(false, false, 105, {})).error(), Error::kUnsupported);
  // A record running past the end of the file: earlier datagrams, then kMalformed.
  const Bytes ip4 = udp_ip_packet(test::v4(1, 1), test::v4(2, 2), kPayload);
  Bytes cut = make_pcap(true, false, 228, {{0, 0, ip4}, {0, 0, ip4}});
  cut.resize(cut.size() - 1);
  Result<PcapReader> reader = PcapReader::create(cut);
  ASSERT_TRUE(reader);
  EXPECT_TRUE(reader->next());
  EXPECT_EQ(reader->next().error(), Error::kMalformed);
  EXPECT_TRUE(reader->done());
  EXPECT_EQ(read_udp_datagrams(cut).error(), Error::kMalformed);
}

TEST(PcapEndpoints, AddressesPrintAsWiresharkDoes) {
  EXPECT_EQ(test::v4(1, 4433).to_string(), "192.0.2.1:4433");
  EXPECT_EQ(test::v6(1, 4433).to_string(), "[2001:db8::1]:4433");
  IpAddress ip;
  ip.version = 6;
  ip.bytes = {};
  ip.bytes[15] = 1;
  EXPECT_EQ(ip.to_string(), "::1");
  ip.bytes = {0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(ip.to_string(), "2001:0:0:1::1");  // the longer zero run is compressed
  ip.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  EXPECT_EQ(ip.to_string(), "2001:db8:0:1:1:1:1:1");  // a single zero word is not
  ip.bytes = {};
  EXPECT_EQ(ip.to_string(), "::");
}

}  // namespace
}  // namespace wireseal::io
