// Key material does not outlive its object. This binary replaces operator delete: while a
// scan is armed, every freed block is searched for the test's key bytes (or values derived
// from them) before it goes back to malloc, and objects kept inline are checked after their
// destructor in the storage they were built in. A wipe the compiler elided shows up as a hit.
#include <gtest/gtest.h>
#include <malloc.h>

// g++ pairs the standard library's inlined allocations with the replaced operator delete
// below and warns of a mismatch that is not one: both sides go through malloc and free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/kdf.h"
#include "wireseal/crypto/mac.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"
#include "wireseal/smb/keys.h"
#include "wireseal/srtp/session.h"

namespace {

// Needle is one byte string a freed block must not contain.
struct Needle {
  std::array<std::uint8_t, 32> bytes{};
  std::size_t len = 0;
};

constexpr std::size_t kMaxNeedles = 8;
Needle g_needles[kMaxNeedles];
std::size_t g_num_needles = 0;
bool g_armed = false;
int g_hits = 0;

bool contains(const std::uint8_t* hay, std::size_t n, const Needle& needle) noexcept {
  for (std::size_t i = 0; i + needle.len <= n; ++i) {
    if (std::memcmp(hay + i, needle.bytes.data(), needle.len) == 0) {
      return true;
    }
  }
  return false;
}

// scan looks for the needles in a block being freed: its first `size` bytes, the object's,
// when the sized delete says how many (the allocator's slack after them may still hold an
// earlier block's bytes, such as the test's own key buffers), else the whole usable block.
void scan(void* p, std::size_t size = 0) noexcept {
  if (!g_armed || p == nullptr) {
    return;
  }
  const auto* bytes = static_cast<const std::uint8_t*>(p);
  const std::size_t n = size != 0 ? size : malloc_usable_size(p);
  for (std::size_t i = 0; i < g_num_needles; ++i) {
    if (contains(bytes, n, g_needles[i])) {
      ++g_hits;
    }
  }
}

// Scan arms the delete hook for the needles given, for its lifetime.
class Scan {
 public:
  Scan() {
    g_num_needles = 0;
    g_hits = 0;
  }
  void look_for(std::span<const std::uint8_t> bytes) {
    ASSERT_LT(g_num_needles, kMaxNeedles);
    ASSERT_LE(bytes.size(), 32u);
    Needle& n = g_needles[g_num_needles++];
    std::copy(bytes.begin(), bytes.end(), n.bytes.begin());
    n.len = bytes.size();
  }
  void arm() { g_armed = true; }
  int hits() {
    g_armed = false;
    return g_hits;
  }
  ~Scan() { g_armed = false; }
};

// inline_remains builds T in raw storage, destroys it, and tells whether `needle` is left.
template <class T, class... Args>
bool inline_remains(std::span<const std::uint8_t> needle, Args&&... args) {
  alignas(T) std::uint8_t storage[sizeof(T)] = {};  // no stale stack bytes in the scan
  T* object = new (storage) T(std::forward<Args>(args)...);
  object->~T();
  Needle n;
  std::copy(needle.begin(), needle.end(), n.bytes.begin());
  n.len = needle.size();
  return contains(storage, sizeof(storage), n);
}

}  // namespace

// The replaced delete frees with std::free, so new must allocate with malloc.
void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept {
  scan(p);
  std::free(p);
}
void operator delete[](void* p) noexcept {
  scan(p);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept;
void operator delete[](void* p, std::size_t) noexcept;
void operator delete(void* p, std::size_t size) noexcept {
  scan(p, size);
  std::free(p);
}
void operator delete[](void* p, std::size_t size) noexcept {
  scan(p, size);
  std::free(p);
}

namespace wireseal {
namespace {

using Bytes = std::vector<std::uint8_t>;

const Bytes kKey(32, 0xA5);

TEST(KeyWipe, AesRoundKeysAndCmacSubkeysOnEveryBackend) {
  // AES round key 0 is the key itself: any unwiped schedule still holds 16 bytes of 0xA5.
  for (crypto::Backend b : {crypto::Backend::kOpenSsl, crypto::Backend::kNative}) {
    for (std::size_t len : {16u, 32u}) {
      SCOPED_TRACE(std::string(crypto::to_string(b)) + " key " + std::to_string(len));
      const std::span<const std::uint8_t> key(kKey.data(), len);
      Scan scan;
      scan.look_for(std::span(kKey).first(16));
      scan.arm();
      if (crypto::is_available(crypto::Primitive::kAesCtr, b)) {
        crypto::AesCtr ctr(key, b);
        crypto::AesCbc cbc(key, b);
      }
      if (crypto::is_available(crypto::Primitive::kAesCmac, b)) {
        crypto::AesCmac cmac(key, b);
      }
      EXPECT_EQ(scan.hits(), 0);
    }
  }
}

TEST(KeyWipe, AeadKeysOnEveryBackend) {
  for (crypto::AeadAlgorithm a :
       {crypto::AeadAlgorithm::kAes128Gcm, crypto::AeadAlgorithm::kAes256Gcm,
        crypto::AeadAlgorithm::kAes128Ccm, crypto::AeadAlgorithm::kChaCha20Poly1305}) {
    for (crypto::Backend b :
         {crypto::Backend::kOpenSsl, crypto::Backend::kNative, crypto::Backend::kIpsecMb}) {
      if (!crypto::is_available(crypto::primitive_of(a), b)) {
        continue;  // availability per backend is asserted by the differential tests
      }
      SCOPED_TRACE(std::string(crypto::to_string(a)) + " " + std::string(crypto::to_string(b)));
      Scan scan;
      scan.look_for(std::span(kKey).first(16));
      scan.arm();
      { crypto::Aead aead(a, std::span(kKey).first(crypto::info(a).key_len), {.backend = b}); }
      EXPECT_EQ(scan.hits(), 0);
    }
  }
}

TEST(KeyWipe, HmacStatesKeyBlockAndSmbSessionKeysInline) {
  // An HMAC's saved inner state starts from key ^ ipad: with an all-0xA5 key that is 64
  // bytes of 0x93 before hashing; what must not remain are the chaining values, compared
  // here against a live copy.
  // The storage starts zeroed so that its padding bytes, which no constructor writes, cannot
  // carry stack garbage into the count.
  alignas(crypto::Hmac) std::uint8_t storage[sizeof(crypto::Hmac)] = {};
  auto* hmac = new (storage) crypto::Hmac(crypto::HashAlgorithm::kSha256, kKey);
  std::array<std::uint8_t, sizeof(crypto::Hmac)> live;
  std::memcpy(live.data(), storage, live.size());
  hmac->~Hmac();
  std::size_t unchanged_nonzero = 0;
  for (std::size_t i = 0; i < live.size(); ++i) {
    unchanged_nonzero += live[i] != 0 && storage[i] == live[i] ? 1u : 0u;
  }
  EXPECT_LE(unchanged_nonzero, 2u) << "HMAC state survived its destructor";

  Bytes block_bytes(dtls::KeyBlock::size(dtls::RecordCipher::kAes128Gcm), 0xA5);
  EXPECT_FALSE(inline_remains<dtls::KeyBlock>(
      std::span(kKey).first(16),
      std::move(*dtls::KeyBlock::from_bytes(dtls::RecordCipher::kAes128Gcm, block_bytes))));

  smb::SessionKeys keys;
  keys.client_to_server.fill(0xA5);
  keys.signing.fill(0xA5);
  EXPECT_FALSE(inline_remains<smb::SessionKeys>(std::span(kKey).first(16), keys));
}

TEST(KeyWipe, DtlsImplicitIvAndCbcIvGenerator) {
  // The GCM salt and the ChaCha20 IV come from the key block; fill the block with 0xA5.
  for (dtls::RecordCipher c :
       {dtls::RecordCipher::kAes128Gcm, dtls::RecordCipher::kChaCha20Poly1305,
        dtls::RecordCipher::kAes128CbcSha256}) {
    Bytes block_bytes(dtls::KeyBlock::size(c), 0xA5);
    dtls::KeyBlock block = std::move(*dtls::KeyBlock::from_bytes(c, block_bytes));
    Scan scan;
    scan.look_for(std::span(kKey).first(4));  // the shortest implicit IV (GCM's 4-byte salt)
    scan.arm();
    {
      dtls::RecordSealer sealer(block, dtls::Direction::kClientWrite, 1);
      dtls::RecordOpener opener(c, block.keys(dtls::Direction::kServerWrite), 1);
    }
    EXPECT_EQ(scan.hits(), 0) << dtls::info(c).name;
  }
}

TEST(KeyWipe, SrtpSessionSaltsAndKeys) {
  // The session salt derived by the SRTP KDF (label 0x02), computed independently here, must
  // be gone once the Session is.
  const Bytes master_key(16, 0x11);
  const Bytes master_salt(14, 0x22);
  std::uint8_t session_salt[14];
  ASSERT_TRUE(
      crypto::srtp_kdf(master_key, master_salt, crypto::SrtpKdfLabel::kRtpSalt, session_salt));
  Scan scan;
  scan.look_for(session_salt);
  scan.arm();
  {
    const srtp::MasterKey master{master_key, master_salt, {}};
    srtp::SessionConfig config;
    config.keys = {&master, 1};
    srtp::Session session(config);
  }
  EXPECT_EQ(scan.hits(), 0);
}

}  // namespace
}  // namespace wireseal
