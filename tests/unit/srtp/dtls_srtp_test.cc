// RFC 5764 §4.2 keying-material split, checked by hand against a counting pattern: byte i of
// the material is i, so each value's first and last byte give its position directly.
#include "wireseal/srtp/dtls_srtp.h"

#include <gtest/gtest.h>

#include <numeric>

#include "srtp_test_util.h"
#include "support/hex.h"

namespace wireseal::test {
namespace {

using srtp::DtlsRole;
using srtp::Profile;

Bytes counting(std::size_t n) {
  Bytes b(n);
  std::iota(b.begin(), b.end(), std::uint8_t{0});
  return b;
}

TEST(DtlsSrtpKeying, Aes128CmSplitsKeysThenSalts) {
  // 16 + 16 + 14 + 14 = 60 bytes.
  const Bytes m = counting(60);
  Result<srtp::DtlsSrtpKeys> k = srtp::split_keying_material(Profile::kAes128CmHmacSha1_80, m);
  ASSERT_TRUE(k);
  EXPECT_EQ(to_hex(k->client_key()), "000102030405060708090a0b0c0d0e0f");
  EXPECT_EQ(to_hex(k->server_key()), "101112131415161718191a1b1c1d1e1f");
  EXPECT_EQ(to_hex(k->client_salt()), "202122232425262728292a2b2c2d");
  EXPECT_EQ(to_hex(k->server_salt()), "2e2f303132333435363738393a3b");
}

TEST(DtlsSrtpKeying, SizesPerProfile) {
  struct Case {
    Profile profile;
    std::size_t key, salt;
  };
  const Case cases[] = {
      {Profile::kAes128CmHmacSha1_80, 16, 14}, {Profile::kAes128CmHmacSha1_32, 16, 14},
      {Profile::kAes256CmHmacSha1_80, 32, 14}, {Profile::kNullHmacSha1_80, 16, 14},
      {Profile::kNullHmacSha1_32, 16, 14},     {Profile::kAeadAes128Gcm, 16, 12},
      {Profile::kAeadAes256Gcm, 32, 12},
  };
  for (const Case& c : cases) {
    const std::size_t total = 2 * (c.key + c.salt);
    EXPECT_EQ(srtp::keying_material_size(c.profile), total) << srtp::info(c.profile).name;
    const Bytes m = counting(total);
    Result<srtp::DtlsSrtpKeys> k = srtp::split_keying_material(c.profile, m);
    ASSERT_TRUE(k) << srtp::info(c.profile).name;
    ASSERT_EQ(k->client_key().size(), c.key);
    ASSERT_EQ(k->client_salt().size(), c.salt);
    EXPECT_EQ(k->client_key().front(), 0);
    EXPECT_EQ(k->server_key().front(), c.key);
    EXPECT_EQ(k->client_salt().front(), 2 * c.key);
    EXPECT_EQ(k->server_salt().front(), 2 * c.key + c.salt);
    EXPECT_EQ(k->server_salt().back(), total - 1);
    EXPECT_FALSE(srtp::split_keying_material(c.profile, counting(total - 1)));
    EXPECT_FALSE(srtp::split_keying_material(c.profile, counting(total + 1)));
  }
}

TEST(DtlsSrtpKeying, AeadAes256GcmByHand) {
  // 32 + 32 + 12 + 12 = 88 bytes: keys 0x00..0x1f and 0x20..0x3f, salts 0x40..0x4b, 0x4c..0x57.
  const Bytes m = counting(88);
  Result<srtp::DtlsSrtpKeys> k = srtp::split_keying_material(Profile::kAeadAes256Gcm, m);
  ASSERT_TRUE(k);
  EXPECT_EQ(to_hex(k->server_key()),
            "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f");
  EXPECT_EQ(to_hex(k->client_salt()), "404142434445464748494a4b");
  EXPECT_EQ(to_hex(k->server_salt()), "4c4d4e4f5051525354555657");
}

// Each side protects with its own write key and unprotects with the peer's: a client session
// built from local(kClient) talks to a server session built from remote(kServer).
TEST(DtlsSrtpKeying, RolesPickOppositeKeys) {
  for (Profile p : kAllProfiles) {
    if (srtp::info(p).dtls_srtp_id == 0) {
      continue;
    }
    const Bytes m = counting(srtp::keying_material_size(p));
    Result<srtp::DtlsSrtpKeys> k = srtp::split_keying_material(p, m);
    ASSERT_TRUE(k);
    const srtp::MasterKey client_tx[] = {k->local(DtlsRole::kClient)};
    const srtp::MasterKey server_rx[] = {k->remote(DtlsRole::kServer)};
    const srtp::MasterKey server_tx[] = {k->local(DtlsRole::kServer)};
    srtp::SessionConfig c;
    c.profile = p;
    c.keys = client_tx;
    srtp::Session tx(c);
    c.keys = server_rx;
    srtp::Session rx(c);
    c.keys = server_tx;
    srtp::Session wrong(c);
    const Bytes plain = rtp_packet(5, 1, 100);
    const Bytes prot = protect(tx, plain);
    EXPECT_EQ(unprotect(rx, prot), plain) << srtp::info(p).name;
    EXPECT_TRUE(unprotect(wrong, prot).empty()) << srtp::info(p).name;
  }
}

}  // namespace
}  // namespace wireseal::test
