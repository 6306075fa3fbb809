// Reference AEAD backend: OpenSSL EVP used the careful way. The key is scheduled once per
// direction; each message only sets the nonce (EVP_CipherInit_ex with NULL cipher and key).
#include <climits>
#include <cstring>

#include "backend/interfaces.h"
#include "backend/openssl/evp_util.h"
#include "backend/portable/ccm_format.h"

namespace wireseal::crypto::detail {
namespace {

// update_chunked feeds `len` bytes to EVP_CipherUpdate in pieces OpenSSL's int can express.
bool update_chunked(EVP_CIPHER_CTX* ctx, std::uint8_t* out, const std::uint8_t* in,
                    std::size_t len) noexcept {
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  while (len > 0) {
    const std::size_t n = len < kChunk ? len : kChunk;
    int out_len = 0;
    if (EVP_CipherUpdate(ctx, out, &out_len, in, to_int(n)) != 1) {
      return false;
    }
    if (out != nullptr) {
      out += n;
    }
    in += n;
    len -= n;
  }
  return true;
}

// EvpAead covers GCM and ChaCha20-Poly1305, whose EVP call sequence is identical.
class EvpAead final : public AeadImpl {
 public:
  EvpAead(const EVP_CIPHER* cipher, Bytes key, std::size_t tag_len)
      : enc_(new_cipher_ctx()), dec_(new_cipher_ctx()), tag_len_(tag_len) {
    set_up_check(EVP_EncryptInit_ex(enc_.get(), cipher, nullptr, key.data(), nullptr),
                 "EVP_EncryptInit_ex");
    set_up_check(EVP_DecryptInit_ex(dec_.get(), cipher, nullptr, key.data(), nullptr),
                 "EVP_DecryptInit_ex");
  }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    EVP_CIPHER_CTX* ctx = enc_.get();
    int len = 0;
    EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    if (!aad.empty()) {
      update_chunked(ctx, nullptr, aad.data(), aad.size());
    }
    if (!in.empty()) {
      update_chunked(ctx, out.data(), in.data(), in.size());
    }
    EVP_EncryptFinal_ex(ctx, out.data() + in.size(), &len);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, to_int(tag_len_), tag.data());
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    EVP_CIPHER_CTX* ctx = dec_.get();
    int len = 0;
    EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    if (!aad.empty()) {
      update_chunked(ctx, nullptr, aad.data(), aad.size());
    }
    if (!in.empty()) {
      update_chunked(ctx, out.data(), in.data(), in.size());
    }
    // EVP wants a non-const tag pointer; it only reads it.
    std::uint8_t expected[16];
    std::memcpy(expected, tag.data(), tag_len_);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, to_int(tag_len_), expected);
    return EVP_DecryptFinal_ex(ctx, out.data() + in.size(), &len) == 1;
  }

 private:
  EvpCipherCtx enc_;
  EvpCipherCtx dec_;
  std::size_t tag_len_;
};

// EvpCcm: CCM over OpenSSL.
//
// Opening is CCM's two passes spelled out over OpenSSL's AES-CTR and AES-CBC, not EVP's CCM
// decryption: on a wrong tag that raises an error, which allocates and leaves an entry on the
// caller's thread error queue, so forged packets would cost heap allocations. The payload is
// AES-CTR from counter 1; the CBC-MAC of B0, the AAD and the plaintext is AES-CBC encryption
// from a zero IV of which only the last block is kept (SP 800-38C), masked with E(K, A_0).
//
// Sealing takes whichever is cheaper, as measured in instructions per 1400-byte record: on
// 32-bit ARM the same two passes (OpenSSL's AES-CTR there is its bit-sliced NEON code, while
// its CCM runs the T-table AES block by block: 87.8k against 110.5k on a Cortex-A7), elsewhere
// EVP's CCM (aarch64 without AES instructions: 66k against the two passes' 77k; x86 fuses
// CTR and MAC in its AES-NI CCM).
#if defined(__arm__)
constexpr bool kSealInTwoPasses = true;
#else
constexpr bool kSealInTwoPasses = false;
#endif

class EvpCcm final : public AeadImpl {
 public:
  EvpCcm(const EVP_CIPHER* cipher, Bytes key, std::size_t tag_len, std::size_t nonce_len)
      : ctr_(new_cipher_ctx()), mac_(new_cipher_ctx()), tag_len_(tag_len), nonce_len_(nonce_len) {
    if constexpr (!kSealInTwoPasses) {  // EVP's CCM context serves sealing only
      enc_ = new_cipher_ctx();
      set_up_check(EVP_EncryptInit_ex(enc_.get(), cipher, nullptr, nullptr, nullptr),
                   "EVP_EncryptInit_ex");
      set_up_check(
          EVP_CIPHER_CTX_ctrl(enc_.get(), EVP_CTRL_AEAD_SET_IVLEN, to_int(nonce_len), nullptr),
          "CCM IV length");
      set_up_check(EVP_CIPHER_CTX_ctrl(enc_.get(), EVP_CTRL_AEAD_SET_TAG, to_int(tag_len), nullptr),
                   "CCM tag length");
      set_up_check(EVP_EncryptInit_ex(enc_.get(), nullptr, nullptr, key.data(), nullptr),
                   "CCM key");
    }
    set_up_check(
        EVP_EncryptInit_ex(ctr_.get(), aes_cipher("CTR", key.size()), nullptr, key.data(), nullptr),
        "CTR key");
    set_up_check(
        EVP_EncryptInit_ex(mac_.get(), aes_cipher("CBC", key.size()), nullptr, key.data(), nullptr),
        "CBC key");
    set_up_check(EVP_CIPHER_CTX_set_padding(mac_.get(), 0), "CBC padding");
  }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    if constexpr (kSealInTwoPasses) {
      std::uint8_t full[16];
      compute_tag(nonce, aad, in.data(), in.size(), full);  // before `out` may overwrite `in`
      std::memcpy(tag.data(), full, tag_len_);
      ::wireseal::detail::secure_wipe(full, sizeof(full));
      payload(nonce, in.data(), out.data(), in.size());
      return;
    }
    EVP_CIPHER_CTX* ctx = enc_.get();
    int len = 0;
    EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data());
    EVP_EncryptUpdate(ctx, nullptr, &len, nullptr, to_int(in.size()));
    if (!aad.empty()) {
      EVP_EncryptUpdate(ctx, nullptr, &len, aad.data(), to_int(aad.size()));
    }
    // CCM computes the tag in this call, so it must happen even for an empty message.
    std::uint8_t dummy = 0;
    EVP_EncryptUpdate(ctx, in.empty() ? &dummy : out.data(), &len, in.empty() ? &dummy : in.data(),
                      to_int(in.size()));
    EVP_EncryptFinal_ex(ctx, &dummy, &len);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, to_int(tag_len_), tag.data());
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    payload(nonce, in.data(), out.data(), in.size());  // out = plaintext
    std::uint8_t expected[16];
    compute_tag(nonce, aad, out.data(), in.size(), expected);
    const bool ok = ct_equal(std::span<const std::uint8_t>(expected, tag_len_), tag);
    ::wireseal::detail::secure_wipe(expected, sizeof(expected));
    return ok;
  }

 private:
  // payload en- or decrypts with the counter blocks A_1, A_2, ...
  void payload(Bytes nonce, const std::uint8_t* in, std::uint8_t* out, std::size_t len) noexcept {
    std::uint8_t a[16];
    ccm::format_a0(a, nonce.data(), nonce_len_);
    a[15] = 1;
    ctr(a, in, out, len);
  }

  // compute_tag writes the full 16-byte tag: the CBC-MAC masked with E(K, A_0).
  void compute_tag(Bytes nonce, Bytes aad, const std::uint8_t* plaintext, std::size_t len,
                   std::uint8_t* tag) noexcept {
    std::uint8_t block[16];
    ccm::format_b0(block, nonce.data(), nonce_len_, tag_len_, aad.size(), len);
    CbcMac mac(mac_.get());
    mac.update(block, sizeof(block));
    if (!aad.empty()) {
      std::uint8_t length[10];
      mac.update(length, ccm::format_aad_length(length, aad.size()));
      mac.update(aad.data(), aad.size());
      mac.pad();
    }
    mac.update(plaintext, len);
    mac.pad();
    ccm::format_a0(block, nonce.data(), nonce_len_);
    ctr(block, mac.last(), tag, 16);
  }

  void ctr(const std::uint8_t* counter_block, const std::uint8_t* in, std::uint8_t* out,
           std::size_t len) noexcept {
    EVP_EncryptInit_ex(ctr_.get(), nullptr, nullptr, nullptr, counter_block);
    update_chunked(ctr_.get(), out, in, len);
  }

  // CbcMac runs AES-CBC from a zero IV over what update() is given and keeps the last block
  // it output: with the input padded to whole blocks, that is the CBC-MAC. The ciphertext
  // passes through a small buffer on the stack.
  class CbcMac {
   public:
    explicit CbcMac(EVP_CIPHER_CTX* ctx) noexcept : ctx_(ctx) {
      const std::uint8_t zero_iv[16] = {};
      EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, zero_iv);
    }
    ~CbcMac() {
      ::wireseal::detail::secure_wipe(scratch_, sizeof(scratch_));
      ::wireseal::detail::secure_wipe(last_, sizeof(last_));
    }
    CbcMac(const CbcMac&) = delete;
    CbcMac& operator=(const CbcMac&) = delete;

    void update(const std::uint8_t* data, std::size_t len) noexcept {
      while (len > 0) {
        const std::size_t n = len < kScratch ? len : kScratch;
        int written = 0;
        EVP_EncryptUpdate(ctx_, scratch_, &written, data, to_int(n));
        if (written >= 16) {
          std::memcpy(last_, scratch_ + written - 16, 16);
        }
        data += n;
        len -= n;
        fed_ += n;
      }
    }
    // pad feeds zeros up to the next block boundary.
    void pad() noexcept {
      static constexpr std::uint8_t kZeros[16] = {};
      update(kZeros, (16 - fed_ % 16) % 16);
    }
    const std::uint8_t* last() const noexcept { return last_; }

   private:
    static constexpr std::size_t kScratch = 512;
    EVP_CIPHER_CTX* ctx_;
    std::size_t fed_ = 0;
    std::uint8_t scratch_[kScratch + 16];  // EVP may write one block more than it was given
    std::uint8_t last_[16] = {};
  };

  EvpCipherCtx enc_;  // EVP's CCM, where it seals (null on 32-bit ARM)
  EvpCipherCtx ctr_;
  EvpCipherCtx mac_;
  std::size_t tag_len_;
  std::size_t nonce_len_;
};

}  // namespace

const EVP_CIPHER* aes_cipher(const char* mode, std::size_t key_len) {
  const bool gcm = std::strcmp(mode, "GCM") == 0;
  const bool ccm = std::strcmp(mode, "CCM") == 0;
  const bool ctr = std::strcmp(mode, "CTR") == 0;
  switch (key_len) {
    case 16:
      return gcm   ? EVP_aes_128_gcm()
             : ccm ? EVP_aes_128_ccm()
             : ctr ? EVP_aes_128_ctr()
                   : EVP_aes_128_cbc();
    case 24:
      return gcm   ? EVP_aes_192_gcm()
             : ccm ? EVP_aes_192_ccm()
             : ctr ? EVP_aes_192_ctr()
                   : EVP_aes_192_cbc();
    case 32:
      return gcm   ? EVP_aes_256_gcm()
             : ccm ? EVP_aes_256_ccm()
             : ctr ? EVP_aes_256_ctr()
                   : EVP_aes_256_cbc();
    default:
      throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
  }
}

std::unique_ptr<AeadImpl> make_openssl_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t nonce_len) {
  switch (algorithm) {
    case AeadAlgorithm::kAes128Gcm:
    case AeadAlgorithm::kAes192Gcm:
    case AeadAlgorithm::kAes256Gcm:
      return std::make_unique<EvpAead>(aes_cipher("GCM", key.size()), key, tag_len);
    case AeadAlgorithm::kAes128Ccm:
    case AeadAlgorithm::kAes192Ccm:
    case AeadAlgorithm::kAes256Ccm:
      return std::make_unique<EvpCcm>(aes_cipher("CCM", key.size()), key, tag_len, nonce_len);
    case AeadAlgorithm::kChaCha20Poly1305:
      return std::make_unique<EvpAead>(EVP_chacha20_poly1305(), key, tag_len);
  }
  throw std::invalid_argument("wireseal: unknown AEAD");
}

}  // namespace wireseal::crypto::detail
