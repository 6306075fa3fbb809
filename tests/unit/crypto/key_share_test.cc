// KeyShare ((EC)DH for the DTLS handshake) against published vectors: RFC 7748 §5.2 X25519
// and NIST's KAS ECC CDH validity set for P-256 and P-384 (python3-cryptography-vectors),
// whose failing cases — invalid peer points, a wrong public key, a wrong shared secret — must
// all be caught; then fresh shares agreeing with each other.
#include "wireseal/crypto/key_share.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "crypto_test_util.h"
#include "support/vector_file.h"

namespace wireseal::test {
namespace {

using crypto::KeyShare;
using crypto::NamedGroup;

TEST(KeyShare, Rfc7748X25519Vectors) {
  std::size_t checked = 0;
  for (const VectorRecord& r : read_vectors_or_fail(cavp_dir() / "asymmetric/X25519/rfc7748.txt")) {
    SCOPED_TRACE(r.line);
    Result<KeyShare> share = KeyShare::from_private(NamedGroup::kX25519, r.hex("INPUT_SCALAR"));
    ASSERT_TRUE(share);
    std::array<std::uint8_t, 32> shared{};
    ASSERT_TRUE(share->derive(r.hex("INPUT_U"), shared));
    EXPECT_EQ(Bytes(shared.begin(), shared.end()), r.hex("OUTPUT_U"));
    ++checked;
  }
  EXPECT_GE(checked, 2u);
}

TEST(KeyShare, X25519RefusesLowOrderPointsAndWrongSizes) {
  Result<KeyShare> share = KeyShare::generate(NamedGroup::kX25519);
  ASSERT_TRUE(share);
  std::array<std::uint8_t, 32> shared{};
  const Bytes zero(32, 0);  // order 1: the all-zero output RFC 7748 §6.1 says to refuse
  Bytes one(32, 0);
  one[0] = 1;  // order 4... 1 is a low-order point as well
  EXPECT_EQ(share->derive(zero, shared).error(), Error::kMalformed);
  EXPECT_EQ(share->derive(one, shared).error(), Error::kMalformed);
  EXPECT_EQ(share->derive(Bytes(31, 9), shared).error(), Error::kMalformed);
  std::array<std::uint8_t, 31> short_out{};
  EXPECT_EQ(share->derive(share->public_key(), short_out).error(), Error::kBufferTooSmall);
}

// The KAS validity file's verdicts: P (all correct) or F (one thing changed).
TEST(KeyShare, NistEcdhValidityVectorsP256P384) {
  std::size_t passes = 0;
  std::size_t failures_caught = 0;
  const auto records = read_vectors_or_fail(
      cavp_dir() / "asymmetric/ECDH/KASValidityTest_ECCStaticUnified_NOKC_ZZOnly_init.fax");
  for (const VectorRecord& r : records) {
    if (!r.has("dsIUT")) {
      continue;
    }
    const Bytes d = r.hex("dsIUT");
    NamedGroup group;
    if (d.size() == 32) {
      group = NamedGroup::kSecp256r1;
    } else if (d.size() == 48) {
      group = NamedGroup::kSecp384r1;
    } else {
      continue;  // P-192, P-224, P-521: not DTLS groups wireseal offers
    }
    SCOPED_TRACE(r.line);
    const auto point = [&](const char* x, const char* y) {
      Bytes p = {0x04};
      const Bytes px = r.hex(x);
      const Bytes py = r.hex(y);
      p.insert(p.end(), px.begin(), px.end());
      p.insert(p.end(), py.begin(), py.end());
      return p;
    };
    const Bytes peer = point("QsCAVSx", "QsCAVSy");
    const Bytes own = point("QsIUTx", "QsIUTy");
    const Bytes z = r.hex("Z");
    const std::string verdict = r.get("Result");
    Result<KeyShare> share = KeyShare::from_private(group, d);
    ASSERT_TRUE(share);
    Bytes shared(z.size());
    const Status derived = share->derive(peer, shared);
    const bool all_match = derived &&
                           Bytes(share->public_key().begin(), share->public_key().end()) == own &&
                           shared == z;
    if (verdict.rfind("P", 0) == 0) {
      EXPECT_TRUE(all_match);
      ++passes;
    } else if (verdict.find("CAVS's Static public key") != std::string::npos) {
      EXPECT_EQ(derived.error(), Error::kMalformed) << verdict;  // not on the curve
      ++failures_caught;
    } else {
      EXPECT_FALSE(all_match) << verdict;
      ++failures_caught;
    }
  }
  EXPECT_GE(passes, 8u);
  EXPECT_GE(failures_caught, 20u);
}

TEST(KeyShare, FreshSharesAgreeOnEveryGroup) {
  for (NamedGroup g : {NamedGroup::kX25519, NamedGroup::kSecp256r1, NamedGroup::kSecp384r1}) {
    SCOPED_TRACE(crypto::info(g).name);
    Result<KeyShare> a = KeyShare::generate(g);
    Result<KeyShare> b = KeyShare::generate(g);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->public_key().size(), crypto::info(g).public_key_size);
    EXPECT_NE(Bytes(a->public_key().begin(), a->public_key().end()),
              Bytes(b->public_key().begin(), b->public_key().end()));
    Bytes ab(crypto::info(g).shared_secret_size);
    Bytes ba(ab.size());
    ASSERT_TRUE(a->derive(b->public_key(), ab));
    ASSERT_TRUE(b->derive(a->public_key(), ba));
    EXPECT_EQ(ab, ba);
    if (g != NamedGroup::kX25519) {
      Bytes off_curve(a->public_key().begin(), a->public_key().end());
      off_curve.back() ^= 1;
      EXPECT_EQ(b->derive(off_curve, ba).error(), Error::kMalformed);
      Bytes compressed(a->public_key().begin(),
                       a->public_key().begin() + 1 + static_cast<long>(ab.size()));
      compressed[0] = 0x02;
      EXPECT_EQ(b->derive(compressed, ba).error(), Error::kMalformed);  // wrong size for TLS
    }
  }
  EXPECT_EQ(crypto::named_group(29).value(), NamedGroup::kX25519);
  EXPECT_EQ(crypto::named_group(25).error(), Error::kUnsupported);
  EXPECT_EQ(KeyShare::from_private(NamedGroup::kSecp256r1, Bytes(31, 1)).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(KeyShare::from_private(NamedGroup::kSecp256r1, Bytes(32, 0)).error(),
            Error::kInvalidArgument);  // zero is not a private key
}

}  // namespace
}  // namespace wireseal::test
