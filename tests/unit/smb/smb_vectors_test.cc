// Known-answer tests: Microsoft's published SMB 3.0 / 3.1.1 vectors (key derivation,
// pre-authentication hash, CCM and GCM transforms) plus independently computed ones for the
// cases Microsoft published none for (AES-256, 3.1.1 CCM, CMAC/GMAC/HMAC signatures). Each is
// also cross-checked against OpenSSL EVP, so a transcription error cannot pass silently.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <string>

#include "smb_test_util.h"
#include "support/hex.h"
#include "support/vector_file.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {
namespace {

using test::Bytes;
using wireseal::test::read_vector_file;
using wireseal::test::to_hex;
using wireseal::test::vectors_dir;

Bytes span_bytes(std::span<const std::uint8_t> s) { return Bytes(s.begin(), s.end()); }

// OpenSSL's KBKDF (counter mode, HMAC-SHA256, r = 32) as the independent KDF.
Bytes evp_kbkdf(std::span<const std::uint8_t> key, const Bytes& label, const Bytes& context,
                std::size_t len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "KBKDF", nullptr);
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, const_cast<char*>("HMAC"), 0),
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(key.data()),
                                        key.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
                                        const_cast<std::uint8_t*>(label.data()), label.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
                                        const_cast<std::uint8_t*>(context.data()), context.size()),
      OSSL_PARAM_construct_end()};
  Bytes out(len);
  const int rc = EVP_KDF_derive(ctx, out.data(), out.size(), params);
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  EXPECT_EQ(rc, 1);
  return out;
}

Bytes text(const char* s, std::size_t n) {
  return Bytes(reinterpret_cast<const std::uint8_t*>(s),
               reinterpret_cast<const std::uint8_t*>(s) + n);
}

TEST(SmbKdf, MicrosoftAndComputedVectors) {
  const auto records = read_vector_file(vectors_dir() / "smb_kdf.txt");
  ASSERT_EQ(records.size(), 6u);
  for (const auto& r : records) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    const auto dialect = static_cast<Dialect>(std::stoul(r.get("Dialect"), nullptr, 16));
    const Cipher cipher = test::cipher_from_name(r.get("Cipher"));
    const Bytes sk = r.hex("SessionKey");
    const Bytes pre = r.has("PreauthHash") ? r.hex("PreauthHash") : Bytes{};
    const Result<SessionKeys> keys = derive_session_keys(dialect, cipher, sk, pre);
    ASSERT_TRUE(keys);
    const bool v311 = dialect == Dialect::kSmb311;
    const std::span<const std::uint8_t> sk16 = std::span<const std::uint8_t>(sk).first(16);
    const std::span<const std::uint8_t> cipher_kdk =
        info(cipher).key_len == 32 ? std::span<const std::uint8_t>(sk) : sk16;
    const std::size_t klen = info(cipher).key_len;
    if (r.has("ClientToServer")) {
      EXPECT_EQ(span_bytes(keys->client_to_server_key()), r.hex("ClientToServer"));
      EXPECT_EQ(span_bytes(keys->client_to_server_key()),
                evp_kbkdf(cipher_kdk, v311 ? text("SMBC2SCipherKey", 16) : text("SMB2AESCCM", 11),
                          v311 ? pre : text("ServerIn ", 10), klen));
    }
    if (r.has("ServerToClient")) {
      EXPECT_EQ(span_bytes(keys->server_to_client_key()), r.hex("ServerToClient"));
      EXPECT_EQ(span_bytes(keys->server_to_client_key()),
                evp_kbkdf(cipher_kdk, v311 ? text("SMBS2CCipherKey", 16) : text("SMB2AESCCM", 11),
                          v311 ? pre : text("ServerOut", 10), klen));
    }
    if (r.has("SigningKey")) {
      EXPECT_EQ(span_bytes(keys->signing), r.hex("SigningKey"));
      EXPECT_EQ(span_bytes(keys->signing),
                evp_kbkdf(sk16, v311 ? text("SMBSigningKey", 14) : text("SMB2AESCMAC", 12),
                          v311 ? pre : text("SmbSign", 8), 16));
    }
    if (r.has("ApplicationKey")) {
      EXPECT_EQ(span_bytes(keys->application), r.hex("ApplicationKey"));
      EXPECT_EQ(span_bytes(keys->application),
                evp_kbkdf(sk16, v311 ? text("SMBAppKey", 10) : text("SMB2APP", 8),
                          v311 ? pre : text("SmbRpc", 7), 16));
    }
  }
}

TEST(SmbKdf, RejectsBadInputs) {
  const Bytes sk(16, 1);
  const Bytes pre(64, 2);
  EXPECT_EQ(derive_session_keys(Dialect::kSmb311, Cipher::kAes128Gcm, sk, {}).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(derive_session_keys(Dialect::kSmb302, Cipher::kAes256Gcm, sk, pre).error(),
            Error::kInvalidArgument);  // AES-256 is a 3.1.1 cipher
  // NTLM's full session key is its 16-byte session key: AES-256 keys come from those 16 bytes.
  const Result<SessionKeys> ntlm256 =
      derive_session_keys(Dialect::kSmb311, Cipher::kAes256Gcm, sk, pre);
  ASSERT_TRUE(ntlm256);
  std::array<std::uint8_t, 32> c2s{};
  ASSERT_TRUE(smb3_kdf(sk, text("SMBC2SCipherKey", 16), pre, c2s));
  EXPECT_TRUE(std::equal(c2s.begin(), c2s.end(), ntlm256->client_to_server.begin()));
  EXPECT_EQ(derive_session_keys(Dialect::kSmb300, Cipher::kAes128Ccm, Bytes(8, 1)).error(),
            Error::kInvalidArgument);
  const Result<SessionKeys> v2 = derive_session_keys(Dialect::kSmb210, Cipher::kAes128Ccm, sk);
  ASSERT_TRUE(v2);
  EXPECT_EQ(span_bytes(v2->signing), sk);
}

TEST(SmbPreauth, MicrosoftExchange) {
  const auto records = read_vector_file(vectors_dir() / "smb_preauth.txt");
  ASSERT_EQ(records.size(), 5u);
  PreauthHash h;
  for (const auto& r : records) {
    ASSERT_TRUE(h.update(r.hex("Message")));
    EXPECT_EQ(span_bytes(h.value()), r.hex("Hash")) << "line " << r.line;
  }
  // The final value keys the Microsoft 3.1.1 signing-key vector.
  const Bytes sk = wireseal::test::from_hex("270E1BA896585EEB7AF3472D3B4C75A7");
  const Result<SessionKeys> keys =
      derive_session_keys(Dialect::kSmb311, Cipher::kAes128Gcm, sk, h.value());
  ASSERT_TRUE(keys);
  EXPECT_EQ(to_hex(keys->signing), "73fe7a9a77bef0bde49c650d8ccb5f76");
}

TEST(SmbTransform, MicrosoftAndComputedVectors) {
  const auto records = read_vector_file(vectors_dir() / "smb_encryption.txt");
  ASSERT_EQ(records.size(), 7u);
  for (const auto& r : records) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    const Cipher cipher = test::cipher_from_name(r.get("Cipher"));
    const Bytes key = r.hex("Key");
    const std::uint64_t sid = std::stoull(r.get("SessionId"), nullptr, 16);
    const Bytes message = r.hex("Message");
    const Bytes transformed = r.hex("Transformed");
    const std::span<const std::uint8_t> nonce_field =
        std::span<const std::uint8_t>(transformed).subspan(20, 16);
    // Independent oracle: OpenSSL EVP over the same nonce field reproduces the vector.
    EXPECT_EQ(test::evp_transform_seal(cipher, key, nonce_field, sid, message), transformed);
    // Decode.
    const Result<TransformHeader> th = decode_transform_header(transformed);
    ASSERT_TRUE(th);
    EXPECT_EQ(th->session_id, sid);
    EXPECT_EQ(th->original_message_size, message.size());
    EXPECT_EQ(th->flags, kTransformFlagEncrypted);
    // Open in place.
    Bytes buf = transformed;
    TransformOpener opener(cipher, key, sid);
    const Result<std::span<std::uint8_t>> plain = opener.open(buf);
    ASSERT_TRUE(plain);
    EXPECT_EQ(span_bytes(*plain), message);
    EXPECT_EQ(plain->data(), buf.data() + kTransformHeaderSize);
    // Re-seal bit for bit when the nonce is one our scheme produces (unused bytes zero):
    // counter = first 8 bytes (LE), salt = the rest of the used nonce.
    const std::size_t n = info(cipher).nonce_len;
    bool zero_tail = true;
    for (std::size_t i = n; i < 16; ++i) {
      zero_tail = zero_tail && nonce_field[i] == 0;
    }
    if (zero_tail) {
      std::uint64_t counter = 0;
      for (int i = 7; i >= 0; --i) {
        counter = counter << 8 | nonce_field[static_cast<std::size_t>(i)];
      }
      const Bytes salt(nonce_field.begin() + 8, nonce_field.begin() + static_cast<long>(n));
      TransformSealer sealer(
          cipher, key, sid,
          TransformSealerOptions{.random = test::fixed_random(&salt), .first_counter = counter});
      Bytes out(kTransformHeaderSize + message.size());
      std::copy(message.begin(), message.end(), out.begin() + kTransformHeaderSize);
      const Result<std::size_t> len = sealer.seal(out, message.size());
      ASSERT_TRUE(len);
      EXPECT_EQ(out, transformed);
    }
  }
}

TEST(SmbSigning, ComputedVectorsAgainstEvp) {
  const auto records = read_vector_file(vectors_dir() / "smb_signing.txt");
  ASSERT_EQ(records.size(), 5u);
  for (const auto& r : records) {
    SCOPED_TRACE("line " + std::to_string(r.line));
    const std::string alg = r.get("Algorithm");
    const SigningAlgorithm a = alg == "HMAC-SHA256"    ? SigningAlgorithm::kHmacSha256
                               : alg == "AES-128-CMAC" ? SigningAlgorithm::kAesCmac
                                                       : SigningAlgorithm::kAesGmac;
    const Bytes key = r.hex("Key");
    Bytes message = r.hex("Message");
    Signer signer(a, key);
    Bytes mac(16);
    ASSERT_TRUE(signer.compute(message, mac));
    EXPECT_EQ(mac, r.hex("Signature"));
    // Oracle: EVP with the nonce built from the spec's rule, not from our code.
    Bytes iv(message.begin() + 24, message.begin() + 32);
    const bool response = (message[16] & 1) != 0;
    const bool cancel = message[12] == 0x0C && message[13] == 0;
    iv.push_back(static_cast<std::uint8_t>((response ? 1 : 0) | (cancel ? 2 : 0)));
    iv.resize(12, 0);
    EXPECT_EQ(test::evp_mac(alg, key, iv, message), r.hex("Signature"));
    // sign() writes it into the header; verify() accepts it.
    ASSERT_TRUE(signer.sign(message));
    EXPECT_EQ(Bytes(message.begin() + 48, message.begin() + 64), r.hex("Signature"));
    EXPECT_TRUE(signer.verify(message));
  }
}

}  // namespace
}  // namespace wireseal::smb
