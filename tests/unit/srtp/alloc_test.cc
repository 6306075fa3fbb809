// Zero-allocation test: after set-up (and streams created by a first packet) protect and
// unprotect of SRTP and SRTCP, batches, replay/auth rejections and stream creation on first
// packet make no heap allocation, for every profile. Links tests/support/alloc_counter.cc.
//
// Nothing inside a measured loop may allocate, gtest included: results are collected in
// plain variables and asserted afterwards.
#include <gtest/gtest.h>

#include "srtp_test_util.h"
#include "support/alloc_counter.h"

namespace wireseal::test {
namespace {

constexpr int kIterations = 500;

class SrtpAlloc : public ::testing::TestWithParam<srtp::Profile> {};

INSTANTIATE_TEST_SUITE_P(AllProfiles, SrtpAlloc, ::testing::ValuesIn(kAllProfiles),
                         [](const ::testing::TestParamInfo<srtp::Profile>& p) {
                           return std::string(srtp::info(p.param).name);
                         });

TEST_P(SrtpAlloc, SteadyStatePacketPathsDoNotAllocate) {
  const srtp::Profile p = GetParam();
  const KeySet k1 = make_keys(p, 1, 2);
  const KeySet k2 = make_keys(p, 2, 2);
  const std::uint8_t ids[] = {1};
  srtp::SessionConfig c;
  c.max_streams = 1024;
  c.stream_defaults.encrypted_extension_ids = ids;
  srtp::Session tx = make_session(p, {k1, k2}, c);
  srtp::Session rx = make_session(p, {k1, k2}, c);
  const Bytes ext = {0x10, 0xaa, 0x21, 0xbb, 0xcc};
  Bytes rtp = rtp_packet(1, 0, 1200, 1, &ext);
  Bytes rtcp = rtcp_packet(1, 200);
  Bytes buf(1400);
  Bytes out(1400);
  std::vector<srtp::PacketJob> jobs(4);
  std::vector<Bytes> job_bufs(4, Bytes(1400));
  int failures = 0;
  // Warm-up (first use of the DRBG etc. happens in construction, not here).
  {
    std::copy(rtp.begin(), rtp.end(), buf.begin());
    if (!tx.protect_rtp(buf, rtp.size())) {
      ++failures;
    }
  }
  AllocScope scope;
  for (int i = 1; i <= kIterations; ++i) {
    const auto seq = static_cast<std::uint16_t>(i);
    rtp[2] = static_cast<std::uint8_t>(seq >> 8);
    rtp[3] = static_cast<std::uint8_t>(seq);
    std::copy(rtp.begin(), rtp.end(), buf.begin());
    Result<std::size_t> n = tx.protect_rtp(buf, rtp.size());
    if (!n) {
      ++failures;
      continue;
    }
    if (!rx.unprotect_rtp(std::span<const std::uint8_t>(buf.data(), *n), out)) {
      ++failures;
    }
    if (rx.unprotect_rtp(std::span<std::uint8_t>(buf.data(), *n))) {
      ++failures;  // a replay must be rejected (and counted) without allocating
    }
    std::copy(rtcp.begin(), rtcp.end(), buf.begin());
    Result<std::size_t> m = tx.protect_rtcp(buf, rtcp.size());
    if (!m || !rx.unprotect_rtcp(std::span<std::uint8_t>(buf.data(), *m))) {
      ++failures;
    }
    // A new SSRC every iteration: stream creation on first packet, both sides.
    Bytes& first = job_bufs[0];
    std::copy(rtp.begin(), rtp.end(), first.begin());
    const auto ssrc = static_cast<std::uint32_t>(1000 + i);
    first[8] = static_cast<std::uint8_t>(ssrc >> 24);
    first[9] = static_cast<std::uint8_t>(ssrc >> 16);
    first[10] = static_cast<std::uint8_t>(ssrc >> 8);
    first[11] = static_cast<std::uint8_t>(ssrc);
    jobs[0] = {first, rtp.size(), {}};
    tx.protect_rtp_batch(std::span<srtp::PacketJob>(jobs.data(), 1));
    rx.unprotect_rtp_batch(std::span<srtp::PacketJob>(jobs.data(), 1));
    if (!jobs[0].status) {
      ++failures;
    }
    if (i % 2 == 0) {
      (void)tx.remove_stream(ssrc);
      (void)rx.remove_stream(ssrc);
    }
  }
  const AllocStats d = scope.delta();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(d.count, 0u) << srtp::info(p).name << ": " << d.bytes << " bytes";
}

}  // namespace
}  // namespace wireseal::test
