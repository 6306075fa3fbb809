// `wireseal srtp encrypt|decrypt` engine: a generated capture (RTP of two SSRCs, RTCP, a
// non-RTP datagram) encrypted and decrypted again must come back byte for byte; SSRC
// selection, SDES parsing (RFC 4568's own example) and per-packet error reports.
#include "srtp_pcap.h"

#include <gtest/gtest.h>

#include "srtp_keys.h"
#include "srtp_test_util.h"
#include "support/hex.h"
#include "wireseal/io/pcap.h"

namespace wireseal::test {
namespace {

using cli::SrtpDirection;
using cli::SrtpPcapOptions;
using cli::SrtpPcapReport;

Bytes capture() {
  io::PcapWriter w(io::LinkType::kEthernet);
  const io::UdpEndpoint a{io::IpAddress::v4(10, 0, 0, 1), 40000};
  const io::UdpEndpoint b{io::IpAddress::v4(10, 0, 0, 2), 50000};
  std::uint64_t t = 1'700'000'000'000'000'000ull;
  for (std::uint16_t i = 0; i < 30; ++i) {
    const Bytes rtp =
        rtp_packet(i % 2 == 0 ? 0x1111 : 0x2222, static_cast<std::uint16_t>(65530 + i), 100u + i);
    EXPECT_TRUE(w.add_udp(t += 20'000'000, a, b, rtp));
    if (i % 10 == 0) {
      EXPECT_TRUE(w.add_udp(t += 1'000, b, a, rtcp_packet(0x1111, 28)));
      const Bytes stun = {0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42, 1, 2, 3, 4};
      EXPECT_TRUE(w.add_udp(t += 1'000, a, b, stun));
    }
  }
  return w.bytes();
}

SrtpPcapOptions options(SrtpDirection d, srtp::Profile p) {
  SrtpPcapOptions o;
  o.direction = d;
  o.profile = p;
  const KeySet k = make_keys(p, 3);
  o.keys.key = k.key;
  o.keys.salt = k.salt;
  return o;
}

TEST(SrtpPcap, EncryptThenDecryptGivesTheCaptureBackForEveryProfile) {
  const Bytes in = capture();
  for (srtp::Profile p : kAllProfiles) {
    const SrtpPcapReport enc = cli::rewrite_srtp_pcap(in, options(SrtpDirection::kEncrypt, p));
    EXPECT_TRUE(enc.errors.empty()) << srtp::info(p).name;
    EXPECT_EQ(enc.rtp, 30u);
    EXPECT_EQ(enc.rtcp, 3u);
    EXPECT_EQ(enc.passed_through, 3u);
    EXPECT_NE(enc.pcap, in);
    const SrtpPcapReport dec =
        cli::rewrite_srtp_pcap(enc.pcap, options(SrtpDirection::kDecrypt, p));
    EXPECT_TRUE(dec.errors.empty()) << srtp::info(p).name;
    EXPECT_EQ(dec.rtp, 30u);
    EXPECT_EQ(to_hex(dec.pcap), to_hex(in)) << srtp::info(p).name;
  }
}

TEST(SrtpPcap, OnlySelectedSsrcsAreTouchedAndFailuresNameThePacket) {
  const Bytes in = capture();
  SrtpPcapOptions o = options(SrtpDirection::kEncrypt, srtp::Profile::kAes128CmHmacSha1_80);
  o.ssrcs = {0x2222};
  const SrtpPcapReport enc = cli::rewrite_srtp_pcap(in, o);
  EXPECT_EQ(enc.rtp, 15u);
  EXPECT_EQ(enc.rtcp, 0u);
  // Decrypting everything: SSRC 0x1111 packets are plain and fail authentication, by name.
  SrtpPcapOptions d = options(SrtpDirection::kDecrypt, srtp::Profile::kAes128CmHmacSha1_80);
  const SrtpPcapReport dec = cli::rewrite_srtp_pcap(enc.pcap, d);
  EXPECT_EQ(dec.rtp, 15u);
  ASSERT_EQ(dec.errors.size(), 18u);  // 15 RTP + 3 RTCP of SSRC 0x1111
  EXPECT_EQ(dec.errors[0], "frame 1: RTP SSRC 0x00001111 seq 65530: unprotect failed: " +
                               std::string(to_string(Error::kAuthFailed)));
  // Failed packets are copied unchanged, so selecting 0x2222 alone restores the input.
  d.ssrcs = {0x2222};
  EXPECT_EQ(to_hex(cli::rewrite_srtp_pcap(enc.pcap, d).pcap), to_hex(in));
}

TEST(SrtpPcap, SdesInlineKeysAsInRfc4568) {
  // RFC 4568 §9.1's example key parameter: 30 bytes = 16-byte key + 14-byte salt.
  const cli::SrtpKeyInput k =
      cli::parse_sdes_inline("inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4",
                             srtp::Profile::kAes128CmHmacSha1_80);
  EXPECT_EQ(std::string(k.key.begin(), k.key.end()), "YS___semctl () {");
  EXPECT_EQ(std::string(k.salt.begin(), k.salt.end()), "\t220;}\n}\nunles");
  EXPECT_EQ(to_hex(k.mki), "00000001");
  EXPECT_TRUE(cli::parse_sdes_inline("inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz",
                                     srtp::Profile::kAes128CmHmacSha1_80)
                  .mki.empty());
  // Padding: the 28 bytes of an AEAD_AES_128_GCM key||salt (16 + 12) end in '=='.
  const cli::SrtpKeyInput g = cli::parse_sdes_inline(
      "inline:+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+w==", srtp::Profile::kAeadAes128Gcm);
  EXPECT_EQ(to_hex(g.key), "fbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfb");
  EXPECT_EQ(to_hex(g.salt), "fbfbfbfbfbfbfbfbfbfbfbfb");
  for (const char* bad : {"WVNf", "inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGV",
                          "inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVu*GVz",
                          "inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|x|1:4",
                          "inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|300:1"}) {
    EXPECT_THROW(cli::parse_sdes_inline(bad, srtp::Profile::kAes128CmHmacSha1_80),
                 std::invalid_argument)
        << bad;
  }
  EXPECT_EQ(cli::profile_from_name("srtp_aes128_cm_hmac_sha1_80"),
            srtp::Profile::kAes128CmHmacSha1_80);
  EXPECT_EQ(cli::profile_from_name("AEAD_AES_256_GCM"), srtp::Profile::kAeadAes256Gcm);
  EXPECT_THROW(cli::profile_from_name("AES_CM_999"), std::invalid_argument);
}

// An SDES key with an MKI protects packets that carry it; decrypting with it restores them.
TEST(SrtpPcap, MkiFromSdesRoundTrips) {
  const Bytes in = capture();
  SrtpPcapOptions o = options(SrtpDirection::kEncrypt, srtp::Profile::kAes128CmHmacSha1_80);
  o.keys = cli::parse_sdes_inline("inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|7:2",
                                  srtp::Profile::kAes128CmHmacSha1_80);
  const SrtpPcapReport enc = cli::rewrite_srtp_pcap(in, o);
  ASSERT_TRUE(enc.errors.empty());
  o.direction = SrtpDirection::kDecrypt;
  EXPECT_EQ(to_hex(cli::rewrite_srtp_pcap(enc.pcap, o).pcap), to_hex(in));
}

}  // namespace
}  // namespace wireseal::test
