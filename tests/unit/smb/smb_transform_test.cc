// Differential tests against OpenSSL EVP on random messages, tamper tests (every byte of
// AAD, tag and payload), session and nonce checks for the transform and for signing.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "smb_test_util.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb {
namespace {

using test::Bytes;

constexpr Cipher kCiphers[] = {Cipher::kAes128Ccm, Cipher::kAes128Gcm, Cipher::kAes256Ccm,
                               Cipher::kAes256Gcm};

class TransformTest : public ::testing::TestWithParam<Cipher> {};

Bytes key_for(Cipher c, std::mt19937_64& rng) {
  Bytes k(info(c).key_len);
  for (auto& b : k) {
    b = static_cast<std::uint8_t>(rng());
  }
  return k;
}

TEST_P(TransformTest, SealMatchesEvpAndOpensOnRandomMessages) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(c));
  const Bytes key = key_for(c, rng);
  const std::uint64_t sid = rng();
  TransformSealer sealer(c, key, sid);
  TransformOpener opener(c, key, sid);
  for (std::size_t len : {1u, 15u, 16u, 17u, 64u, 65u, 200u, 1024u, 4099u, 65536u}) {
    SCOPED_TRACE("len " + std::to_string(len));
    const Bytes message = test::random_message(rng, len > 64 ? len - 64 : 0);
    const Bytes msg =
        len >= 64 ? message : Bytes(message.begin(), message.begin() + static_cast<long>(len));
    Bytes out(kTransformHeaderSize + msg.size());
    // Out of place for odd lengths, in place for the others.
    Result<std::size_t> n = 0;
    if (len % 2 == 1) {
      n = sealer.seal(msg, out);
    } else {
      std::copy(msg.begin(), msg.end(), out.begin() + kTransformHeaderSize);
      n = sealer.seal(out, msg.size());
    }
    ASSERT_TRUE(n);
    ASSERT_EQ(*n, out.size());
    const Bytes expected = test::evp_transform_seal(
        c, key, std::span<const std::uint8_t>(out).subspan(20, 16), sid, msg);
    EXPECT_EQ(out, expected);
    const Result<std::span<std::uint8_t>> plain = opener.open(out);
    ASSERT_TRUE(plain);
    EXPECT_EQ(Bytes(plain->begin(), plain->end()), msg);
  }
}

TEST_P(TransformTest, OpenIntoAnyBufferTheRulesAllowAndSizesAreExact) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(23);
  const Bytes key = key_for(c, rng);
  TransformSealer sealer(c, key, 8);
  TransformOpener opener(c, key, 8);
  const Bytes msg = test::random_message(rng, 100);
  EXPECT_EQ(TransformSealer::overhead(), kTransformHeaderSize);
  EXPECT_EQ(TransformSealer::payload_offset(), kTransformHeaderSize);
  EXPECT_EQ(TransformSealer::sealed_size(msg.size()), kTransformHeaderSize + msg.size());
  EXPECT_EQ(TransformSealer::max_plaintext_size(kTransformHeaderSize + msg.size()), msg.size());
  EXPECT_EQ(TransformSealer::max_plaintext_size(kTransformHeaderSize), 0u);
  Bytes sealed(TransformSealer::sealed_size(msg.size()));
  ASSERT_TRUE(sealer.seal(msg, sealed));
  EXPECT_EQ(TransformOpener::opened_size(sealed.size()), msg.size());
  // Into a disjoint buffer: the input is left as it was.
  const Bytes original = sealed;
  Bytes out(msg.size());
  Result<std::span<std::uint8_t>> plain = opener.open(std::span<const std::uint8_t>(sealed), out);
  ASSERT_TRUE(plain);
  EXPECT_EQ(Bytes(plain->begin(), plain->end()), msg);
  EXPECT_EQ(sealed, original);
  // Into the message's own buffer: the plaintext comes back at its start.
  Bytes same = sealed;
  plain = opener.open(std::span<const std::uint8_t>(same), std::span<std::uint8_t>(same));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->data(), same.data());
  EXPECT_EQ(Bytes(plain->begin(), plain->end()), msg);
  // Partial overlap and short outputs are refused.
  Bytes shifted(sealed.size() + 8);
  std::copy(sealed.begin(), sealed.end(), shifted.begin());
  EXPECT_EQ(opener
                .open(std::span<const std::uint8_t>(shifted).first(sealed.size()),
                      std::span<std::uint8_t>(shifted).subspan(8))
                .error(),
            Error::kAliasing);
  Bytes small(msg.size() - 1);
  EXPECT_EQ(opener.open(std::span<const std::uint8_t>(sealed), small).error(),
            Error::kBufferTooSmall);
  EXPECT_EQ(TransformOpener::create(c, Bytes(info(c).key_len - 1), 8).error(),
            Error::kInvalidArgument);
  EXPECT_TRUE(TransformOpener::create(c, key, 8));
}

TEST_P(TransformTest, EveryTamperedByteIsRejected) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(7);
  const Bytes key = key_for(c, rng);
  TransformSealer sealer(c, key, 42);
  TransformOpener opener(c, key, 42);
  const Bytes msg = test::random_message(rng, 37);
  Bytes sealed(kTransformHeaderSize + msg.size());
  ASSERT_TRUE(sealer.seal(msg, sealed));
  for (std::size_t i = 4; i < sealed.size(); ++i) {
    for (std::uint8_t bit : {std::uint8_t{0x01}, std::uint8_t{0x80}}) {
      Bytes t = sealed;
      t[i] ^= bit;
      const Result<std::span<std::uint8_t>> r = opener.open(t);
      ASSERT_FALSE(r) << "byte " << i;
      // Bytes 36..43 and 44..51 are checked before the AEAD (size, flags, session): those
      // reject as malformed / wrong session; the rest fail authentication.
      if (i >= kTransformHeaderSize) {
        EXPECT_EQ(r.error(), Error::kAuthFailed);
        EXPECT_EQ(Bytes(t.begin() + kTransformHeaderSize, t.end()), Bytes(msg.size(), 0))
            << "plaintext must be zeroed on failure";
      }
    }
  }
  Bytes ok = sealed;
  EXPECT_TRUE(opener.open(ok));
}

TEST_P(TransformTest, WrongSessionAndMalformedAreRejected) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(9);
  const Bytes key = key_for(c, rng);
  TransformSealer sealer(c, key, 1);
  TransformOpener other_session(c, key, 2);
  const Bytes msg = test::random_message(rng, 10);
  Bytes sealed(kTransformHeaderSize + msg.size());
  ASSERT_TRUE(sealer.seal(msg, sealed));
  Bytes t = sealed;
  EXPECT_EQ(other_session.open(t).error(), Error::kWrongContext);
  EXPECT_EQ(t, sealed) << "a message for another session is not touched";
  TransformOpener opener(c, key, 1);
  Bytes shortened(sealed.begin(), sealed.end() - 1);
  EXPECT_EQ(opener.open(shortened).error(), Error::kMalformed);
  Bytes header_only(sealed.begin(), sealed.begin() + kTransformHeaderSize);
  EXPECT_EQ(opener.open(header_only).error(), Error::kMalformed);
  Bytes bad_proto = sealed;
  bad_proto[0] = 0xFE;
  EXPECT_EQ(opener.open(bad_proto).error(), Error::kMalformed);
}

TEST_P(TransformTest, NoncesNeverRepeatAndExhaustionRefuses) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(11);
  const Bytes key = key_for(c, rng);
  // The counter's last value, 2^64 - 1, is never handed out: two nonces are left here.
  TransformSealer sealer(
      c, key, 5,
      TransformSealerOptions{.first_counter = std::numeric_limits<std::uint64_t>::max() - 2});
  const Bytes msg = test::random_message(rng, 0);
  Bytes a(kTransformHeaderSize + msg.size()), b(a.size()), d(a.size());
  ASSERT_TRUE(sealer.seal(msg, a));
  ASSERT_TRUE(sealer.seal(msg, b));
  EXPECT_NE(Bytes(a.begin() + 20, a.begin() + 36), Bytes(b.begin() + 20, b.begin() + 36));
  EXPECT_EQ(sealer.seal(msg, d).error(), Error::kSequenceExhausted);
  EXPECT_EQ(sealer.seal(msg, d).error(), Error::kSequenceExhausted);
}

TEST_P(TransformTest, ChannelsOfOneKeyDrawFromOneNonceSource) {
  // Multichannel: several sealers (one per channel, each on its own thread) under one key
  // share the key's TransformNonces, so no two messages of the session share a nonce.
  const Cipher c = GetParam();
  std::mt19937_64 rng(17);
  const Bytes key = key_for(c, rng);
  TransformSealer first(c, key, 5);
  TransformSealer second(c, key, 5, {.nonces = first.nonces()});
  TransformOpener opener(c, key, 5);
  constexpr int kPerChannel = 20000;
  const Bytes msg = test::random_message(rng, 16);
  std::vector<Bytes> sealed_by[2];
  auto run = [&](TransformSealer& sealer, std::vector<Bytes>& out) {
    for (int i = 0; i < kPerChannel; ++i) {
      Bytes buf(kTransformHeaderSize + msg.size());
      if (!sealer.seal(msg, buf)) {
        return;
      }
      out.push_back(std::move(buf));
    }
  };
  std::thread t1(run, std::ref(first), std::ref(sealed_by[0]));
  std::thread t2(run, std::ref(second), std::ref(sealed_by[1]));
  t1.join();
  t2.join();
  std::set<std::array<std::uint8_t, kTransformNonceSize>> nonces;
  for (auto& channel : sealed_by) {
    ASSERT_EQ(channel.size(), std::size_t{kPerChannel});
    for (Bytes& m : channel) {
      std::array<std::uint8_t, kTransformNonceSize> n{};
      std::copy_n(m.begin() + kTransformNonceOffset, n.size(), n.begin());
      nonces.insert(n);
      ASSERT_TRUE(opener.open(m));
    }
  }
  EXPECT_EQ(nonces.size(), std::size_t{2 * kPerChannel});

  // A sealer refuses nonces of another cipher, or a first counter beside shared nonces (it
  // could only rewind them); create() says so without throwing.
  const Cipher other = c == Cipher::kAes128Gcm ? Cipher::kAes128Ccm : Cipher::kAes128Gcm;
  EXPECT_THROW(TransformSealer(c, key, 5, {.nonces = std::make_shared<TransformNonces>(other)}),
               std::invalid_argument);
  EXPECT_THROW(TransformSealer(c, key, 5, {.nonces = first.nonces(), .first_counter = 0}),
               std::invalid_argument);
  EXPECT_EQ(TransformSealer::create(c, key, 5, {.nonces = std::make_shared<TransformNonces>(other)})
                .error(),
            Error::kInvalidArgument);
  EXPECT_TRUE(TransformSealer::create(c, key, 5, {.nonces = first.nonces()}));
}

TEST_P(TransformTest, IndependentNonceSourcesStartApart) {
  // Two sources wrongly made for one key (say, after a lost channel binding) still start at
  // independent random counters below 2^63 with independent salts.
  const Cipher c = GetParam();
  std::set<std::array<std::uint8_t, kTransformNonceSize>> first_nonces;
  std::set<std::uint64_t> starts;
  for (int i = 0; i < 64; ++i) {
    TransformNonces nonces(c);
    const std::uint64_t start = nonces.next_counter();
    EXPECT_LT(start, std::uint64_t{1} << 63);
    starts.insert(start);
    std::array<std::uint8_t, kTransformNonceSize> n{};
    ASSERT_TRUE(nonces.next(n));
    first_nonces.insert(n);
    // Handing out a nonce consumes exactly the counter it started at.
    EXPECT_EQ(nonces.next_counter(), start + 1);
  }
  EXPECT_EQ(first_nonces.size(), 64u);
  EXPECT_EQ(starts.size(), 64u);
}

TEST_P(TransformTest, ArgumentChecks) {
  const Cipher c = GetParam();
  std::mt19937_64 rng(13);
  const Bytes key = key_for(c, rng);
  TransformSealer sealer(c, key, 5);
  const std::uint64_t first_counter = sealer.next_counter();
  const Bytes header = test::random_message(rng, 0);
  const Bytes message(header.begin(), header.begin() + 48);  // what fits beside the 52 bytes
  Bytes buf(100);
  std::copy(message.begin(), message.end(), buf.begin() + kTransformHeaderSize);
  const Bytes before = buf;
  EXPECT_EQ(sealer.seal(buf, 49).error(), Error::kBufferTooSmall);
  EXPECT_EQ(sealer.seal(buf, 0).error(), Error::kInvalidArgument);
  // Partial overlap of message and output.
  EXPECT_EQ(sealer.seal(std::span<const std::uint8_t>(buf).subspan(10, 40), buf).error(),
            Error::kAliasing);
  // A refused call writes nothing and consumes no nonce...
  EXPECT_EQ(buf, before);
  EXPECT_EQ(sealer.next_counter(), first_counter);
  // ...and the same sealer seals the largest message that fits (52 + 48 = 100 bytes), which
  // opens to the message under the first nonce: the limits above are the exact ones.
  const Result<std::size_t> sealed = sealer.seal(buf, message.size());
  ASSERT_TRUE(sealed);
  EXPECT_EQ(*sealed, buf.size());
  EXPECT_EQ(sealer.next_counter(), first_counter + 1);
  TransformOpener opener(c, key, 5);
  const Result<std::span<std::uint8_t>> plain = opener.open(buf);
  ASSERT_TRUE(plain);
  EXPECT_EQ(Bytes(plain->begin(), plain->end()), message);
  EXPECT_THROW(TransformSealer(c, Bytes(info(c).key_len + 1), 5), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(AllCiphers, TransformTest, ::testing::ValuesIn(kCiphers),
                         [](const ::testing::TestParamInfo<Cipher>& p) {
                           std::string s = to_string(p.param);
                           std::erase(s, '-');
                           return s;
                         });

struct SigningCase {
  SigningAlgorithm algorithm;
  const char* evp_name;
};

class SigningTest : public ::testing::TestWithParam<SigningCase> {};

TEST_P(SigningTest, MatchesEvpOnRandomMessagesAndRejectsTampering) {
  const SigningCase sc = GetParam();
  std::mt19937_64 rng(17);
  Bytes key(16);
  for (auto& b : key) {
    b = static_cast<std::uint8_t>(rng());
  }
  Signer signer(sc.algorithm, key);
  for (std::size_t body : {0u, 1u, 31u, 100u, 4096u}) {
    for (std::uint32_t flags : {0u, kFlagServerToRedir}) {
      Bytes m = test::random_message(rng, body, flags);
      if (body == 31) {
        m[12] = 0x0C;  // CANCEL: GMAC nonce bit 1
        m[13] = 0;
      }
      ASSERT_TRUE(signer.sign(m));
      EXPECT_TRUE(m[16] & kFlagSigned);
      Bytes zeroed = m;
      std::fill(zeroed.begin() + 48, zeroed.begin() + 64, std::uint8_t{0});
      Bytes iv(m.begin() + 24, m.begin() + 32);
      iv.push_back(static_cast<std::uint8_t>(((m[16] & 1) ? 1 : 0) | (m[12] == 0x0C ? 2 : 0)));
      iv.resize(12, 0);
      EXPECT_EQ(Bytes(m.begin() + 48, m.begin() + 64), test::evp_mac(sc.evp_name, key, iv, zeroed));
      const Bytes before = m;
      EXPECT_TRUE(signer.verify(m));
      EXPECT_EQ(m, before) << "verify restores the buffer";
      if (body == 100) {
        for (std::size_t i = 0; i < m.size(); ++i) {
          Bytes t = m;
          t[i] ^= 0x04;
          if (i == 16) {
            continue;  // clearing SIGNED is covered below
          }
          EXPECT_FALSE(signer.verify(t)) << "byte " << i;
        }
        Bytes unsigned_msg = m;
        unsigned_msg[16] &= static_cast<std::uint8_t>(~kFlagSigned);
        EXPECT_EQ(signer.verify(unsigned_msg).error(), Error::kAuthFailed);
      }
    }
  }
  Bytes short_msg(63, 0);
  EXPECT_EQ(signer.sign(short_msg).error(), Error::kMalformed);
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, SigningTest,
                         ::testing::Values(SigningCase{SigningAlgorithm::kHmacSha256,
                                                       "HMAC-SHA256"},
                                           SigningCase{SigningAlgorithm::kAesCmac, "AES-128-CMAC"},
                                           SigningCase{SigningAlgorithm::kAesGmac, "AES-128-GMAC"}),
                         [](const ::testing::TestParamInfo<SigningCase>& p) {
                           return p.param.algorithm == SigningAlgorithm::kHmacSha256
                                      ? std::string("HmacSha256")
                                      : std::string(p.param.evp_name).substr(8);
                         });

}  // namespace
}  // namespace wireseal::smb
