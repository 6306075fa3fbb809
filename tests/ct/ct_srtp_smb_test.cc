// Constant time in SRTP/SRTCP unprotect (every profile, single and batch, good and forged
// packets) and SMB transform open and signature verification (every cipher and algorithm).
// Packets and messages are protected under public keys; the receiving side's keys are secret.
#include <gtest/gtest.h>

#include <string>

#include "ct_util.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"
#include "wireseal/srtp/session.h"

namespace wireseal::test {
namespace {

constexpr srtp::Profile kProfiles[] = {
    srtp::Profile::kAes128CmHmacSha1_80, srtp::Profile::kAes128CmHmacSha1_32,
    srtp::Profile::kAes192CmHmacSha1_80, srtp::Profile::kAes192CmHmacSha1_32,
    srtp::Profile::kAes256CmHmacSha1_80, srtp::Profile::kAes256CmHmacSha1_32,
    srtp::Profile::kNullHmacSha1_80,     srtp::Profile::kNullHmacSha1_32,
    srtp::Profile::kAeadAes128Gcm,       srtp::Profile::kAeadAes256Gcm};

// HeaderProtection is how a run protects RTP headers: not at all, RFC 6904 or RFC 9335.
enum class HeaderProtection { kNone, kRfc6904, kCryptex };

// rtp builds a packet with two CSRCs and a one-byte-form extension (IDs 1 and 2).
Bytes rtp(std::uint16_t seq, std::size_t payload) {
  Bytes p = {0x92,
             96,
             static_cast<std::uint8_t>(seq >> 8),
             static_cast<std::uint8_t>(seq),
             0,
             0,
             0,
             1,
             0x11,
             0x22,
             0x33,
             0x44};
  const Bytes csrcs = pattern(8, 9);
  p.insert(p.end(), csrcs.begin(), csrcs.end());
  const Bytes extension = {0xBE, 0xDE, 0, 2, 0x10, 0xAA, 0x21, 0xBB, 0xCC, 0, 0, 0};
  p.insert(p.end(), extension.begin(), extension.end());
  const Bytes body = pattern(payload, static_cast<std::uint8_t>(seq));
  p.insert(p.end(), body.begin(), body.end());
  return p;
}

Bytes rtcp(std::size_t len) {
  Bytes p = pattern(len, 3);
  p[0] = 0x80;
  p[1] = 200;
  p[4] = 0x11;
  p[5] = 0x22;
  p[6] = 0x33;
  p[7] = 0x44;
  return p;
}

TEST(CtSrtp, UnprotectEveryProfileSingleAndBatch) {
  const std::uint8_t encrypted_ids[] = {1, 2};
  for (srtp::Profile profile : kProfiles) {
    for (HeaderProtection hp :
         {HeaderProtection::kNone, HeaderProtection::kRfc6904, HeaderProtection::kCryptex}) {
      const srtp::ProfileInfo& info = srtp::info(profile);
      SCOPED_TRACE(std::string(info.name) + " header protection " +
                   std::to_string(static_cast<int>(hp)));
      Bytes key = pattern(info.master_key_len, 1);
      Bytes salt = pattern(info.master_salt_len, 2);
      const Bytes mki = {0x01, 0x02};
      const srtp::MasterKey master{key, salt, mki};
      srtp::SessionConfig config;
      config.profile = profile;
      config.keys = {&master, 1};
      config.mki_len = mki.size();
      config.stream_defaults.cryptex = hp == HeaderProtection::kCryptex;
      if (hp == HeaderProtection::kRfc6904) {
        config.stream_defaults.encrypted_extension_ids = encrypted_ids;
      }
      srtp::Session tx(config);
      std::vector<Bytes> packets;
      for (std::uint16_t seq = 1; seq <= 24; ++seq) {
        Bytes p = rtp(seq, 40u + 50u * seq);
        const std::size_t n = p.size();
        p.resize(n + tx.rtp_overhead());
        p.resize(*tx.protect_rtp(p, n));
        if (seq % 3 == 0) {
          p[p.size() - 2] ^= 0x08;  // forged
        }
        packets.push_back(p);
      }
      Bytes control = rtcp(60);
      const std::size_t rtcp_len = control.size();
      control.resize(rtcp_len + tx.rtcp_overhead());
      control.resize(*tx.protect_rtcp(control, rtcp_len));

      secret(key);
      secret(salt);
      srtp::Session rx(config);
      srtp::Session rx_batch(config);
      for (std::size_t i = 0; i < packets.size(); ++i) {
        Bytes copy = packets[i];
        EXPECT_EQ(rx.unprotect_rtp(copy).has_value(), (i + 1) % 3 != 0) << i;
      }
      std::vector<srtp::PacketJob> jobs;
      for (Bytes& p : packets) {
        jobs.push_back({p, p.size(), {}});
      }
      rx_batch.unprotect_rtp_batch(jobs);
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        EXPECT_EQ(jobs[i].status.has_value(), (i + 1) % 3 != 0) << i;
      }
      EXPECT_TRUE(rx.unprotect_rtcp(control));
      // Protecting under secret keys.
      srtp::Session secret_tx(config);
      Bytes p = rtp(7, 500);
      secret({p.data() + 32, p.size() - 32});  // the payload
      const std::size_t n = p.size();
      p.resize(n + secret_tx.rtp_overhead());
      EXPECT_TRUE(secret_tx.protect_rtp(p, n));
    }
  }
}

TEST(CtSmb, TransformOpenEveryCipher) {
  for (smb::Cipher cipher : {smb::Cipher::kAes128Ccm, smb::Cipher::kAes128Gcm,
                             smb::Cipher::kAes256Ccm, smb::Cipher::kAes256Gcm}) {
    SCOPED_TRACE(smb::to_string(cipher));
    Bytes key = pattern(smb::info(cipher).key_len, 4);
    smb::TransformSealer sealer(cipher, key, 77);
    std::vector<Bytes> messages;
    for (std::size_t n : {64u, 65u, 1000u, 4096u}) {
      const Bytes msg = pattern(n, 6);
      Bytes out(smb::transformed_size(n));
      ASSERT_TRUE(sealer.seal(msg, out));
      messages.push_back(out);
      out[60] ^= 1;
      messages.push_back(out);
    }
    secret(key);
    smb::TransformOpener opener(cipher, key, 77);
    for (std::size_t i = 0; i < messages.size(); ++i) {
      EXPECT_EQ(opener.open(messages[i]).has_value(), i % 2 == 0) << i;
    }
  }
}

TEST(CtSmb, SignatureVerifyEveryAlgorithm) {
  for (smb::SigningAlgorithm alg :
       {smb::SigningAlgorithm::kHmacSha256, smb::SigningAlgorithm::kAesCmac,
        smb::SigningAlgorithm::kAesGmac}) {
    Bytes key = pattern(16, 8);
    smb::Signer signer(alg, key);
    Bytes msg = pattern(300, 10);
    const Bytes protocol = {0xFE, 'S', 'M', 'B'};
    std::copy(protocol.begin(), protocol.end(), msg.begin());
    msg[4] = 64;
    msg[5] = 0;
    ASSERT_TRUE(signer.sign(msg));
    Bytes forged = msg;
    forged[100] ^= 1;
    secret(key);
    smb::Signer verifier(alg, key);
    EXPECT_TRUE(verifier.verify(msg));
    EXPECT_FALSE(verifier.verify(forged));
  }
}

}  // namespace
}  // namespace wireseal::test
