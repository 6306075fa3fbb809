// Length limits past which a mode's block counter would wrap and reuse keystream, or a KDF's
// counter would repeat its output: every one refused with kInvalidArgument, nothing written.
//
// The AEAD limits lie beyond 64 GiB. The inputs are views of a PROT_NONE reservation of that
// size (address space only, no memory): the size checks come first, so refusing them touches
// no byte, and a check that did touch one would fault.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/kdf.h"

namespace wireseal::crypto {
namespace {

// Reservation is an inaccessible mapping of `len` bytes.
class Reservation {
 public:
  explicit Reservation(std::size_t len) : len_(len) {
    void* p = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<std::uint8_t*>(p);
  }
  ~Reservation() {
    if (base_ != nullptr) {
      munmap(base_, len_);
    }
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  std::uint8_t* data() const { return base_; }

 private:
  std::uint8_t* base_;
  std::size_t len_;
};

void expect_refused_beyond(AeadAlgorithm algorithm, std::uint64_t limit) {
  if constexpr (sizeof(std::size_t) < 8) {
    // No span on a 32-bit target can be that long: the limit holds by construction.
    GTEST_SKIP() << "a 32-bit std::size_t cannot express " << limit + 1 << " bytes";
  } else {
    const std::vector<std::uint8_t> key(info(algorithm).key_len, 7);
    Aead aead(algorithm, key);
    const std::size_t too_long = static_cast<std::size_t>(limit) + 1;
    Reservation r(too_long + 64);
    ASSERT_NE(r.data(), nullptr) << "cannot reserve address space";
    const std::uint8_t nonce[12] = {};
    std::uint8_t tag[16] = {};
    const std::span<std::uint8_t> huge(r.data(), too_long);
    EXPECT_EQ(aead.seal(nonce, {}, huge, huge, tag).error(), Error::kInvalidArgument);
    EXPECT_EQ(aead.open(nonce, {}, huge, huge, tag).error(), Error::kInvalidArgument);
    SealJob job{nonce, {}, huge, huge, tag, {}};
    aead.seal_batch({&job, 1});
    EXPECT_EQ(job.status.error(), Error::kInvalidArgument);
  }
}

TEST(AeadLimits, GcmRefusesMoreThan2To36Minus32Bytes) {
  expect_refused_beyond(AeadAlgorithm::kAes128Gcm, (std::uint64_t{1} << 36) - 32);
}

TEST(AeadLimits, ChaCha20Poly1305RefusesMoreThan2To38Minus64Bytes) {
  expect_refused_beyond(AeadAlgorithm::kChaCha20Poly1305, (std::uint64_t{1} << 38) - 64);
}

TEST(AeadLimits, CcmRefusesWhatItsLengthFieldCannotCarry) {
  // A 13-byte nonce leaves 2 length bytes: 65535 bytes at most.
  const std::vector<std::uint8_t> key(16, 7);
  Aead ccm(AeadAlgorithm::kAes128Ccm, key, AeadOptions{.tag_len = 16, .nonce_len = 13});
  const std::uint8_t nonce[13] = {};
  std::uint8_t tag[16];
  std::vector<std::uint8_t> buf(65536, 1);
  EXPECT_TRUE(ccm.seal(nonce, {}, std::span(buf).first(65535), buf, tag));
  EXPECT_EQ(ccm.seal(nonce, {}, buf, buf, tag).error(), Error::kInvalidArgument);
}

TEST(AeadInfo, EveryRowDescribesWhatTheAeadAccepts) {
  for (AeadAlgorithm a :
       {AeadAlgorithm::kAes128Gcm, AeadAlgorithm::kAes192Gcm, AeadAlgorithm::kAes256Gcm,
        AeadAlgorithm::kAes128Ccm, AeadAlgorithm::kAes192Ccm, AeadAlgorithm::kAes256Ccm,
        AeadAlgorithm::kChaCha20Poly1305}) {
    const AeadInfo& i = info(a);
    SCOPED_TRACE(i.name);
    EXPECT_EQ(i.algorithm, a);
    EXPECT_EQ(to_string(a), i.name);
    EXPECT_EQ(primitive_of(a), i.primitive);
    const AeadOptions options{
        .tag_len = i.tag_len, .nonce_len = i.nonce_len, .backend = Backend::kOpenSsl};
    EXPECT_NO_THROW(Aead(a, std::vector<std::uint8_t>(i.key_len, 1), options));
    EXPECT_THROW(Aead(a, std::vector<std::uint8_t>(i.key_len + 1, 1), options),
                 std::invalid_argument);
    EXPECT_GT(i.confidentiality_limit, 0u);
    EXPECT_GT(i.integrity_limit, 0u);
  }
  // RFC 9001 §6.6's figures, transcribed.
  EXPECT_EQ(info(AeadAlgorithm::kAes128Gcm).confidentiality_limit, std::uint64_t{1} << 23);
  EXPECT_EQ(info(AeadAlgorithm::kAes256Gcm).integrity_limit, std::uint64_t{1} << 52);
  EXPECT_EQ(info(AeadAlgorithm::kChaCha20Poly1305).integrity_limit, std::uint64_t{1} << 36);
}

TEST(KdfLimits, CounterModeNeverWrapsItsCounter) {
  // An 8-bit counter allows 255 blocks; a 256th would repeat block 0's input.
  const std::vector<std::uint8_t> key(32, 1);
  std::vector<std::uint8_t> out(255 * 32 + 1);
  EXPECT_TRUE(kbkdf_counter(KbkdfPrf::kHmacSha256, key, {}, {}, 8, std::span(out).first(255 * 32)));
  EXPECT_EQ(kbkdf_counter(KbkdfPrf::kHmacSha256, key, {}, {}, 8, out).error(),
            Error::kInvalidArgument);
  std::vector<std::uint8_t> cmac_out(255 * 16 + 1);
  EXPECT_TRUE(kbkdf_counter(KbkdfPrf::kCmacAes128, std::span(key).first(16), {}, {}, 8,
                            std::span(cmac_out).first(255 * 16)));
  EXPECT_EQ(
      kbkdf_counter(KbkdfPrf::kCmacAes128, std::span(key).first(16), {}, {}, 8, cmac_out).error(),
      Error::kInvalidArgument);
}

}  // namespace
}  // namespace wireseal::crypto
