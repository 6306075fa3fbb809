// PublicKey/PrivateKey (TLS signature schemes over OpenSSL): every scheme each key type takes
// signs and verifies and catches a flipped bit; the rest are refused; keys survive PEM and
// DER; signatures cross-checked against OpenSSL's EVP API used directly (RSA-PSS with the
// salt as long as the hash, ECDSA, PKCS#1 v1.5); Ed25519 against RFC 8032 §7.1 TEST 1.
#include "wireseal/crypto/signature.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/hex.h"

namespace wireseal::test {
namespace {

using crypto::KeyType;
using crypto::PrivateKey;
using crypto::PublicKey;
using crypto::SignatureScheme;
using Bytes = std::vector<std::uint8_t>;

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const noexcept { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;
using Key = Owned<EVP_PKEY, EVP_PKEY_free>;

constexpr KeyType kKeyTypes[] = {KeyType::kRsa, KeyType::kEcP256, KeyType::kEcP384,
                                 KeyType::kEd25519};
constexpr SignatureScheme kSchemes[] = {
    SignatureScheme::kRsaPkcs1Sha1,         SignatureScheme::kEcdsaSha1,
    SignatureScheme::kRsaPkcs1Sha256,       SignatureScheme::kRsaPkcs1Sha384,
    SignatureScheme::kRsaPkcs1Sha512,       SignatureScheme::kEcdsaSecp256r1Sha256,
    SignatureScheme::kEcdsaSecp384r1Sha384, SignatureScheme::kEcdsaSecp521r1Sha512,
    SignatureScheme::kRsaPssRsaeSha256,     SignatureScheme::kRsaPssRsaeSha384,
    SignatureScheme::kRsaPssRsaeSha512,     SignatureScheme::kEd25519,
};

// expect_supported states the TLS 1.2 pairing rule from the code points alone: the low byte is
// the signature algorithm (1 RSA, 3 ECDSA), 0x0804..0x0806 are PSS-rsae, 0x0807 Ed25519.
bool expect_supported(KeyType type, SignatureScheme scheme) {
  const auto code = static_cast<std::uint16_t>(scheme);
  if (code >= 0x0804 && code <= 0x0806) {
    return type == KeyType::kRsa;
  }
  if (code == 0x0807) {
    return type == KeyType::kEd25519;
  }
  if ((code & 0xFF) == 0x01) {
    return type == KeyType::kRsa;
  }
  return (code & 0xFF) == 0x03 && (type == KeyType::kEcP256 || type == KeyType::kEcP384);
}

Bytes message_bytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

// certificate_of wraps an OpenSSL key in a self-signed certificate, the way a peer's key
// reaches PublicKey.
Bytes certificate_of(EVP_PKEY* key) {
  const Owned<X509, X509_free> cert(X509_new());
  EXPECT_EQ(X509_set_version(cert.get(), X509_VERSION_3), 1);
  EXPECT_EQ(ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1), 1);
  X509_NAME* name = X509_get_subject_name(cert.get());
  EXPECT_EQ(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                       reinterpret_cast<const unsigned char*>("test"), -1, -1, 0),
            1);
  EXPECT_EQ(X509_set_issuer_name(cert.get(), name), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  EXPECT_EQ(X509_set_pubkey(cert.get(), key), 1);
  const bool ed = EVP_PKEY_is_a(key, "ED25519") == 1 || EVP_PKEY_is_a(key, "ED448") == 1;
  EXPECT_GT(X509_sign(cert.get(), key, ed ? nullptr : EVP_sha256()), 0);
  unsigned char* der = nullptr;
  const int n = i2d_X509(cert.get(), &der);
  EXPECT_GT(n, 0);
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

Bytes pkcs8_der(EVP_PKEY* key) {
  const Owned<PKCS8_PRIV_KEY_INFO, PKCS8_PRIV_KEY_INFO_free> info(EVP_PKEY2PKCS8(key));
  EXPECT_NE(info, nullptr);
  unsigned char* der = nullptr;
  const int n = i2d_PKCS8_PRIV_KEY_INFO(info.get(), &der);
  EXPECT_GT(n, 0);
  Bytes out(der, der + n);
  OPENSSL_clear_free(der, static_cast<std::size_t>(n));
  return out;
}

// bio_text is what an OpenSSL PEM writer put into a memory BIO.
Bytes bio_text(BIO* bio) {
  BUF_MEM* mem = nullptr;
  BIO_get_mem_ptr(bio, &mem);
  return Bytes(mem->data, mem->data + mem->length);
}

std::string text_of(const Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

Bytes sign_or_fail(const PrivateKey& key, SignatureScheme scheme, const Bytes& message) {
  Bytes sig(key.max_signature_size());
  const Result<std::size_t> n = key.sign(scheme, message, sig);
  EXPECT_TRUE(n) << crypto::to_string(scheme);
  sig.resize(n ? *n : 0);
  return sig;
}

const char* digest_name(SignatureScheme scheme) {
  switch (static_cast<std::uint16_t>(scheme) >> 8) {
    case 0x02:
      return "SHA1";
    case 0x04:
      return "SHA256";
    case 0x05:
      return "SHA384";
    case 0x06:
      return "SHA512";
    default:
      break;
  }
  switch (scheme) {
    case SignatureScheme::kRsaPssRsaeSha256:
      return "SHA256";
    case SignatureScheme::kRsaPssRsaeSha384:
      return "SHA384";
    case SignatureScheme::kRsaPssRsaeSha512:
      return "SHA512";
    default:
      return nullptr;
  }
}

bool is_pss(SignatureScheme scheme) {
  const auto code = static_cast<std::uint16_t>(scheme);
  return code >= 0x0804 && code <= 0x0806;
}

// OpenSSL's own signing and verifying, configured by hand from the scheme (PSS salt given as
// a number of bytes, not as OpenSSL's "digest length" constant).
Bytes openssl_sign(EVP_PKEY* key, SignatureScheme scheme, const Bytes& message, int pss_salt) {
  const Owned<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  EXPECT_EQ(
      EVP_DigestSignInit_ex(ctx.get(), &pctx, digest_name(scheme), nullptr, nullptr, key, nullptr),
      1);
  if (is_pss(scheme)) {
    EXPECT_EQ(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    EXPECT_EQ(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, pss_salt), 1);
  }
  std::size_t n = 0;
  EXPECT_EQ(EVP_DigestSign(ctx.get(), nullptr, &n, message.data(), message.size()), 1);
  Bytes sig(n);
  EXPECT_EQ(EVP_DigestSign(ctx.get(), sig.data(), &n, message.data(), message.size()), 1);
  sig.resize(n);
  return sig;
}

bool openssl_verify(EVP_PKEY* key, SignatureScheme scheme, const Bytes& message, const Bytes& sig,
                    int pss_salt) {
  const Owned<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  EXPECT_EQ(EVP_DigestVerifyInit_ex(ctx.get(), &pctx, digest_name(scheme), nullptr, nullptr, key,
                                    nullptr),
            1);
  if (is_pss(scheme)) {
    EXPECT_EQ(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING), 1);
    EXPECT_EQ(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, pss_salt), 1);
  }
  return EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), message.data(), message.size()) == 1;
}

int digest_size(SignatureScheme scheme) {
  return EVP_MD_get_size(EVP_get_digestbyname(digest_name(scheme)));
}

TEST(Signature, NamesAndCodePoints) {
  EXPECT_STREQ(crypto::to_string(SignatureScheme::kEcdsaSecp256r1Sha256), "ecdsa_secp256r1_sha256");
  EXPECT_STREQ(crypto::to_string(SignatureScheme::kRsaPssRsaeSha384), "rsa_pss_rsae_sha384");
  EXPECT_STREQ(crypto::to_string(SignatureScheme::kRsaPkcs1Sha1), "rsa_pkcs1_sha1");
  EXPECT_STREQ(crypto::to_string(SignatureScheme::kEd25519), "ed25519");
  EXPECT_STREQ(crypto::to_string(static_cast<SignatureScheme>(0x0808)), "unknown");
  for (SignatureScheme s : kSchemes) {
    EXPECT_TRUE(crypto::is_known(static_cast<std::uint16_t>(s))) << crypto::to_string(s);
    EXPECT_STRNE(crypto::to_string(s), "unknown");
  }
  // DSA, Ed448, RSA-PSS-pss, MD5, anonymous: not wireseal's.
  for (int code : {0x0402, 0x0808, 0x0809, 0x0101, 0x0400, 0x0000, 0xFFFF}) {
    EXPECT_FALSE(crypto::is_known(static_cast<std::uint16_t>(code))) << code;
  }
}

TEST(Signature, EverySupportedSchemeSignsAndVerifiesTheRestAreRefused) {
  const Bytes message = message_bytes("ServerKeyExchange params: client_random server_random");
  for (KeyType type : kKeyTypes) {
    SCOPED_TRACE(crypto::to_string(type));
    Result<PrivateKey> key = PrivateKey::generate(type);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->type(), type);
    Result<PrivateKey> other = PrivateKey::generate(type);
    ASSERT_TRUE(other);
    Result<PublicKey> own_half = key->public_key();
    ASSERT_TRUE(own_half);
    Result<PublicKey> from_cert = PublicKey::from_certificate(certificate_of(key->evp_pkey()));
    ASSERT_TRUE(from_cert);
    EXPECT_EQ(from_cert->type(), type);
    EXPECT_EQ(own_half->type(), type);
    int supported = 0;
    for (SignatureScheme scheme : kSchemes) {
      SCOPED_TRACE(crypto::to_string(scheme));
      const bool expected = expect_supported(type, scheme);
      EXPECT_EQ(key->supports(scheme), expected);
      EXPECT_EQ(from_cert->supports(scheme), expected);
      if (!expected) {
        Bytes sig(key->max_signature_size());
        EXPECT_EQ(key->sign(scheme, message, sig).error(), Error::kUnsupported);
        EXPECT_EQ(from_cert->verify(scheme, message, sig).error(), Error::kUnsupported);
        continue;
      }
      ++supported;
      const Bytes sig = sign_or_fail(*key, scheme, message);
      ASSERT_FALSE(sig.empty());
      EXPECT_LE(sig.size(), key->max_signature_size());
      EXPECT_TRUE(from_cert->verify(scheme, message, sig));
      EXPECT_TRUE(own_half->verify(scheme, message, sig));

      Bytes bad_message = message;
      bad_message[7] ^= 0x10;
      EXPECT_EQ(from_cert->verify(scheme, bad_message, sig).error(), Error::kAuthFailed);
      for (std::size_t at : {std::size_t{0}, sig.size() / 2, sig.size() - 1}) {
        Bytes bad_sig = sig;
        bad_sig[at] ^= 0x01;
        EXPECT_EQ(from_cert->verify(scheme, message, bad_sig).error(), Error::kAuthFailed) << at;
      }
      EXPECT_EQ(from_cert->verify(scheme, message, Bytes(sig.begin(), sig.end() - 1)).error(),
                Error::kAuthFailed);
      EXPECT_EQ(from_cert->verify(scheme, message, {}).error(), Error::kAuthFailed);
      // Another key's signature.
      EXPECT_EQ(from_cert->verify(scheme, message, sign_or_fail(*other, scheme, message)).error(),
                Error::kAuthFailed);
      // The empty message is a message too.
      const Bytes empty_sig = sign_or_fail(*key, scheme, {});
      EXPECT_TRUE(from_cert->verify(scheme, {}, empty_sig));
      EXPECT_EQ(from_cert->verify(scheme, message, empty_sig).error(), Error::kAuthFailed);
    }
    EXPECT_EQ(supported, type == KeyType::kRsa ? 7 : type == KeyType::kEd25519 ? 1 : 4);
    // An ECDSA hash other than the signer's does not verify.
    if (type == KeyType::kEcP256) {
      const Bytes sig = sign_or_fail(*key, SignatureScheme::kEcdsaSecp256r1Sha256, message);
      EXPECT_EQ(from_cert->verify(SignatureScheme::kEcdsaSecp384r1Sha384, message, sig).error(),
                Error::kAuthFailed);
    }
  }
}

TEST(Signature, SignatureSizesAndShortBuffers) {
  for (KeyType type : kKeyTypes) {
    SCOPED_TRACE(crypto::to_string(type));
    Result<PrivateKey> key = PrivateKey::generate(type);
    ASSERT_TRUE(key);
    const std::size_t expected_max = type == KeyType::kRsa      ? 256
                                     : type == KeyType::kEcP256 ? 72
                                     : type == KeyType::kEcP384 ? 104
                                                                : 64;
    EXPECT_EQ(key->max_signature_size(), expected_max);
    const SignatureScheme scheme = type == KeyType::kRsa       ? SignatureScheme::kRsaPssRsaeSha256
                                   : type == KeyType::kEd25519 ? SignatureScheme::kEd25519
                                                               : SignatureScheme::kEcdsaSha1;
    Bytes out(key->max_signature_size() - 1, 0xAA);
    EXPECT_EQ(key->sign(scheme, message_bytes("m"), out).error(), Error::kBufferTooSmall);
    EXPECT_EQ(out, Bytes(out.size(), 0xAA));  // nothing written
    EXPECT_EQ(key->sign(scheme, message_bytes("m"), {}).error(), Error::kBufferTooSmall);
  }
}

TEST(Signature, KeysRoundTripThroughPemAndDer) {
  const Bytes message = message_bytes("CertificateVerify: the handshake so far");
  for (KeyType type : kKeyTypes) {
    SCOPED_TRACE(crypto::to_string(type));
    Result<PrivateKey> key = PrivateKey::generate(type);
    ASSERT_TRUE(key);
    Result<PublicKey> pub = key->public_key();
    ASSERT_TRUE(pub);

    Result<std::size_t> size = key->to_pem({});
    ASSERT_TRUE(size);
    Bytes pem(*size + 10, 0);
    Bytes short_pem(*size - 1, 0);
    EXPECT_EQ(key->to_pem(short_pem).error(), Error::kBufferTooSmall);
    EXPECT_EQ(short_pem, Bytes(short_pem.size(), 0));
    Result<std::size_t> written = key->to_pem(pem);
    ASSERT_TRUE(written);
    EXPECT_EQ(*written, *size);
    pem.resize(*written);
    const std::string text = text_of(pem);
    EXPECT_EQ(text.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u) << text;
    EXPECT_NE(text.find("-----END PRIVATE KEY-----\n"), std::string::npos);

    // OpenSSL reads what we wrote as the same key.
    const Owned<BIO, BIO_free_all> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    const Key parsed(PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr));
    ASSERT_NE(parsed, nullptr);
    EXPECT_EQ(EVP_PKEY_eq(parsed.get(), key->evp_pkey()), 1);

    Result<PrivateKey> back = PrivateKey::from_pem(pem);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->type(), type);
    const SignatureScheme scheme = type == KeyType::kRsa ? SignatureScheme::kRsaPkcs1Sha256
                                   : type == KeyType::kEd25519
                                       ? SignatureScheme::kEd25519
                                       : SignatureScheme::kEcdsaSecp256r1Sha256;
    EXPECT_TRUE(pub->verify(scheme, message, sign_or_fail(*back, scheme, message)));

    Result<PrivateKey> from_der = PrivateKey::from_der(pkcs8_der(key->evp_pkey()));
    ASSERT_TRUE(from_der);
    EXPECT_EQ(from_der->type(), type);
    EXPECT_TRUE(pub->verify(scheme, message, sign_or_fail(*from_der, scheme, message)));

    // The traditional forms: "RSA PRIVATE KEY", "EC PRIVATE KEY" (Ed25519 has none).
    if (type != KeyType::kEd25519) {
      const Owned<BIO, BIO_free_all> out(BIO_new(BIO_s_mem()));
      ASSERT_EQ(PEM_write_bio_PrivateKey_traditional(out.get(), key->evp_pkey(), nullptr, nullptr,
                                                     0, nullptr, nullptr),
                1);
      const Bytes legacy = bio_text(out.get());
      EXPECT_EQ(text_of(legacy).rfind(type == KeyType::kRsa ? "-----BEGIN RSA PRIVATE KEY-----"
                                                            : "-----BEGIN EC PRIVATE KEY-----",
                                      0),
                0u);
      Result<PrivateKey> from_legacy = PrivateKey::from_pem(legacy);
      ASSERT_TRUE(from_legacy);
      EXPECT_EQ(from_legacy->type(), type);
      EXPECT_TRUE(pub->verify(scheme, message, sign_or_fail(*from_legacy, scheme, message)));
    }
  }
}

TEST(Signature, RefusesBadAndForeignKeys) {
  EXPECT_EQ(PrivateKey::from_pem(message_bytes("not a key")).error(), Error::kMalformed);
  EXPECT_EQ(PrivateKey::from_pem({}).error(), Error::kMalformed);
  EXPECT_EQ(PrivateKey::from_pem(message_bytes("-----BEGIN PRIVATE KEY-----\nAAAA\n"
                                               "-----END PRIVATE KEY-----\n"))
                .error(),
            Error::kMalformed);
  EXPECT_EQ(PrivateKey::from_der(Bytes{0x30, 0x03, 0x02, 0x01, 0x00}).error(), Error::kMalformed);
  EXPECT_EQ(PrivateKey::from_der({}).error(), Error::kMalformed);
  EXPECT_EQ(PublicKey::from_certificate(Bytes{0x30, 0x00}).error(), Error::kMalformed);
  EXPECT_EQ(PublicKey::from_certificate({}).error(), Error::kMalformed);

  const Key p256(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  ASSERT_NE(p256, nullptr);
  Bytes der = pkcs8_der(p256.get());
  ASSERT_TRUE(PrivateKey::from_der(der));
  der.push_back(0);  // bytes after the PrivateKeyInfo
  EXPECT_EQ(PrivateKey::from_der(der).error(), Error::kMalformed);
  Bytes cert = certificate_of(p256.get());
  cert.push_back(0);
  EXPECT_EQ(PublicKey::from_certificate(cert).error(), Error::kMalformed);

  // An encrypted key fails (and does not prompt for a passphrase on the terminal).
  {
    const Owned<BIO, BIO_free_all> out(BIO_new(BIO_s_mem()));
    char pass[] = "secret";
    ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(out.get(), p256.get(), EVP_aes_128_cbc(), pass, 6,
                                            nullptr, nullptr),
              1);
    const Bytes encrypted = bio_text(out.get());
    EXPECT_NE(text_of(encrypted).find("ENCRYPTED PRIVATE KEY"), std::string::npos);
    EXPECT_EQ(PrivateKey::from_pem(encrypted).error(), Error::kMalformed);
  }

  // Keys of types wireseal does not sign with.
  for (const char* curve : {"P-521", "P-224"}) {
    SCOPED_TRACE(curve);
    const Key k(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(PrivateKey::from_der(pkcs8_der(k.get())).error(), Error::kUnsupported);
    EXPECT_EQ(PublicKey::from_certificate(certificate_of(k.get())).error(), Error::kUnsupported);
  }
  const Key ed448(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED448"));
  ASSERT_NE(ed448, nullptr);
  EXPECT_EQ(PrivateKey::from_der(pkcs8_der(ed448.get())).error(), Error::kUnsupported);
  EXPECT_EQ(PublicKey::from_certificate(certificate_of(ed448.get())).error(), Error::kUnsupported);
}

// from_certificate walks the DER to the key itself rather than through d2i_X509: the key it
// makes is the one OpenSSL decodes, for every key type; every truncation is refused, and so
// is an EC point moved off the curve.
TEST(Signature, CertificateKeyIsTheOneOpenSslDecodes) {
  for (KeyType type : kKeyTypes) {
    SCOPED_TRACE(crypto::to_string(type));
    Result<PrivateKey> key = PrivateKey::generate(type);
    ASSERT_TRUE(key);
    const Bytes cert = certificate_of(key->evp_pkey());
    Result<PublicKey> ours = PublicKey::from_certificate(cert);
    ASSERT_TRUE(ours);
    const unsigned char* p = cert.data();
    const Owned<X509, X509_free> x509(d2i_X509(nullptr, &p, static_cast<long>(cert.size())));
    ASSERT_NE(x509, nullptr);
    EXPECT_EQ(EVP_PKEY_eq(ours->evp_pkey(), X509_get0_pubkey(x509.get())), 1);
    for (std::size_t n = 0; n < cert.size(); ++n) {
      EXPECT_FALSE(PublicKey::from_certificate(std::span(cert).first(n))) << n;
    }
    if (type == KeyType::kEcP256 || type == KeyType::kEcP384) {
      // Flip the lowest bit of y where the point sits in the DER: (x, y ^ 1) is off the curve.
      unsigned char* encoded = nullptr;
      const std::size_t size = EVP_PKEY_get1_encoded_public_key(key->evp_pkey(), &encoded);
      const Bytes point(encoded, encoded + size);
      OPENSSL_free(encoded);
      const auto at = std::search(cert.begin(), cert.end(), point.begin(), point.end());
      ASSERT_NE(at, cert.end());
      Bytes off_curve = cert;
      off_curve[static_cast<std::size_t>(at - cert.begin()) + size - 1] ^= 1;
      EXPECT_FALSE(PublicKey::from_certificate(off_curve));
    }
  }
}

// Signatures made by OpenSSL directly verify with PublicKey, and wireseal's verify with
// OpenSSL; PSS only with the salt as long as the hash.
TEST(Signature, CrossCheckedWithOpenSsl) {
  const Bytes message = message_bytes("cross-checked against EVP_DigestSign / EVP_DigestVerify");
  struct Case {
    KeyType type;
    std::vector<SignatureScheme> schemes;
  };
  const Case cases[] = {
      {KeyType::kRsa,
       {SignatureScheme::kRsaPssRsaeSha256, SignatureScheme::kRsaPssRsaeSha384,
        SignatureScheme::kRsaPssRsaeSha512, SignatureScheme::kRsaPkcs1Sha256,
        SignatureScheme::kRsaPkcs1Sha1}},
      {KeyType::kEcP256,
       {SignatureScheme::kEcdsaSecp256r1Sha256, SignatureScheme::kEcdsaSecp384r1Sha384,
        SignatureScheme::kEcdsaSecp521r1Sha512, SignatureScheme::kEcdsaSha1}},
      {KeyType::kEcP384,
       {SignatureScheme::kEcdsaSecp384r1Sha384, SignatureScheme::kEcdsaSecp256r1Sha256}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(crypto::to_string(c.type));
    const Key ossl(c.type == KeyType::kRsa
                       ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048})
                       : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", crypto::to_string(c.type)));
    ASSERT_NE(ossl, nullptr);
    Result<PublicKey> pub = PublicKey::from_certificate(certificate_of(ossl.get()));
    ASSERT_TRUE(pub);
    Result<PrivateKey> ours = PrivateKey::generate(c.type);
    ASSERT_TRUE(ours);
    for (SignatureScheme scheme : c.schemes) {
      SCOPED_TRACE(crypto::to_string(scheme));
      const int salt = digest_size(scheme);
      ASSERT_GT(salt, 0);
      // OpenSSL signs, PublicKey verifies.
      const Bytes sig = openssl_sign(ossl.get(), scheme, message, salt);
      EXPECT_TRUE(pub->verify(scheme, message, sig));
      // wireseal signs, OpenSSL verifies.
      const Bytes mine = sign_or_fail(*ours, scheme, message);
      EXPECT_TRUE(openssl_verify(ours->evp_pkey(), scheme, message, mine, salt));
      if (is_pss(scheme)) {
        // Another salt length is another signature scheme: refused both ways.
        EXPECT_EQ(
            pub->verify(scheme, message, openssl_sign(ossl.get(), scheme, message, 0)).error(),
            Error::kAuthFailed);
        EXPECT_EQ(pub->verify(scheme, message, openssl_sign(ossl.get(), scheme, message, salt + 1))
                      .error(),
                  Error::kAuthFailed);
        EXPECT_FALSE(openssl_verify(ours->evp_pkey(), scheme, message, mine, salt + 1));
        // And PKCS#1 v1.5 under the same hash is not PSS.
        const auto pkcs1 = static_cast<SignatureScheme>(
            (static_cast<std::uint16_t>(scheme) - 0x0804 + 4) << 8 | 0x01);
        EXPECT_EQ(pub->verify(pkcs1, message, sig).error(), Error::kAuthFailed);
      }
    }
  }
}

// RFC 8032 §7.1, TEST 1: the empty message.
TEST(Signature, Ed25519Rfc8032Test1) {
  const Bytes secret = from_hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  const Bytes public_key =
      from_hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const Bytes expected = from_hex(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701c"
      "f9b46bd25bf5f0595bbe24655141438e7a100b");
  const Key raw(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, secret.data(), secret.size()));
  ASSERT_NE(raw, nullptr);

  const Owned<BIO, BIO_free_all> out(BIO_new(BIO_s_mem()));
  ASSERT_EQ(PEM_write_bio_PrivateKey(out.get(), raw.get(), nullptr, nullptr, 0, nullptr, nullptr),
            1);
  Result<PrivateKey> from_pem = PrivateKey::from_pem(bio_text(out.get()));
  Result<PrivateKey> from_der = PrivateKey::from_der(pkcs8_der(raw.get()));
  ASSERT_TRUE(from_pem);
  ASSERT_TRUE(from_der);
  for (const PrivateKey* key : {&*from_pem, &*from_der}) {
    EXPECT_EQ(key->type(), KeyType::kEd25519);
    EXPECT_EQ(sign_or_fail(*key, SignatureScheme::kEd25519, {}), expected);
    Result<PublicKey> pub = key->public_key();
    ASSERT_TRUE(pub);
    Bytes raw_public(32);
    std::size_t n = raw_public.size();
    ASSERT_EQ(EVP_PKEY_get_raw_public_key(pub->evp_pkey(), raw_public.data(), &n), 1);
    EXPECT_EQ(raw_public, public_key);
    EXPECT_TRUE(pub->verify(SignatureScheme::kEd25519, {}, expected));
    Bytes flipped = expected;
    flipped[63] ^= 0x80;
    EXPECT_EQ(pub->verify(SignatureScheme::kEd25519, {}, flipped).error(), Error::kAuthFailed);
    EXPECT_EQ(pub->verify(SignatureScheme::kEd25519, Bytes{0}, expected).error(),
              Error::kAuthFailed);
  }
  // The public key as a peer's certificate carries it is RFC 8032's.
  const Key peer(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  ASSERT_NE(peer, nullptr);
  Result<PublicKey> pub = PublicKey::from_certificate(certificate_of(raw.get()));
  ASSERT_TRUE(pub);
  EXPECT_EQ(EVP_PKEY_eq(pub->evp_pkey(), peer.get()), 1);
  EXPECT_TRUE(pub->verify(SignatureScheme::kEd25519, {}, expected));
}

TEST(Signature, MovedKeysKeepWorking) {
  Result<PrivateKey> key = PrivateKey::generate(KeyType::kEcP256);
  ASSERT_TRUE(key);
  PrivateKey moved(std::move(*key));
  Result<PrivateKey> other = PrivateKey::generate(KeyType::kEd25519);
  ASSERT_TRUE(other);
  moved = std::move(*other);
  EXPECT_EQ(moved.type(), KeyType::kEd25519);
  Result<PublicKey> pub = moved.public_key();
  ASSERT_TRUE(pub);
  PublicKey pub2(std::move(*pub));
  const Bytes m = message_bytes("m");
  EXPECT_TRUE(
      pub2.verify(SignatureScheme::kEd25519, m, sign_or_fail(moved, SignatureScheme::kEd25519, m)));
}

}  // namespace
}  // namespace wireseal::test
