// Known-answer tests for SRTP/SRTCP packets (tests/vectors/srtp_packets.txt: RFC 6904 App. A,
// RFC 9335 App. A, libsrtp's reference packets over RFC 3711/6188 keys), and an RFC 7714
// AES-GCM packet check against an independent OpenSSL EVP construction: RFC 7714 §16's text
// is not reachable from this environment, so the expected packet is computed here from the
// RFC's formulas (KDF as AES-ECB over label||salt, §8.1 IV, header as AAD) with OpenSSL.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>

#include "srtp_test_util.h"
#include "support/hex.h"
#include "support/vector_file.h"

namespace wireseal::test {
namespace {

struct PacketVector {
  int line;
  srtp::Profile profile;
  bool rtcp;
  Bytes key, salt, plain, protected_packet, encrypted_ids;
  bool cryptex;
  std::uint32_t srtcp_index;
};

std::vector<PacketVector> load_packets() {
  std::vector<PacketVector> out;
  for (const VectorRecord& r : read_vector_file(vectors_dir() / "srtp_packets.txt")) {
    PacketVector v;
    v.line = r.line;
    v.profile = profile_by_name(r.get("Profile"));
    v.rtcp = r.get("Kind") == "rtcp";
    v.key = r.hex("MasterKey");
    v.salt = r.hex("MasterSalt");
    v.plain = r.hex("Plain");
    v.protected_packet = r.hex("Protected");
    v.cryptex = r.has("Cryptex");
    if (r.has("EncryptedIds")) {
      v.encrypted_ids = r.hex("EncryptedIds");
    }
    v.srtcp_index =
        r.has("SrtcpIndex") ? static_cast<std::uint32_t>(std::stoul(r.get("SrtcpIndex"))) : 1;
    out.push_back(std::move(v));
  }
  return out;
}

srtp::Session session_for(const PacketVector& v) {
  srtp::SessionConfig config;
  config.stream_defaults.cryptex = v.cryptex;
  config.stream_defaults.encrypted_extension_ids = v.encrypted_ids;
  return make_session(v.profile, {KeySet{v.key, v.salt, {}}}, config);
}

TEST(SrtpVectors, ProtectMatchesReferencePackets) {
  const std::vector<PacketVector> vectors = load_packets();
  ASSERT_GE(vectors.size(), 20u);
  for (const PacketVector& v : vectors) {
    SCOPED_TRACE("srtp_packets.txt line " + std::to_string(v.line));
    srtp::Session s = session_for(v);
    if (v.rtcp) {
      // Reach the vector's SRTCP index: each protect uses the next one, starting at 1.
      for (std::uint32_t i = 1; i < v.srtcp_index; ++i) {
        protect(s, v.plain, true);
      }
    }
    EXPECT_EQ(to_hex(protect(s, v.plain, v.rtcp)), to_hex(v.protected_packet));
  }
}

TEST(SrtpVectors, UnprotectRecoversReferencePlaintext) {
  for (const PacketVector& v : load_packets()) {
    SCOPED_TRACE("srtp_packets.txt line " + std::to_string(v.line));
    srtp::Session s = session_for(v);
    Error e{};
    EXPECT_EQ(to_hex(unprotect(s, v.protected_packet, v.rtcp, &e)), to_hex(v.plain))
        << to_string(e);
  }
}

TEST(SrtpVectors, OutOfPlaceMatchesInPlace) {
  for (const PacketVector& v : load_packets()) {
    SCOPED_TRACE("srtp_packets.txt line " + std::to_string(v.line));
    srtp::Session s = session_for(v);
    srtp::Session r = session_for(v);
    if (v.rtcp) {
      for (std::uint32_t i = 1; i < v.srtcp_index; ++i) {
        protect(s, v.plain, true);
      }
    }
    Bytes out(v.plain.size() + 64);
    Result<std::size_t> n = v.rtcp ? s.protect_rtcp(v.plain, out) : s.protect_rtp(v.plain, out);
    ASSERT_TRUE(n);
    out.resize(*n);
    EXPECT_EQ(to_hex(out), to_hex(v.protected_packet));
    Bytes plain(v.protected_packet.size());
    Result<std::span<std::uint8_t>> p = v.rtcp ? r.unprotect_rtcp(v.protected_packet, plain)
                                               : r.unprotect_rtp(v.protected_packet, plain);
    ASSERT_TRUE(p);
    EXPECT_EQ(to_hex(*p), to_hex(v.plain));
  }
}

// --- RFC 7714 with an independent OpenSSL construction.

Bytes evp_aes_ecb(const Bytes& key, const Bytes& block) {
  const EVP_CIPHER* c = key.size() == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb();
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  Bytes out(block.size() + 16);
  int n = 0;
  EVP_EncryptInit_ex(ctx, c, nullptr, key.data(), nullptr);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EVP_EncryptUpdate(ctx, out.data(), &n, block.data(), static_cast<int>(block.size()));
  EVP_CIPHER_CTX_free(ctx);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// RFC 3711 §4.3.1 with r = 0: x = label at byte 7 XOR salt (12-byte salt padded with zeros to
// 14, RFC 7714 §11 as libsrtp reads it); output = AES(k, x || 0x0000), AES(k, x || 0x0001)...
Bytes independent_kdf(const Bytes& master_key, const Bytes& master_salt, std::uint8_t label,
                      std::size_t len) {
  Bytes out;
  for (std::uint16_t block = 0; out.size() < len; ++block) {
    Bytes x(16, 0);
    std::copy(master_salt.begin(), master_salt.end(), x.begin());
    x[7] ^= label;
    x[14] = static_cast<std::uint8_t>(block >> 8);
    x[15] = static_cast<std::uint8_t>(block);
    Bytes b = evp_aes_ecb(master_key, x);
    out.insert(out.end(), b.begin(), b.end());
  }
  out.resize(len);
  return out;
}

Bytes evp_gcm_seal(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& plain) {
  const EVP_CIPHER* c = key.size() == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  Bytes out(plain.size() + 16);
  int n = 0;
  EVP_EncryptInit_ex(ctx, c, nullptr, key.data(), iv.data());
  EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size()));
  EVP_EncryptUpdate(ctx, out.data(), &n, plain.data(), static_cast<int>(plain.size()));
  EVP_EncryptFinal_ex(ctx, out.data() + n, &n);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out.data() + plain.size());
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

TEST(SrtpVectors, Rfc7714GcmPacketsMatchIndependentOpenSslConstruction) {
  for (srtp::Profile p : {srtp::Profile::kAeadAes128Gcm, srtp::Profile::kAeadAes256Gcm}) {
    const KeySet keys = make_keys(p, 9);
    const Bytes key = independent_kdf(keys.key, keys.salt, 0x00, srtp::info(p).session_key_len);
    const Bytes salt = independent_kdf(keys.key, keys.salt, 0x02, 12);
    const Bytes rtcp_key =
        independent_kdf(keys.key, keys.salt, 0x03, srtp::info(p).session_key_len);
    const Bytes rtcp_salt = independent_kdf(keys.key, keys.salt, 0x05, 12);
    srtp::SessionConfig config;
    config.stream_defaults.roc = 0x12345;
    srtp::Session s = make_session(p, {keys}, config);
    const std::uint32_t ssrc = 0xcafebabe;
    for (std::uint16_t seq : {std::uint16_t{1}, std::uint16_t{2}, std::uint16_t{0x8000}}) {
      const Bytes plain = rtp_packet(ssrc, seq, 45, 2);
      // RFC 7714 §8.1: IV = (0x0000 || SSRC || ROC || SEQ) XOR salt; AAD = the RTP header.
      Bytes iv(12, 0);
      const std::uint8_t fields[10] = {0xca,
                                       0xfe,
                                       0xba,
                                       0xbe,
                                       0x00,
                                       0x01,
                                       0x23,
                                       0x45,
                                       static_cast<std::uint8_t>(seq >> 8),
                                       static_cast<std::uint8_t>(seq)};
      std::memcpy(iv.data() + 2, fields, sizeof(fields));
      for (std::size_t i = 0; i < 12; ++i) {
        iv[i] ^= salt[i];
      }
      const std::size_t header = 12 + 8;
      Bytes expected(plain.begin(), plain.begin() + header);
      const Bytes sealed =
          evp_gcm_seal(key, iv, expected, Bytes(plain.begin() + header, plain.end()));
      expected.insert(expected.end(), sealed.begin(), sealed.end());
      EXPECT_EQ(to_hex(protect(s, plain)), to_hex(expected))
          << srtp::info(p).name << " seq " << seq;
    }
    // SRTCP, RFC 7714 §9.1: IV = (0x0000 || SSRC || 0x0000 || 0 || index) XOR salt, AAD =
    // header (8) || E|index, then ciphertext || tag || E|index.
    const Bytes rtcp = rtcp_packet(ssrc, 32);
    Bytes iv(12, 0);
    const std::uint8_t fields[10] = {0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0, 0, 1};
    std::memcpy(iv.data() + 2, fields, sizeof(fields));
    for (std::size_t i = 0; i < 12; ++i) {
      iv[i] ^= rtcp_salt[i];
    }
    Bytes aad(rtcp.begin(), rtcp.begin() + 8);
    const Bytes word = {0x80, 0, 0, 1};
    aad.insert(aad.end(), word.begin(), word.end());
    const Bytes sealed = evp_gcm_seal(rtcp_key, iv, aad, Bytes(rtcp.begin() + 8, rtcp.end()));
    Bytes expected(rtcp.begin(), rtcp.begin() + 8);
    expected.insert(expected.end(), sealed.begin(), sealed.end());
    expected.insert(expected.end(), word.begin(), word.end());
    EXPECT_EQ(to_hex(protect(s, rtcp, true)), to_hex(expected)) << srtp::info(p).name;
  }
}

TEST(SrtpProfiles, TableMatchesRfcSizes) {
  EXPECT_EQ(srtp::info(srtp::Profile::kAes128CmHmacSha1_32).rtp_tag_len, 4u);
  EXPECT_EQ(srtp::info(srtp::Profile::kAes128CmHmacSha1_32).rtcp_tag_len, 10u);
  EXPECT_EQ(srtp::info(srtp::Profile::kAes192CmHmacSha1_80).master_key_len, 24u);
  EXPECT_EQ(srtp::info(srtp::Profile::kAeadAes256Gcm).master_salt_len, 12u);
  EXPECT_EQ(srtp::keying_material_size(srtp::Profile::kAes128CmHmacSha1_80), 60u);
  EXPECT_EQ(srtp::keying_material_size(srtp::Profile::kAeadAes128Gcm), 56u);
  EXPECT_EQ(srtp::profile_from_dtls_srtp_id(0x0007), srtp::Profile::kAeadAes128Gcm);
  EXPECT_EQ(srtp::profile_from_dtls_srtp_id(0x0001), srtp::Profile::kAes128CmHmacSha1_80);
  EXPECT_FALSE(srtp::profile_from_dtls_srtp_id(0x0003).has_value());
  for (srtp::Profile p : kAllProfiles) {
    EXPECT_EQ(srtp::info(p).profile, p);
  }
}

}  // namespace
}  // namespace wireseal::test
