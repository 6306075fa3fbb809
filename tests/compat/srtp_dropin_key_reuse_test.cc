// The drop-in never protects two packets under the same session key and index within one
// srtp_t, whatever the program does with one master key (issue 37, defect 4).
//
// RFC 3711's KDF (§4.3) makes the session keys from the cipher's key size, the master key and
// the master salt alone: the tag length and the MKI that names the key change nothing, and
// RFC 7714's AEAD profiles use the same KDF. So a stream re-added or updated under another tag
// length, or under another MKI list holding the same key, must continue above the indexes it
// used, for SRTP and SRTCP; and one master key may not serve AES-CM and AES-GCM at once (the
// two modes' counter blocks under that one key meet at other indexes, see docs/DESIGN.md).
//
// The walk at the end drives one master key through every profile, MKI list and stream
// operation and records each protected packet by (session key, RTP or RTCP, SSRC, index).
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "srtp2/srtp.h"

namespace wireseal::test {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr unsigned kSsrc = 0x0A0B0C0D;
constexpr int kRtcpLen = 28;  // the compound RTCP packet rtcp() builds

void put_be32(unsigned char* p, unsigned v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

unsigned load_be32(const unsigned char* p) {
  return unsigned{p[0]} << 24 | unsigned{p[1]} << 16 | unsigned{p[2]} << 8 | unsigned{p[3]};
}

Bytes rtp(unsigned ssrc, unsigned seq) {
  Bytes p(12 + 100 + SRTP_MAX_TRAILER_LEN + 4, 0x5A);
  p[0] = 0x80;
  p[1] = 96;
  p[2] = static_cast<unsigned char>(seq >> 8);
  p[3] = static_cast<unsigned char>(seq);
  put_be32(&p[8], ssrc);
  return p;
}

Bytes rtcp(unsigned ssrc) {
  Bytes p(kRtcpLen + SRTP_MAX_TRAILER_LEN + 4, 0x33);
  put_be32(&p[0], 0x80C80006);
  put_be32(&p[4], ssrc);
  return p;
}

// A master key and salt as libsrtp takes them: one buffer, the salt right after the key.
// Bytes 28-29 and 44-45 are zero, so that the 14-byte AES-CM salt of a 16- or 32-byte key is
// the 12-byte AES-GCM salt followed by zeros: the KDF then gives both ciphers the same
// session key (key_material.cc, crypto::srtp_kdf).
struct MasterKey {
  unsigned char bytes[SRTP_MAX_KEY_LEN] = {};
  unsigned char mki = 0;
  srtp_master_key_t entry{};
  MasterKey(int seed, unsigned char mki_id) : mki(mki_id) {
    for (int i = 0; i < SRTP_MAX_KEY_LEN; ++i) {
      bytes[i] = static_cast<unsigned char>(i * 37 + seed * 11 + 1);
    }
    bytes[28] = bytes[29] = bytes[44] = bytes[45] = 0;
    entry = {bytes, &mki, 1};
  }
  MasterKey(const MasterKey&) = delete;  // `entry` points into this object
  MasterKey& operator=(const MasterKey&) = delete;
};

// Profile is one libsrtp crypto policy pair and what decides its session keys.
struct Profile {
  const char* name;
  void (*rtp)(srtp_crypto_policy_t*);
  void (*rtcp)(srtp_crypto_policy_t*);
  char cipher;  // 'c' AES-CM, 'g' AES-GCM, 'n' NULL (no keystream)
  std::size_t key_len;
  std::size_t salt_len;
  std::size_t rtcp_tag_len;
};

void null_80(srtp_crypto_policy_t* p) { srtp_crypto_policy_set_null_cipher_hmac_sha1_80(p); }
void aes128_80(srtp_crypto_policy_t* p) { srtp_crypto_policy_set_rtp_default(p); }

const Profile kProfiles[] = {
    {"aes128_80", aes128_80, aes128_80, 'c', 16, 14, 10},
    {"aes128_32", srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32, aes128_80, 'c', 16, 14, 10},
    {"aes192_80", srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80,
     srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80, 'c', 24, 14, 10},
    {"aes192_32", srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32,
     srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80, 'c', 24, 14, 10},
    {"aes256_80", srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80,
     srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80, 'c', 32, 14, 10},
    {"aes256_32", srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32,
     srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80, 'c', 32, 14, 10},
    {"null_80", null_80, null_80, 'n', 16, 14, 10},
    {"gcm128", srtp_crypto_policy_set_aes_gcm_128_16_auth,
     srtp_crypto_policy_set_aes_gcm_128_16_auth, 'g', 16, 12, 16},
    {"gcm256", srtp_crypto_policy_set_aes_gcm_256_16_auth,
     srtp_crypto_policy_set_aes_gcm_256_16_auth, 'g', 32, 12, 16},
};
const Profile& kAes128_80 = kProfiles[0];
const Profile& kAes128_32 = kProfiles[1];
const Profile& kGcm128 = kProfiles[7];

// KeyList is how a policy names its master keys: policy.key alone, or policy.keys with MKIs.
struct KeyList {
  std::vector<MasterKey*> keys;
  bool mki = false;
};

// Policy is an srtp_policy_t with the key pointer array it refers to and what it was made of.
struct Policy {
  srtp_policy_t policy{};
  std::vector<srtp_master_key_t*> entries;
  const Profile* profile = nullptr;
  KeyList list;
};

Policy make_policy(srtp_ssrc_type_t type, unsigned ssrc, const Profile& profile,
                   const KeyList& list) {
  Policy s;
  s.profile = &profile;
  s.list = list;
  profile.rtp(&s.policy.rtp);
  profile.rtcp(&s.policy.rtcp);
  s.policy.ssrc.type = type;
  s.policy.ssrc.value = ssrc;
  if (list.mki) {
    for (MasterKey* k : list.keys) {
      s.entries.push_back(&k->entry);
    }
    s.policy.keys = s.entries.data();
    s.policy.num_master_keys = s.entries.size();
  } else {
    s.policy.key = list.keys.front()->bytes;
  }
  return s;
}

// policy_of is the srtp_policy_t, pointed at its own key array (a copied Policy moved it).
srtp_policy_t* policy_of(Policy& s) {
  if (s.list.mki) {
    s.policy.keys = s.entries.data();
  }
  return &s.policy;
}

srtp_err_status_t protect_rtp(srtp_t session, Bytes& p, const KeyList& list, unsigned key) {
  int len = 12 + 100;
  return srtp_protect_mki(session, p.data(), &len, list.mki ? 1 : 0, key);
}

// protect_rtcp protects rtcp(ssrc) and returns the SRTCP index it was sent under.
std::optional<unsigned> protect_rtcp(srtp_t session, unsigned ssrc, const Profile& profile,
                                     const KeyList& list, unsigned key) {
  Bytes p = rtcp(ssrc);
  int len = kRtcpLen;
  if (srtp_protect_rtcp_mki(session, p.data(), &len, list.mki ? 1 : 0, key) != srtp_err_status_ok) {
    return std::nullopt;
  }
  // E|index follows the packet (HMAC profiles) or the 16-byte GCM tag (RFC 7714 §9).
  const std::size_t at = kRtcpLen + (profile.cipher == 'g' ? profile.rtcp_tag_len : 0);
  return load_be32(&p[at]) & 0x7FFFFFFFu;
}

class SrtpDropInKeyReuse : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { srtp_init(); }
};

// sent_then_removed: a session whose stream kSsrc (under `s`) sent RTP 1..10 and SRTCP 1..3
// and was removed.
srtp_t sent_then_removed(Policy& s) {
  srtp_t tx = nullptr;
  EXPECT_EQ(srtp_create(&tx, policy_of(s)), srtp_err_status_ok);
  for (unsigned seq = 1; seq <= 10; ++seq) {
    Bytes p = rtp(kSsrc, seq);
    EXPECT_EQ(protect_rtp(tx, p, s.list, 0), srtp_err_status_ok);
  }
  for (unsigned i = 1; i <= 3; ++i) {
    EXPECT_EQ(protect_rtcp(tx, kSsrc, *s.profile, s.list, 0), i);
  }
  EXPECT_EQ(srtp_remove_stream(tx, htonl(kSsrc)), srtp_err_status_ok);
  return tx;
}

TEST_F(SrtpDropInKeyReuse, AnotherTagLengthUnderTheSameKeyContinuesAboveItsIndexes) {
  MasterKey k(1, 1);
  Policy long_tag = make_policy(ssrc_specific, kSsrc, kAes128_80, {{&k}, false});
  srtp_t tx = sent_then_removed(long_tag);
  // _32 derives the very session keys _80 did: index 5 again would repeat its keystream.
  Policy short_tag = make_policy(ssrc_specific, kSsrc, kAes128_32, {{&k}, false});
  ASSERT_EQ(srtp_add_stream(tx, policy_of(short_tag)), srtp_err_status_ok);
  Bytes again = rtp(kSsrc, 5);
  EXPECT_EQ(protect_rtp(tx, again, short_tag.list, 0), srtp_err_status_replay_fail)
      << "RTP index 5 protected a second time under the same session key";
  EXPECT_EQ(protect_rtcp(tx, kSsrc, kAes128_32, short_tag.list, 0), 4u)
      << "the SRTCP index restarted under the same session key";
  Bytes next = rtp(kSsrc, 11);
  EXPECT_EQ(protect_rtp(tx, next, short_tag.list, 0), srtp_err_status_ok);
  srtp_dealloc(tx);
}

TEST_F(SrtpDropInKeyReuse, AnMkiRolloverContinuesAboveTheIndexesOfTheKeyItKeeps) {
  MasterKey k1(2, 1);
  MasterKey k2(3, 2);
  Policy one = make_policy(ssrc_specific, kSsrc, kAes128_80, {{&k1}, true});
  srtp_t tx = nullptr;
  ASSERT_EQ(srtp_create(&tx, policy_of(one)), srtp_err_status_ok);
  for (unsigned seq = 1; seq <= 10; ++seq) {
    Bytes p = rtp(kSsrc, seq);
    ASSERT_EQ(protect_rtp(tx, p, one.list, 0), srtp_err_status_ok);
  }
  ASSERT_EQ(protect_rtcp(tx, kSsrc, kAes128_80, one.list, 0), 1u);
  // [K1] -> [K1, K2]: K1 still derives the same session keys under its MKI.
  Policy two = make_policy(ssrc_specific, kSsrc, kAes128_80, {{&k1, &k2}, true});
  ASSERT_EQ(srtp_update_stream(tx, policy_of(two)), srtp_err_status_ok);
  Bytes again = rtp(kSsrc, 5);
  EXPECT_EQ(protect_rtp(tx, again, two.list, 0), srtp_err_status_replay_fail)
      << "RTP index 5 protected a second time under K1";
  EXPECT_EQ(protect_rtcp(tx, kSsrc, kAes128_80, two.list, 0), 2u);
  // Removed and added again as [K2, K1]: K1 is MKI index 1 now, and still remembered.
  ASSERT_EQ(srtp_remove_stream(tx, htonl(kSsrc)), srtp_err_status_ok);
  Policy swapped = make_policy(ssrc_specific, kSsrc, kAes128_80, {{&k2, &k1}, true});
  ASSERT_EQ(srtp_add_stream(tx, policy_of(swapped)), srtp_err_status_ok);
  Bytes once_more = rtp(kSsrc, 7);
  EXPECT_EQ(protect_rtp(tx, once_more, swapped.list, 1), srtp_err_status_replay_fail)
      << "RTP index 7 protected a second time under K1";
  EXPECT_EQ(protect_rtcp(tx, kSsrc, kAes128_80, swapped.list, 1), 3u);
  srtp_dealloc(tx);
}

TEST_F(SrtpDropInKeyReuse, OneMasterKeyServesAesCmOrAesGcmNotBoth) {
  MasterKey k(4, 1);
  Policy cm = make_policy(ssrc_specific, kSsrc, kAes128_80, {{&k}, false});
  srtp_t tx = nullptr;
  ASSERT_EQ(srtp_create(&tx, policy_of(cm)), srtp_err_status_ok);
  // Another SSRC under AES-128-GCM: the same session key in another counter layout.
  Policy gcm = make_policy(ssrc_specific, kSsrc + 1, kGcm128, {{&k}, false});
  EXPECT_EQ(srtp_add_stream(tx, policy_of(gcm)), srtp_err_status_bad_param);
  Policy gcm_update = make_policy(ssrc_specific, kSsrc, kGcm128, {{&k}, false});
  EXPECT_EQ(srtp_update_stream(tx, policy_of(gcm_update)), srtp_err_status_bad_param);
  // NULL derives no encryption key from it: nothing to reuse.
  Policy null = make_policy(ssrc_specific, kSsrc + 4, kProfiles[6], {{&k}, false});
  EXPECT_EQ(srtp_add_stream(tx, policy_of(null)), srtp_err_status_ok);
  // With a salt whose last two bytes are not zero the KDF inputs differ: allowed.
  MasterKey other(7, 1);
  other.bytes[28] = 1;
  Policy cm_other = make_policy(ssrc_specific, kSsrc + 2, kAes128_80, {{&other}, false});
  Policy gcm_other = make_policy(ssrc_specific, kSsrc + 3, kGcm128, {{&other}, false});
  EXPECT_EQ(srtp_add_stream(tx, policy_of(cm_other)), srtp_err_status_ok);
  EXPECT_EQ(srtp_add_stream(tx, policy_of(gcm_other)), srtp_err_status_ok);
  srtp_dealloc(tx);
}

// --- the walk

// Family is what a session key is derived from: key length, master key (zero-padded to 32
// bytes), salt (zero-padded to 14).
using Family = std::array<unsigned char, 1 + 32 + 14>;

Family family_of(const Profile& p, const MasterKey& k) {
  Family f{};
  f[0] = static_cast<unsigned char>(p.key_len);
  std::memcpy(&f[1], k.bytes, p.key_len);
  std::memcpy(&f[1 + 32], k.bytes + p.key_len, p.salt_len);
  return f;
}

enum class Bound : std::uint8_t { kNone, kSpecific, kTemplate };

// same_keying: the drop-in keeps both policies' streams in one keying (one wireseal Session).
bool same_keying(const Policy& a, const Policy& b) {
  return a.profile == b.profile && a.list.keys == b.list.keys && a.list.mki == b.list.mki;
}

// Walk drives one srtp_t and checks every packet it protected.
class Walk {
 public:
  explicit Walk(unsigned seed) : rng_(seed) {}
  ~Walk() { srtp_dealloc(session_); }
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  void run(int steps) {
    ASSERT_EQ(srtp_create(&session_, nullptr), srtp_err_status_ok);
    for (int i = 0; i < steps && !::testing::Test::HasFatalFailure(); ++i) {
      step(i);
    }
    EXPECT_GT(protected_, 100u) << "the walk protected too little to prove anything";
  }

 private:
  static constexpr unsigned kSsrcs[] = {0x1000, 0x2000, 0x3000};

  unsigned pick(std::size_t n) { return static_cast<unsigned>(rng_() % n); }

  Policy random_setup(srtp_ssrc_type_t type, unsigned ssrc) {
    const Profile& p = kProfiles[pick(std::size(kProfiles))];
    std::vector<KeyList> lists = {
        {{&k_}, false}, {{&k_}, true}, {{&k_, &k2_}, true}, {{&k2_, &k_}, true}, {{&k2_}, true}};
    return make_policy(type, ssrc, p, lists[pick(lists.size())]);
  }

  // current is the Policy a protect of `ssrc` goes through, nullptr if none.
  Policy* current(unsigned ssrc) {
    switch (bound_[ssrc]) {
      case Bound::kSpecific:
        return &specific_[ssrc];
      case Bound::kTemplate:
        return outbound_ ? &*outbound_ : nullptr;
      case Bound::kNone:
        return outbound_ ? &*outbound_ : nullptr;  // the template would create the stream
    }
    return nullptr;
  }

  void step(int i) {
    const unsigned ssrc = kSsrcs[pick(std::size(kSsrcs))];
    const std::string where = "step " + std::to_string(i) + " ssrc " + std::to_string(ssrc);
    switch (pick(10)) {
      case 0:
        add(ssrc, where);
        break;
      case 1:
        update(ssrc, where);
        break;
      case 2:
        if (srtp_remove_stream(session_, htonl(ssrc)) == srtp_err_status_ok) {
          bound_[ssrc] = Bound::kNone;
        }
        break;
      case 3:
        template_change(where);
        break;
      case 4:
      case 5:
        send_rtcp(ssrc, where);
        break;
      default:
        send_rtp(ssrc, where);
        break;
    }
  }

  void add(unsigned ssrc, const std::string& where) {
    Policy s = random_setup(ssrc_specific, ssrc);
    const srtp_err_status_t r = srtp_add_stream(session_, policy_of(s));
    ASSERT_TRUE(r == srtp_err_status_ok || r == srtp_err_status_bad_param) << where << " " << r;
    if (r == srtp_err_status_ok) {
      ASSERT_EQ(bound_[ssrc], Bound::kNone) << where;
      specific_[ssrc] = s;
      bound_[ssrc] = Bound::kSpecific;
    }
  }

  void update(unsigned ssrc, const std::string& where) {
    Policy s = random_setup(ssrc_specific, ssrc);
    // srtp_update and srtp_update_stream take the same path for one policy: use both.
    const srtp_err_status_t r = pick(2) == 0 ? srtp_update(session_, policy_of(s))
                                             : srtp_update_stream(session_, policy_of(s));
    ASSERT_TRUE(r == srtp_err_status_ok || r == srtp_err_status_bad_param) << where << " " << r;
    // Under the keys it has (one keying), the stream goes on as it is: a stream the template
    // made stays the template's. Otherwise it moves to the new policy.
    const Policy* now = current(ssrc);
    if (r == srtp_err_status_ok && (now == nullptr || !same_keying(*now, s))) {
      specific_[ssrc] = s;
      bound_[ssrc] = Bound::kSpecific;
    }
  }

  // template_change adds the outbound template, or updates it (which moves its streams).
  void template_change(const std::string& where) {
    Policy s = random_setup(ssrc_any_outbound, 0);
    const bool had = outbound_.has_value();
    const srtp_err_status_t r =
        had ? srtp_update_stream(session_, policy_of(s)) : srtp_add_stream(session_, policy_of(s));
    ASSERT_TRUE(r == srtp_err_status_ok || r == srtp_err_status_bad_param) << where << " " << r;
    if (r == srtp_err_status_ok) {
      outbound_ = s;
    }
  }

  void send_rtp(unsigned ssrc, const std::string& where) {
    Policy* s = current(ssrc);
    const unsigned seq = 1 + pick(40);  // a small range: earlier indexes are tried again often
    const unsigned key = s != nullptr ? pick(s->list.keys.size()) : 0;
    Bytes p = rtp(ssrc, seq);
    const srtp_err_status_t r = protect_rtp(session_, p, s != nullptr ? s->list : KeyList{}, key);
    if (r != srtp_err_status_ok) {
      return;  // refused (replay_fail, no_ctx, bad_mki): nothing went out
    }
    ASSERT_NE(s, nullptr) << where;
    if (bound_[ssrc] == Bound::kNone) {
      bound_[ssrc] = Bound::kTemplate;
    }
    uint32_t roc = 99;
    ASSERT_EQ(srtp_get_stream_roc(session_, ssrc, &roc), srtp_err_status_ok);
    ASSERT_EQ(roc, 0u) << where;  // every sequence number here is small: index == seq
    record(*s, key, 'r', ssrc, seq, where);
  }

  void send_rtcp(unsigned ssrc, const std::string& where) {
    Policy* s = current(ssrc);
    if (s == nullptr) {
      return;
    }
    const unsigned key = pick(s->list.keys.size());
    const std::optional<unsigned> index = protect_rtcp(session_, ssrc, *s->profile, s->list, key);
    if (!index) {
      return;
    }
    if (bound_[ssrc] == Bound::kNone) {
      bound_[ssrc] = Bound::kTemplate;
    }
    record(*s, key, 'c', ssrc, *index, where);
  }

  // record notes a protected packet by its session key and index; each may occur once.
  void record(const Policy& s, unsigned key, char kind, unsigned ssrc, unsigned index,
              const std::string& where) {
    ++protected_;
    const Profile& p = *s.profile;
    if (p.cipher == 'n') {
      return;  // NULL encrypts nothing: there is no keystream to reuse
    }
    const Family f = family_of(p, *s.list.keys.at(key));
    const auto mode = cipher_of_.emplace(f, p.cipher).first;
    EXPECT_EQ(mode->second, p.cipher) << where << ": one master key under AES-CM and AES-GCM";
    const bool fresh = used_.emplace(f, kind, ssrc, index).second;
    EXPECT_TRUE(fresh) << where << ": " << (kind == 'r' ? "SRTP" : "SRTCP") << " index " << index
                       << " protected twice under one session key (" << p.name << ", key " << key
                       << " of " << s.list.keys.size() << ")";
  }

  std::mt19937 rng_;
  MasterKey k_{5, 1};
  MasterKey k2_{6, 2};
  srtp_t session_ = nullptr;
  std::map<unsigned, Bound> bound_;
  std::map<unsigned, Policy> specific_;
  std::optional<Policy> outbound_;
  std::map<Family, char> cipher_of_;
  std::set<std::tuple<Family, char, unsigned, unsigned>> used_;
  std::size_t protected_ = 0;
};

TEST_F(SrtpDropInKeyReuse, OneMasterKeyThroughEveryProfileMkiListAndStreamPathReusesNoIndex) {
  for (unsigned seed = 1; seed <= 40 && !HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Walk walk(seed);
    walk.run(600);
  }
}

}  // namespace
}  // namespace wireseal::test
