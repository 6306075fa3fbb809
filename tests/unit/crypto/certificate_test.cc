// Certificates over OpenSSL: self-signed WebRTC certificates (RFC 8827) read back field by
// field with OpenSSL; chains through PEM and DER, byte for byte what OpenSSL writes;
// fingerprints (RFC 8122) against X509_digest and their text form; TrustStore against a small
// PKI built here with OpenSSL's X509 API (a root, an intermediate, server and client leaves,
// an expired one, a stranger's).
#include "wireseal/crypto/certificate.h"

#include <gtest/gtest.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/buffer.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wireseal::test {
namespace {

using crypto::CertificateChain;
using crypto::CertifiedKey;
using crypto::Fingerprint;
using crypto::FingerprintHash;
using crypto::KeyType;
using crypto::SignatureScheme;
using crypto::TrustStore;
using Bytes = std::vector<std::uint8_t>;
using Ders = std::vector<std::span<const std::uint8_t>>;

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const noexcept { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;
using Key = Owned<EVP_PKEY, EVP_PKEY_free>;
using Cert = Owned<X509, X509_free>;

constexpr KeyType kKeyTypes[] = {KeyType::kRsa, KeyType::kEcP256, KeyType::kEcP384,
                                 KeyType::kEd25519};

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }
std::string text_of(std::span<const std::uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

Bytes der_of(X509* cert) {
  unsigned char* der = nullptr;
  const int n = i2d_X509(cert, &der);
  EXPECT_GT(n, 0);
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

Bytes bio_text(BIO* bio) {
  BUF_MEM* mem = nullptr;
  BIO_get_mem_ptr(bio, &mem);
  return Bytes(mem->data, mem->data + mem->length);
}

// openssl_pem is PEM_write_bio_X509's output for `der`.
Bytes openssl_pem(std::span<const std::uint8_t> der) {
  const unsigned char* p = der.data();
  const Cert cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  EXPECT_NE(cert, nullptr);
  const Owned<BIO, BIO_free_all> bio(BIO_new(BIO_s_mem()));
  EXPECT_EQ(PEM_write_bio_X509(bio.get(), cert.get()), 1);
  return bio_text(bio.get());
}

Cert parse(std::span<const std::uint8_t> der) {
  const unsigned char* p = der.data();
  return Cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
}

// TestCert is a certificate made here with OpenSSL for a fresh P-256 key.
struct TestCert {
  Key key;
  Cert cert;
  Bytes der;
  Bytes pem;
};

// make_cert issues CN=cn with `extensions` ({nid, OpenSSL config value}), signed by `issuer`
// (itself when nullptr), valid from now + not_before to now + not_after seconds.
TestCert make_cert(const std::string& cn, const TestCert* issuer,
                   const std::vector<std::pair<int, std::string>>& extensions,
                   long not_before = -3600, long not_after = 30L * 86400) {
  static long serial = 1000;
  TestCert t;
  t.key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  t.cert.reset(X509_new());
  X509* x = t.cert.get();
  EXPECT_TRUE(t.key && x);
  EXPECT_EQ(X509_set_version(x, X509_VERSION_3), 1);
  EXPECT_EQ(ASN1_INTEGER_set(X509_get_serialNumber(x), ++serial), 1);
  EXPECT_EQ(
      X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0),
      1);
  X509* signer = issuer != nullptr ? issuer->cert.get() : x;
  EXPECT_EQ(X509_set_issuer_name(x, X509_get_subject_name(signer)), 1);
  EXPECT_NE(X509_gmtime_adj(X509_getm_notBefore(x), not_before), nullptr);
  EXPECT_NE(X509_gmtime_adj(X509_getm_notAfter(x), not_after), nullptr);
  EXPECT_EQ(X509_set_pubkey(x, t.key.get()), 1);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, signer, x, nullptr, nullptr, 0);
  // Key identifiers tell apart issuers of the same name (stranger_root_ below).
  std::vector<std::pair<int, std::string>> all = {{NID_subject_key_identifier, "hash"},
                                                  {NID_authority_key_identifier, "keyid:always"}};
  all.insert(all.end(), extensions.begin(), extensions.end());
  for (const auto& [nid, value] : all) {
    X509_EXTENSION* ext = X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str());
    EXPECT_NE(ext, nullptr) << value;
    EXPECT_EQ(X509_add_ext(x, ext, -1), 1);
    X509_EXTENSION_free(ext);
  }
  EXPECT_GT(X509_sign(x, issuer != nullptr ? issuer->key.get() : t.key.get(), EVP_sha256()), 0);
  t.der = der_of(x);
  t.pem = openssl_pem(t.der);
  return t;
}

const std::vector<std::pair<int, std::string>> kCaExtensions = {
    {NID_basic_constraints, "critical,CA:TRUE"}, {NID_key_usage, "critical,keyCertSign,cRLSign"}};

std::vector<std::pair<int, std::string>> leaf_extensions(const std::string& eku) {
  return {{NID_basic_constraints, "CA:FALSE"},
          {NID_key_usage, "critical,digitalSignature"},
          {NID_ext_key_usage, eku},
          {NID_subject_alt_name, "DNS:example.test,IP:192.0.2.1"}};
}

// seconds_from_now is `t` - now.
long seconds_from_now(const ASN1_TIME* t) {
  int days = 0;
  int seconds = 0;
  EXPECT_EQ(ASN1_TIME_diff(&days, &seconds, nullptr, t), 1);
  return days * 86400L + seconds;
}

const EVP_MD* md_of(FingerprintHash hash) {
  switch (hash) {
    case FingerprintHash::kSha1:
      return EVP_sha1();
    case FingerprintHash::kSha224:
      return EVP_sha224();
    case FingerprintHash::kSha256:
      return EVP_sha256();
    case FingerprintHash::kSha384:
      return EVP_sha384();
    case FingerprintHash::kSha512:
      return EVP_sha512();
  }
  return nullptr;
}

constexpr FingerprintHash kHashes[] = {FingerprintHash::kSha1, FingerprintHash::kSha224,
                                       FingerprintHash::kSha256, FingerprintHash::kSha384,
                                       FingerprintHash::kSha512};

TEST(Certificate, SelfSignedForEveryKeyType) {
  for (KeyType type : kKeyTypes) {
    SCOPED_TRACE(crypto::to_string(type));
    Result<CertifiedKey> ck = crypto::generate_self_signed(type, "wireseal-test", 30);
    ASSERT_TRUE(ck);
    EXPECT_EQ(ck->key.type(), type);
    ASSERT_EQ(ck->chain.size(), 1u);
    const Cert cert = parse(ck->chain.der(0));
    ASSERT_NE(cert, nullptr);
    EXPECT_EQ(X509_get_version(cert.get()), X509_VERSION_3);
    EXPECT_EQ(X509_get_ext_count(cert.get()), 0);
    char cn[64] = {};
    EXPECT_GT(X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn,
                                        sizeof(cn)),
              0);
    EXPECT_STREQ(cn, "wireseal-test");
    EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert.get()), X509_get_issuer_name(cert.get())),
              0);
    // A positive serial of 16 bytes.
    const Owned<BIGNUM, BN_free> serial(
        ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert.get()), nullptr));
    ASSERT_NE(serial, nullptr);
    EXPECT_FALSE(BN_is_negative(serial.get()));
    EXPECT_EQ(BN_num_bytes(serial.get()), 16);
    // Valid from a day ago to 30 days from now.
    const long from = seconds_from_now(X509_get0_notBefore(cert.get()));
    const long to = seconds_from_now(X509_get0_notAfter(cert.get()));
    EXPECT_LE(from, -86400);
    EXPECT_GE(from, -86400 - 300);
    EXPECT_LE(to, 30L * 86400);
    EXPECT_GE(to, 30L * 86400 - 300);
    const int expected_sig = type == KeyType::kRsa       ? NID_sha256WithRSAEncryption
                             : type == KeyType::kEd25519 ? NID_ED25519
                                                         : NID_ecdsa_with_SHA256;
    EXPECT_EQ(X509_get_signature_nid(cert.get()), expected_sig);
    EXPECT_EQ(X509_verify(cert.get(), X509_get0_pubkey(cert.get())), 1);
    EXPECT_EQ(X509_check_private_key(cert.get(), ck->key.evp_pkey()), 1);

    // The leaf's public key verifies what the certified key signs.
    Result<crypto::PublicKey> pub = crypto::PublicKey::from_certificate(ck->chain.der(0));
    ASSERT_TRUE(pub);
    EXPECT_EQ(pub->type(), type);
    const SignatureScheme scheme =
        type == KeyType::kRsa      ? SignatureScheme::kRsaPssRsaeSha256
        : type == KeyType::kEcP256 ? SignatureScheme::kEcdsaSecp256r1Sha256
        : type == KeyType::kEcP384 ? SignatureScheme::kEcdsaSecp384r1Sha384
                                   : SignatureScheme::kEd25519;
    const Bytes message = bytes_of("CertificateVerify");
    Bytes sig(ck->key.max_signature_size());
    Result<std::size_t> n = ck->key.sign(scheme, message, sig);
    ASSERT_TRUE(n);
    sig.resize(*n);
    EXPECT_TRUE(pub->verify(scheme, message, sig));

    // Fingerprints are OpenSSL's X509_digest.
    for (FingerprintHash hash : kHashes) {
      Result<Fingerprint> fp = crypto::fingerprint(hash, ck->chain.der(0));
      ASSERT_TRUE(fp);
      unsigned char md[EVP_MAX_MD_SIZE];
      unsigned int md_len = 0;
      ASSERT_EQ(X509_digest(cert.get(), md_of(hash), md, &md_len), 1);
      EXPECT_EQ(fp->hash, hash);
      EXPECT_EQ(Bytes(fp->bytes().begin(), fp->bytes().end()), Bytes(md, md + md_len));
    }

    // A certificate trusted as itself (what pinning a self-signed peer amounts to).
    Bytes pem(*ck->chain.to_pem({}));
    ASSERT_TRUE(ck->chain.to_pem(pem));
    Result<TrustStore> self = TrustStore::from_pem(pem);
    ASSERT_TRUE(self);
    EXPECT_TRUE(self->verify(ck->chain.certificates(), true));
  }
  Result<CertifiedKey> a = crypto::generate_self_signed(KeyType::kEcP256);
  Result<CertifiedKey> b = crypto::generate_self_signed(KeyType::kEcP256);
  ASSERT_TRUE(a && b);
  EXPECT_NE(ASN1_INTEGER_cmp(X509_get0_serialNumber(parse(a->chain.der(0)).get()),
                             X509_get0_serialNumber(parse(b->chain.der(0)).get())),
            0);
  const Cert cert = parse(a->chain.der(0));
  char cn[64] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof(cn));
  EXPECT_STREQ(cn, "wireseal");  // the default
  EXPECT_GE(seconds_from_now(X509_get0_notAfter(cert.get())), 30L * 86400 - 300);
}

TEST(Certificate, SelfSignedRefusesBadArguments) {
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, "x", 0).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, "x", -5).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, "").error(), Error::kInvalidArgument);
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, std::string(65, 'a')).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, "\xff\xfe").error(),
            Error::kInvalidArgument);  // not UTF-8
  EXPECT_EQ(crypto::generate_self_signed(KeyType::kEcP256, "x", 9000 * 365).error(),
            Error::kInvalidArgument);  // past 9999
  Result<CertifiedKey> longest =
      crypto::generate_self_signed(KeyType::kEd25519, std::string(64, 'a'), 365);
  ASSERT_TRUE(longest);
  EXPECT_GE(seconds_from_now(X509_get0_notAfter(parse(longest->chain.der(0)).get())),
            365L * 86400 - 300);
}

TEST(Certificate, ChainRoundTripsThroughPemCopiesAndMoves) {
  const TestCert root = make_cert("Test Root", nullptr, kCaExtensions);
  const TestCert leaf = make_cert("example.test", &root, leaf_extensions("serverAuth"));
  const Ders ders = {leaf.der, root.der};
  Result<CertificateChain> chain = CertificateChain::from_der(ders);
  ASSERT_TRUE(chain);
  ASSERT_EQ(chain->size(), 2u);
  EXPECT_FALSE(chain->empty());
  EXPECT_EQ(Bytes(chain->der(0).begin(), chain->der(0).end()), leaf.der);
  EXPECT_EQ(Bytes(chain->der(1).begin(), chain->der(1).end()), root.der);
  EXPECT_TRUE(chain->der(2).empty());
  EXPECT_NE(chain->der(0).data(), leaf.der.data());  // a copy of its own

  // to_pem: exactly OpenSSL's PEM_write_bio_X509, block after block.
  Result<std::size_t> size = chain->to_pem({});
  ASSERT_TRUE(size);
  Bytes expected = leaf.pem;
  expected.insert(expected.end(), root.pem.begin(), root.pem.end());
  EXPECT_EQ(*size, expected.size());
  Bytes short_out(*size - 1, 0);
  EXPECT_EQ(chain->to_pem(short_out).error(), Error::kBufferTooSmall);
  EXPECT_EQ(short_out, Bytes(short_out.size(), 0));
  Bytes pem(*size + 3, 0);
  Result<std::size_t> written = chain->to_pem(pem);
  ASSERT_TRUE(written);
  EXPECT_EQ(*written, *size);
  pem.resize(*written);
  EXPECT_EQ(text_of(pem), text_of(expected));

  // from_pem takes the CERTIFICATE blocks in order, whatever is around them.
  const Owned<BIO, BIO_free_all> key_bio(BIO_new(BIO_s_mem()));
  ASSERT_EQ(PEM_write_bio_PrivateKey(key_bio.get(), leaf.key.get(), nullptr, nullptr, 0, nullptr,
                                     nullptr),
            1);
  const std::string mixed = "subject=CN = example.test\n" + text_of(bio_text(key_bio.get())) +
                            text_of(leaf.pem) + "issuer: the root\n" + text_of(root.pem);
  Result<CertificateChain> back = CertificateChain::from_pem(bytes_of(mixed));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(Bytes(back->der(0).begin(), back->der(0).end()), leaf.der);
  EXPECT_EQ(Bytes(back->der(1).begin(), back->der(1).end()), root.der);

  // Copies and moves keep certificates() pointing into their own storage.
  auto original = std::make_unique<CertificateChain>(*back);
  CertificateChain copy(*original);
  CertificateChain assigned;
  assigned = *original;
  EXPECT_NE(copy.certificates()[0].data(), original->certificates()[0].data());
  original.reset();
  for (const CertificateChain* c : {&copy, &assigned}) {
    ASSERT_EQ(c->certificates().size(), 2u);
    EXPECT_EQ(Bytes(c->certificates()[0].begin(), c->certificates()[0].end()), leaf.der);
    EXPECT_EQ(Bytes(c->certificates()[1].begin(), c->certificates()[1].end()), root.der);
  }
  CertificateChain moved(std::move(copy));
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): documented moved-from state
  EXPECT_TRUE(copy.certificates().empty());
  assigned = std::move(moved);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  ASSERT_EQ(assigned.size(), 2u);
  EXPECT_EQ(Bytes(assigned.der(1).begin(), assigned.der(1).end()), root.der);
  CertificateChain& self = assigned;
  assigned = self;
  EXPECT_EQ(assigned.size(), 2u);
  EXPECT_EQ(Bytes(assigned.der(0).begin(), assigned.der(0).end()), leaf.der);

  // The empty chain (a client without a certificate).
  Result<CertificateChain> none = CertificateChain::from_der({});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_TRUE(none->certificates().empty());
  EXPECT_EQ(*none->to_pem({}), 0u);
  EXPECT_TRUE(CertificateChain().empty());
}

TEST(Certificate, ChainRefusesWhatIsNotACertificate) {
  const TestCert root = make_cert("Test Root", nullptr, kCaExtensions);
  EXPECT_EQ(CertificateChain::from_pem(bytes_of("garbage")).error(), Error::kMalformed);
  EXPECT_EQ(CertificateChain::from_pem({}).error(), Error::kMalformed);
  // Only a key: no certificate.
  const Owned<BIO, BIO_free_all> key_bio(BIO_new(BIO_s_mem()));
  ASSERT_EQ(PEM_write_bio_PrivateKey(key_bio.get(), root.key.get(), nullptr, nullptr, 0, nullptr,
                                     nullptr),
            1);
  EXPECT_EQ(CertificateChain::from_pem(bio_text(key_bio.get())).error(), Error::kMalformed);
  // A CERTIFICATE block that is not a certificate ("hello world").
  const std::string not_a_cert =
      "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n";
  EXPECT_EQ(CertificateChain::from_pem(bytes_of(not_a_cert)).error(), Error::kMalformed);
  EXPECT_EQ(CertificateChain::from_pem(bytes_of(text_of(root.pem) + not_a_cert)).error(),
            Error::kMalformed);
  // A block cut short, after a good one.
  const std::string truncated = text_of(root.pem).substr(0, root.pem.size() - 30);
  EXPECT_EQ(CertificateChain::from_pem(bytes_of(truncated)).error(), Error::kMalformed);
  EXPECT_EQ(CertificateChain::from_pem(bytes_of(text_of(root.pem) + truncated)).error(),
            Error::kMalformed);
  // Bad base64.
  std::string bad = text_of(root.pem);
  bad[40] = '*';
  EXPECT_EQ(CertificateChain::from_pem(bytes_of(bad)).error(), Error::kMalformed);

  Bytes trailing = root.der;
  trailing.push_back(0);
  EXPECT_EQ(CertificateChain::from_der(Ders{root.der, trailing}).error(), Error::kMalformed);
  EXPECT_EQ(CertificateChain::from_der(Ders{Bytes{}}).error(), Error::kMalformed);
  const Bytes cut(root.der.begin(), root.der.end() - 1);
  EXPECT_EQ(CertificateChain::from_der(Ders{cut}).error(), Error::kMalformed);
}

TEST(Certificate, FingerprintText) {
  Fingerprint fp;
  fp.hash = FingerprintHash::kSha256;
  fp.size = 32;
  for (std::size_t i = 0; i < fp.size; ++i) {
    fp.digest[i] = static_cast<std::uint8_t>(i * 9 + 0xA0);
  }
  const std::string text = crypto::format_fingerprint(fp);
  EXPECT_EQ(text,
            "sha-256 A0:A9:B2:BB:C4:CD:D6:DF:E8:F1:FA:03:0C:15:1E:27:30:39:42:4B:54:5D:66:6F:78:"
            "81:8A:93:9C:A5:AE:B7");
  Result<Fingerprint> parsed = crypto::parse_fingerprint(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, fp);
  // ':' between name and hex; any case.
  std::string colon = text;
  colon[7] = ':';
  EXPECT_EQ(*crypto::parse_fingerprint(colon), fp);
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  EXPECT_EQ(*crypto::parse_fingerprint(lower), fp);
  EXPECT_EQ(*crypto::parse_fingerprint("SHA-256" + text.substr(7)), fp);

  // Every hash, against a real certificate.
  const TestCert root = make_cert("Test Root", nullptr, kCaExtensions);
  const std::size_t sizes[] = {20, 28, 32, 48, 64};
  const char* names[] = {"sha-1 ", "sha-224 ", "sha-256 ", "sha-384 ", "sha-512 "};
  for (std::size_t h = 0; h < 5; ++h) {
    Result<Fingerprint> real = crypto::fingerprint(kHashes[h], root.der);
    ASSERT_TRUE(real);
    EXPECT_EQ(real->size, sizes[h]);
    const std::string formatted = crypto::format_fingerprint(*real);
    EXPECT_EQ(formatted.rfind(names[h], 0), 0u) << formatted;
    EXPECT_EQ(formatted.size(), std::string(names[h]).size() + 3 * sizes[h] - 1);
    Result<Fingerprint> again = crypto::parse_fingerprint(formatted);
    ASSERT_TRUE(again) << formatted;
    EXPECT_EQ(*again, *real);
  }

  // Equality: hash, size and the bytes up to size (not beyond).
  Fingerprint other = fp;
  other.digest[40] = 1;
  EXPECT_EQ(other, fp);
  other.digest[31] ^= 1;
  EXPECT_FALSE(other == fp);
  other = fp;
  other.hash = FingerprintHash::kSha384;
  EXPECT_FALSE(other == fp);
  other = fp;
  other.size = 31;
  EXPECT_FALSE(other == fp);
}

TEST(Certificate, FingerprintTextRefusesMalformed) {
  const std::string good = "sha-1 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33";
  ASSERT_TRUE(crypto::parse_fingerprint(good));
  for (const std::string& bad : std::vector<std::string>{
           "",
           "sha-1",
           "sha-1 ",
           good + ":44",                                           // 21 bytes
           good.substr(0, good.size() - 3),                        // 19 bytes
           good + ":",                                             // a trailing colon
           good + " ",                                             // a trailing space
           " " + good,                                             // a leading space
           "sha-1  " + good.substr(6),                             // two spaces
           "sha-1\t" + good.substr(6),                             // a tab
           "sha-1 0" + good.substr(6, 58),                         // odd digits
           good.substr(0, 64) + "G",                               // not hex
           good.substr(0, 8) + good.substr(9),                     // a colon missing
           "sha1 " + good.substr(6),                               // not an RFC 8122 name
           "md5 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF",  // another hash
           "sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33",  // sha-1 length
           std::string("sha-1 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:3\0", 65),
       }) {
    EXPECT_EQ(crypto::parse_fingerprint(bad).error(), Error::kMalformed) << bad;
  }
}

class TrustStoreTest : public ::testing::Test {
 protected:
  TrustStoreTest()
      : root_(make_cert("Test Root", nullptr, kCaExtensions)),
        intermediate_(make_cert("Test Intermediate", &root_, kCaExtensions)),
        server_(make_cert("example.test", &root_, leaf_extensions("serverAuth"))),
        client_(make_cert("client", &root_, leaf_extensions("clientAuth"))),
        below_intermediate_(
            make_cert("example.test", &intermediate_, leaf_extensions("serverAuth"))),
        expired_(make_cert("example.test", &root_, leaf_extensions("serverAuth"), -7200, -3600)),
        stranger_root_(make_cert("Test Root", nullptr, kCaExtensions)),  // the same name
        stranger_(make_cert("example.test", &stranger_root_, leaf_extensions("serverAuth"))) {}

  TestCert root_;
  TestCert intermediate_;
  TestCert server_;
  TestCert client_;
  TestCert below_intermediate_;
  TestCert expired_;
  TestCert stranger_root_;
  TestCert stranger_;
};

TEST_F(TrustStoreTest, VerifiesChainsUnderItsAnchors) {
  Result<TrustStore> loaded = TrustStore::from_pem(root_.pem);
  ASSERT_TRUE(loaded);
  const TrustStore store(std::move(*loaded));
  EXPECT_TRUE(store.verify(Ders{server_.der}, true, "example.test"));
  EXPECT_TRUE(store.verify(Ders{server_.der}, true, "EXAMPLE.test"));  // DNS names ignore case
  EXPECT_TRUE(store.verify(Ders{server_.der}, true));                  // no name asked
  EXPECT_TRUE(store.verify(Ders{server_.der, root_.der}, true, "example.test"));
  EXPECT_TRUE(store.verify(Ders{server_.der}, true, "192.0.2.1"));  // the iPAddress name
  EXPECT_TRUE(store.verify(Ders{below_intermediate_.der, intermediate_.der}, true, "example.test"));
  EXPECT_TRUE(store.verify(Ders{client_.der}, false));
  // The CLI hands chains over as CertificateChain::certificates().
  Result<CertificateChain> chain = CertificateChain::from_der(Ders{server_.der, root_.der});
  ASSERT_TRUE(chain);
  EXPECT_TRUE(store.verify(chain->certificates(), true, "example.test"));
}

TEST_F(TrustStoreTest, RefusesWhatItCannotVouchFor) {
  Result<TrustStore> store = TrustStore::from_pem(root_.pem);
  ASSERT_TRUE(store);
  const auto refused = [&](const Ders& chain, bool server, std::string_view host) {
    return store->verify(chain, server, host).error() == Error::kAuthFailed;
  };
  EXPECT_TRUE(refused({server_.der}, true, "other.test"));
  EXPECT_TRUE(refused({server_.der}, true, "www.example.test"));
  EXPECT_TRUE(refused({server_.der}, true, "test"));
  EXPECT_TRUE(refused({server_.der}, true, "192.0.2.2"));
  EXPECT_TRUE(refused({server_.der}, false, ""));  // serverAuth only: not a client
  EXPECT_TRUE(refused({client_.der}, true, ""));   // clientAuth only: not a server
  EXPECT_TRUE(refused({stranger_.der}, true, "example.test"));
  EXPECT_TRUE(refused({stranger_.der, stranger_root_.der}, true, "example.test"));
  EXPECT_TRUE(refused({below_intermediate_.der}, true, "example.test"));  // intermediate missing
  EXPECT_TRUE(refused({expired_.der}, true, "example.test"));
  EXPECT_TRUE(refused({}, true, ""));
  Result<CertifiedKey> self_signed = crypto::generate_self_signed(KeyType::kEcP256);
  ASSERT_TRUE(self_signed);
  EXPECT_TRUE(refused({self_signed->chain.der(0)}, true, ""));
  // An intermediate is no anchor of its own (no partial chains).
  Result<TrustStore> intermediate_only = TrustStore::from_pem(intermediate_.pem);
  ASSERT_TRUE(intermediate_only);
  EXPECT_EQ(
      intermediate_only->verify(Ders{below_intermediate_.der, intermediate_.der}, true).error(),
      Error::kAuthFailed);

  // Both roots: the stranger verifies too.
  Result<TrustStore> both =
      TrustStore::from_pem(bytes_of(text_of(root_.pem) + text_of(stranger_root_.pem)));
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->verify(Ders{stranger_.der}, true, "example.test"));
  EXPECT_TRUE(both->verify(Ders{server_.der}, true, "example.test"));
  // A repeated anchor is fine.
  EXPECT_TRUE(TrustStore::from_pem(bytes_of(text_of(root_.pem) + text_of(root_.pem))));
}

TEST_F(TrustStoreTest, MalformedInput) {
  EXPECT_EQ(TrustStore::from_pem(bytes_of("garbage")).error(), Error::kMalformed);
  EXPECT_EQ(TrustStore::from_pem({}).error(), Error::kMalformed);
  EXPECT_EQ(TrustStore::from_pem(bytes_of("-----BEGIN CERTIFICATE-----\nAAAA\n"
                                          "-----END CERTIFICATE-----\n"))
                .error(),
            Error::kMalformed);
  Result<TrustStore> store = TrustStore::from_pem(root_.pem);
  ASSERT_TRUE(store);
  const Bytes garbage = bytes_of("not a certificate");
  EXPECT_EQ(store->verify(Ders{garbage}, true).error(), Error::kMalformed);
  EXPECT_EQ(store->verify(Ders{server_.der, garbage}, true).error(), Error::kMalformed);
  EXPECT_EQ(store->verify(Ders{Bytes{}}, true).error(), Error::kMalformed);
  EXPECT_EQ(store->verify(Ders{server_.der}, true, std::string_view("example.test\0x", 14)).error(),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace wireseal::test
