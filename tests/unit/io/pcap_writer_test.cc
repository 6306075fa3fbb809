// PcapWriter: what it writes reads back, with valid IPv4 header and UDP checksums.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "pcap_test_util.h"
#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

using test::Bytes;

// checksum_ok folds the one's-complement sum of `words` (which include the checksum field).
bool checksum_ok(const std::vector<Bytes>& parts) {
  std::uint32_t sum = 0;
  for (const Bytes& part : parts) {
    for (std::size_t i = 0; i < part.size(); i += 2) {
      sum += std::uint32_t{part[i]} << 8 | (i + 1 < part.size() ? part[i + 1] : 0u);
    }
  }
  while (sum >> 16 != 0) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return sum == 0xFFFF;
}

TEST(PcapWriter, EthernetIpv4RoundTrip) {
  PcapWriter w(LinkType::kEthernet);
  const Bytes a = {1, 2, 3};
  const Bytes b(1400, 0x5A);
  ASSERT_TRUE(w.add_udp(1'700'000'000'123'456'000ull, test::v4(1, 40000), test::v4(2, 4433), a));
  ASSERT_TRUE(w.add_udp(1'700'000'000'999'999'000ull, test::v4(2, 4433), test::v4(1, 40000), b));
  ASSERT_TRUE(w.add_udp(1'700'000'001'000'000'000ull, test::v4(1, 40000), test::v4(2, 4433), {}));
  EXPECT_EQ(w.frames(), 3u);
  const Result<std::vector<UdpDatagram>> all = read_udp_datagrams(w.bytes());
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].timestamp_ns, 1'700'000'000'123'456'000ull);
  EXPECT_EQ((*all)[1].source, test::v4(2, 4433));
  EXPECT_EQ((*all)[1].destination, test::v4(1, 40000));
  EXPECT_EQ(Bytes((*all)[0].payload.begin(), (*all)[0].payload.end()), a);
  EXPECT_EQ(Bytes((*all)[1].payload.begin(), (*all)[1].payload.end()), b);
  EXPECT_TRUE((*all)[2].payload.empty());
}

TEST(PcapWriter, ChecksumsAreValid) {
  PcapWriter w(LinkType::kIpv4);
  const Bytes payload = {0x17, 0xfe, 0xfd, 9};  // odd and even lengths both matter: 4 + 8
  ASSERT_TRUE(w.add_udp(0, test::v4(1, 1234), test::v4(2, 5678), payload));
  const Bytes frame(w.bytes().begin() + 40, w.bytes().end());
  ASSERT_EQ(frame.size(), 20u + 8u + payload.size());
  EXPECT_TRUE(checksum_ok({Bytes(frame.begin(), frame.begin() + 20)}));
  // UDP: pseudo-header (src, dst, zero, protocol, UDP length) + segment.
  const Bytes pseudo = {192, 0, 2, 1, 192, 0, 2, 2, 0, 17, 0, 12};
  EXPECT_TRUE(checksum_ok({pseudo, Bytes(frame.begin() + 20, frame.end())}));

  PcapWriter w6(LinkType::kRaw);
  const Bytes odd = {1, 2, 3};
  ASSERT_TRUE(w6.add_udp(0, test::v6(1, 1), test::v6(2, 2), odd));
  const Bytes f6(w6.bytes().begin() + 40, w6.bytes().end());
  Bytes pseudo6(f6.begin() + 8, f6.begin() + 40);  // source and destination addresses
  pseudo6.insert(pseudo6.end(), {0, 0, 0, 11, 0, 0, 0, 17});
  EXPECT_TRUE(checksum_ok({pseudo6, Bytes(f6.begin() + 40, f6.end())}));
}

TEST(PcapWriter, RejectsWhatItCannotWrite) {
  EXPECT_THROW(PcapWriter{LinkType::kLinuxSll}, std::invalid_argument);
  PcapWriter v4_only(LinkType::kIpv4);
  EXPECT_EQ(v4_only.add_udp(0, test::v6(1, 1), test::v6(2, 2), {}).error(), Error::kUnsupported);
  PcapWriter w(LinkType::kEthernet);
  EXPECT_EQ(w.add_udp(0, test::v4(1, 1), test::v6(2, 2), {}).error(), Error::kInvalidArgument);
  const Bytes huge(65536, 0);
  EXPECT_EQ(w.add_udp(0, test::v4(1, 1), test::v4(2, 2), huge).error(), Error::kInvalidArgument);
  EXPECT_EQ(w.frames(), 0u);
}

TEST(PcapWriter, SavesAndLoadsFiles) {
  PcapWriter w(LinkType::kEthernet);
  ASSERT_TRUE(w.add_udp(0, test::v4(1, 1), test::v4(2, 2), Bytes{42}));
  char path[] = "/tmp/wireseal-pcap-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_TRUE(w.save(path));
  const Result<Bytes> loaded = load_file(path);
  std::remove(path);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, w.bytes());
  EXPECT_EQ(load_file("/nonexistent/wireseal.pcap").error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace wireseal::io
