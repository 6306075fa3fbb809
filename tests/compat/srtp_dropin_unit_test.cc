// The drop-in through its own header, in process: what the cross-library tests cannot see.
//   - no allocation per packet (the counting allocator replaces malloc for the library too);
//   - an index is never reused under one key, whatever the program does within one srtp_t: a
//     stream removed and added again, or updated to the same keys, continues above what it sent
//     (under other tag lengths and MKI lists too: srtp_dropin_key_reuse_test.cc);
//   - srtp_update to new keys keeps the ROC and the SRTCP count;
//   - allow_repeat_tx lets out a byte-identical retransmission only;
//   - the events libsrtp raises (SSRC collision, index space used up);
//   - bad arguments (NULL pointers, negative and huge lengths) are errors, never crashes.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "srtp2/auth.h"
#include "srtp2/srtp.h"
#include "support/alloc_counter.h"

namespace wireseal::test {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr unsigned kSsrc = 0x01020304;

struct Key {
  unsigned char bytes[SRTP_MAX_KEY_LEN];
  explicit Key(int seed) {
    for (int i = 0; i < SRTP_MAX_KEY_LEN; ++i) {
      bytes[i] = static_cast<unsigned char>(i * 31 + seed);
    }
  }
};

srtp_policy_t policy(srtp_ssrc_type_t type, unsigned ssrc, Key& key) {
  srtp_policy_t p;
  std::memset(&p, 0, sizeof p);
  srtp_crypto_policy_set_rtp_default(&p.rtp);
  srtp_crypto_policy_set_rtcp_default(&p.rtcp);
  p.ssrc.type = type;
  p.ssrc.value = ssrc;
  p.key = key.bytes;
  return p;
}

void put_be32(unsigned char* p, unsigned v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

// rtp is a packet of `payload` bytes with room behind it for the trailer, as libsrtp wants.
Bytes rtp(unsigned ssrc, unsigned seq, std::size_t payload = 100) {
  Bytes p(12 + payload + SRTP_MAX_TRAILER_LEN + 4, 0x5A);
  p[0] = 0x80;
  p[1] = 96;
  p[2] = static_cast<unsigned char>(seq >> 8);
  p[3] = static_cast<unsigned char>(seq);
  put_be32(&p[4], 0);
  put_be32(&p[8], ssrc);
  return p;
}

Bytes rtcp(unsigned ssrc) {
  Bytes p(28 + SRTP_MAX_TRAILER_LEN + 4, 0x33);
  put_be32(&p[0], 0x80C80006);
  put_be32(&p[4], ssrc);
  return p;
}

srtp_err_status_t protect(srtp_t s, Bytes& p, int& len) {
  len = static_cast<int>(p.size()) - SRTP_MAX_TRAILER_LEN - 4;
  return srtp_protect(s, p.data(), &len);
}

class SrtpDropInUnit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { srtp_init(); }
};

TEST_F(SrtpDropInUnit, PacketsAllocateNothing) {
  Key key(1);
  srtp_policy_t out = policy(ssrc_any_outbound, 0, key);
  srtp_policy_t in = policy(ssrc_any_inbound, 0, key);
  srtp_t tx = nullptr;
  srtp_t rx = nullptr;
  ASSERT_EQ(srtp_create(&tx, &out), srtp_err_status_ok);
  ASSERT_EQ(srtp_create(&rx, &in), srtp_err_status_ok);
  std::vector<Bytes> packets;
  for (unsigned i = 0; i < 64; ++i) {
    packets.push_back(rtp(kSsrc + i % 8, i));  // eight SSRCs, each created by its first packet
  }
  Bytes report = rtcp(kSsrc);
  const AllocScope scope;
  for (Bytes& p : packets) {
    int len = 0;
    ASSERT_EQ(protect(tx, p, len), srtp_err_status_ok);
    ASSERT_EQ(srtp_unprotect(rx, p.data(), &len), srtp_err_status_ok);
  }
  int len = 28;
  ASSERT_EQ(srtp_protect_rtcp(tx, report.data(), &len), srtp_err_status_ok);
  ASSERT_EQ(srtp_unprotect_rtcp(rx, report.data(), &len), srtp_err_status_ok);
  EXPECT_EQ(scope.delta().count, 0u) << scope.delta().bytes << " bytes";
  {
    // The counter sees the library's own allocations: setting a session up does allocate.
    const AllocScope setup;
    srtp_t extra = nullptr;
    ASSERT_EQ(srtp_create(&extra, &in), srtp_err_status_ok);
    srtp_dealloc(extra);
    EXPECT_GT(setup.delta().count, 0u);
  }
  srtp_dealloc(tx);
  srtp_dealloc(rx);
}

// sent_then_removed is a session for `p` (an SSRC kSsrc policy) whose stream protected
// packets 1..10 and was removed; nullptr if any step failed.
srtp_t sent_then_removed(const srtp_policy_t& p) {
  srtp_t tx = nullptr;
  if (srtp_create(&tx, &p) != srtp_err_status_ok) {
    return nullptr;
  }
  int len = 0;
  for (unsigned seq = 1; seq <= 10; ++seq) {
    Bytes pkt = rtp(kSsrc, seq);
    if (protect(tx, pkt, len) != srtp_err_status_ok) {
      srtp_dealloc(tx);
      return nullptr;
    }
  }
  if (srtp_remove_stream(tx, htonl(kSsrc)) != srtp_err_status_ok) {
    srtp_dealloc(tx);
    return nullptr;
  }
  return tx;
}

TEST_F(SrtpDropInUnit, AStreamAddedAgainUnderTheSameKeysNeverReusesAnIndex) {
  Key key(2);
  srtp_policy_t p = policy(ssrc_specific, kSsrc, key);
  srtp_t tx = sent_then_removed(p);
  ASSERT_NE(tx, nullptr);
  int len = 0;
  ASSERT_EQ(srtp_add_stream(tx, &p), srtp_err_status_ok);
  Bytes again = rtp(kSsrc, 5);
  EXPECT_EQ(protect(tx, again, len), srtp_err_status_replay_fail);  // libsrtp would reuse it
  Bytes next = rtp(kSsrc, 11);
  EXPECT_EQ(protect(tx, next, len), srtp_err_status_ok);
  // srtp_update_stream with the same keys changes nothing either.
  ASSERT_EQ(srtp_update_stream(tx, &p), srtp_err_status_ok);
  Bytes old = rtp(kSsrc, 11);
  EXPECT_EQ(protect(tx, old, len), srtp_err_status_replay_fail);
  srtp_dealloc(tx);
}

TEST_F(SrtpDropInUnit, AnotherWindowUnderTheSameKeysKeepsTheSameIndexBook) {
  Key key(8);
  srtp_policy_t narrow = policy(ssrc_specific, kSsrc, key);
  narrow.window_size = 128;
  srtp_t tx = sent_then_removed(narrow);
  ASSERT_NE(tx, nullptr);
  int len = 0;
  srtp_policy_t wide = narrow;
  wide.window_size = 1024;
  wide.allow_repeat_tx = 1;
  ASSERT_EQ(srtp_add_stream(tx, &wide), srtp_err_status_ok);
  Bytes again = rtp(kSsrc, 5);
  EXPECT_EQ(protect(tx, again, len), srtp_err_status_replay_fail);
  srtp_dealloc(tx);
}

TEST_F(SrtpDropInUnit, AllowRepeatTxResendsOnlyTheSamePacket) {
  Key key(9);
  srtp_policy_t p = policy(ssrc_any_outbound, 0, key);
  p.allow_repeat_tx = 1;
  srtp_t tx = nullptr;
  ASSERT_EQ(srtp_create(&tx, &p), srtp_err_status_ok);
  int len = 0;
  std::vector<Bytes> sent;
  for (unsigned seq = 1; seq <= 20; ++seq) {
    sent.push_back(rtp(kSsrc, seq));
    ASSERT_EQ(protect(tx, sent.back(), len), srtp_err_status_ok);
    sent.back().resize(static_cast<std::size_t>(len));
  }
  {
    Bytes resend = rtp(kSsrc, 12);
    const AllocScope scope;
    ASSERT_EQ(protect(tx, resend, len), srtp_err_status_ok);
    EXPECT_EQ(scope.delta().count, 0u);
    resend.resize(static_cast<std::size_t>(len));
    EXPECT_EQ(resend, sent[11]);
  }
  // libsrtp would encrypt another packet under index 12's keystream: the drop-in refuses it,
  // and none of its bytes (plain or encrypted) leave srtp_protect.
  Bytes other = rtp(kSsrc, 12);
  other[20] ^= 1;
  ASSERT_EQ(protect(tx, other, len), srtp_err_status_replay_fail);
  EXPECT_EQ(std::count(other.begin() + 12, other.begin() + 112 + 10, 0), 110);
  // Without allow_repeat_tx (a stream added for one SSRC) a resend is refused as libsrtp does.
  srtp_policy_t strict = policy(ssrc_specific, kSsrc + 1, key);
  ASSERT_EQ(srtp_add_stream(tx, &strict), srtp_err_status_ok);
  Bytes once = rtp(kSsrc + 1, 1);
  ASSERT_EQ(protect(tx, once, len), srtp_err_status_ok);
  Bytes twice = rtp(kSsrc + 1, 1);
  EXPECT_EQ(protect(tx, twice, len), srtp_err_status_replay_fail);
  srtp_dealloc(tx);
}

// libwebrtc's start-up: replace an auth type with its external HMAC (id HMAC_SHA1 + 1). The
// call succeeds; a policy that then names that auth type is refused, not half-served.
TEST_F(SrtpDropInUnit, AReplacedAuthTypeIsAcceptedButNotUsedByPolicies) {
  constexpr srtp_auth_type_id_t kExternalHmac = SRTP_HMAC_SHA1 + 1;
  EXPECT_EQ(srtp_replace_auth_type(nullptr, kExternalHmac), srtp_err_status_bad_param);
  alignas(8) unsigned char opaque[128] = {};
  EXPECT_EQ(
      srtp_replace_auth_type(reinterpret_cast<const srtp_auth_type_t*>(opaque), kExternalHmac),
      srtp_err_status_ok);
  Key key(10);
  srtp_policy_t p = policy(ssrc_any_outbound, 0, key);
  p.rtp.auth_type = kExternalHmac;
  srtp_t s = nullptr;
  EXPECT_EQ(srtp_create(&s, &p), srtp_err_status_bad_param);
  EXPECT_EQ(s, nullptr);
}

TEST_F(SrtpDropInUnit, UpdatingToNewKeysKeepsTheRocAndTheSrtcpCount) {
  Key key(3);
  Key fresh(4);
  srtp_policy_t p = policy(ssrc_specific, kSsrc, key);
  srtp_t tx = nullptr;
  ASSERT_EQ(srtp_create(&tx, &p), srtp_err_status_ok);
  ASSERT_EQ(srtp_set_stream_roc(tx, kSsrc, 5), srtp_err_status_ok);
  int len = 0;
  Bytes first = rtp(kSsrc, 100);
  ASSERT_EQ(protect(tx, first, len), srtp_err_status_ok);
  for (int i = 0; i < 3; ++i) {
    Bytes r = rtcp(kSsrc);
    len = 28;
    ASSERT_EQ(srtp_protect_rtcp(tx, r.data(), &len), srtp_err_status_ok);
  }
  srtp_policy_t q = policy(ssrc_specific, kSsrc, fresh);
  ASSERT_EQ(srtp_update_stream(tx, &q), srtp_err_status_ok);
  uint32_t roc = 0;
  ASSERT_EQ(srtp_get_stream_roc(tx, kSsrc, &roc), srtp_err_status_ok);
  EXPECT_EQ(roc, 5u);
  Bytes r = rtcp(kSsrc);
  len = 28;
  ASSERT_EQ(srtp_protect_rtcp(tx, r.data(), &len), srtp_err_status_ok);
  const std::size_t e_index = 28;  // after the 28 bytes of the compound packet
  const unsigned index = (unsigned{r[e_index]} & 0x7Fu) << 24 | unsigned{r[e_index + 1]} << 16 |
                         unsigned{r[e_index + 2]} << 8 | unsigned{r[e_index + 3]};
  EXPECT_EQ(index, 4u);  // libsrtp sends 1, 2, 3 and then 4 under the new key
  srtp_dealloc(tx);
}

std::vector<srtp_event_t> g_events;
void on_event(srtp_event_data_t* data) { g_events.push_back(data->event); }

TEST_F(SrtpDropInUnit, EventsForACollisionAndAnExhaustedIndexSpace) {
  g_events.clear();
  ASSERT_EQ(srtp_install_event_handler(&on_event), srtp_err_status_ok);
  Key key(5);
  srtp_policy_t p = policy(ssrc_specific, kSsrc, key);
  srtp_t s = nullptr;
  ASSERT_EQ(srtp_create(&s, &p), srtp_err_status_ok);
  int len = 0;
  Bytes sent = rtp(kSsrc, 1);
  ASSERT_EQ(protect(s, sent, len), srtp_err_status_ok);
  EXPECT_EQ(srtp_unprotect(s, sent.data(), &len), srtp_err_status_replay_fail);
  Bytes other = rtp(kSsrc, 2);
  ASSERT_EQ(protect(s, other, len), srtp_err_status_ok);
  // A fresh packet of our own sender's SSRC, from someone holding the same key, comes in.
  srtp_t peer = nullptr;
  ASSERT_EQ(srtp_create(&peer, &p), srtp_err_status_ok);
  Bytes echo = rtp(kSsrc, 3);
  ASSERT_EQ(protect(peer, echo, len), srtp_err_status_ok);
  srtp_dealloc(peer);
  EXPECT_EQ(srtp_unprotect(s, echo.data(), &len), srtp_err_status_ok);
  ASSERT_FALSE(g_events.empty());
  EXPECT_EQ(g_events.back(), event_ssrc_collision);
  ASSERT_EQ(srtp_set_stream_roc(s, kSsrc, 0xFFFFFFFF), srtp_err_status_ok);
  Bytes last = rtp(kSsrc, 65535);
  ASSERT_EQ(protect(s, last, len), srtp_err_status_ok);
  Bytes beyond = rtp(kSsrc, 0);
  EXPECT_EQ(protect(s, beyond, len), srtp_err_status_key_expired);
  srtp_dealloc(s);
  srtp_install_event_handler(nullptr);
  EXPECT_EQ(g_events.back(), event_packet_index_limit);
}

// Receiving streams that come and go (an SFU's) leave nothing behind: the SSRC map reuses
// removed slots. (A removed *sender* keeps its marks, at most 64 per key: then removal is
// refused and the session must be re-keyed, so its indexes cannot be reused.)
TEST_F(SrtpDropInUnit, ReceivedSsrcsComingAndGoingNeverFillTheSession) {
  Key key(7);
  srtp_policy_t out = policy(ssrc_any_outbound, 0, key);
  srtp_policy_t in = policy(ssrc_any_inbound, 0, key);
  srtp_t rx = nullptr;
  ASSERT_EQ(srtp_create(&rx, &in), srtp_err_status_ok);
  int len = 0;
  for (unsigned i = 0; i < 3000; ++i) {  // far more SSRCs than the map holds at once
    srtp_t tx = nullptr;  // each sender its own session: senders are not what is churned here
    ASSERT_EQ(srtp_create(&tx, &out), srtp_err_status_ok);
    Bytes pkt = rtp(0x10000 + i, 1);
    ASSERT_EQ(protect(tx, pkt, len), srtp_err_status_ok) << i;
    srtp_dealloc(tx);
    ASSERT_EQ(srtp_unprotect(rx, pkt.data(), &len), srtp_err_status_ok) << i;
    ASSERT_EQ(srtp_remove_stream(rx, htonl(0x10000 + i)), srtp_err_status_ok) << i;
  }
  srtp_dealloc(rx);
}

TEST_F(SrtpDropInUnit, BadArgumentsAreErrors) {
  Key key(6);
  srtp_policy_t p = policy(ssrc_any_outbound, 0, key);
  srtp_t s = nullptr;
  ASSERT_EQ(srtp_create(&s, &p), srtp_err_status_ok);
  Bytes pkt = rtp(kSsrc, 1);
  int len = 112;
  EXPECT_EQ(srtp_protect(nullptr, pkt.data(), &len), srtp_err_status_bad_param);
  EXPECT_EQ(srtp_protect(s, nullptr, &len), srtp_err_status_bad_param);
  EXPECT_EQ(srtp_protect(s, pkt.data(), nullptr), srtp_err_status_bad_param);
  len = -5;
  EXPECT_EQ(srtp_protect(s, pkt.data(), &len), srtp_err_status_bad_param);
  len = 0x7FFFFFFF;
  EXPECT_EQ(srtp_unprotect(s, pkt.data(), &len), srtp_err_status_bad_param);
  len = 11;
  EXPECT_EQ(srtp_protect_rtcp(s, pkt.data(), &len), srtp_err_status_ok);  // SSRC at 4..7: fine
  len = 7;
  EXPECT_EQ(srtp_unprotect_rtcp(s, pkt.data(), &len), srtp_err_status_bad_param);
  len = 40;
  EXPECT_EQ(srtp_unprotect(s, pkt.data(), &len), srtp_err_status_no_ctx);  // no inbound template
  EXPECT_EQ(srtp_add_stream(s, nullptr), srtp_err_status_bad_param);
  EXPECT_EQ(srtp_create(nullptr, &p), srtp_err_status_bad_param);
  p.key = nullptr;
  p.ssrc.type = ssrc_specific;
  EXPECT_EQ(srtp_add_stream(s, &p), srtp_err_status_bad_param);  // no key at all
  srtp_crypto_policy_set_aes_gcm_128_8_auth(&p.rtp);
  p.key = key.bytes;
  EXPECT_EQ(srtp_add_stream(s, &p), srtp_err_status_bad_param);  // 8-byte GCM tags: not offered
  EXPECT_EQ(srtp_dealloc(nullptr), srtp_err_status_bad_param);
  srtp_dealloc(s);
}

}  // namespace
}  // namespace wireseal::test
