#pragma once
// Backend interfaces behind the public keyed objects.
//
// The public classes (Aead, AesCtr, AesCbc, AesCmac) validate sizes and aliasing once; an
// implementation may assume valid arguments. One implementation object is created per key at
// construction; a call costs one indirect branch, nothing more.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/ct.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hash.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::crypto::detail {

using ::wireseal::detail::ct_equal;
using ::wireseal::detail::secure_wipe;

using Bytes = std::span<const std::uint8_t>;
using MutableBytes = std::span<std::uint8_t>;

class AeadImpl {
 public:
  virtual ~AeadImpl() = default;
  // seal writes in.size() bytes to out and tag.size() (== tag_len) bytes to tag.
  virtual void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
                    MutableBytes tag) noexcept = 0;
  // open decrypts into out and returns whether the tag matched (compared in constant time).
  // The caller zeroes out on failure.
  virtual bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept = 0;

  // single_calls is the object that serves seal/open of one message: this one, or for an
  // object that only adds a batch kernel in front of another (x86 AES-GCM), that other one,
  // which the front end then calls directly. Forwarding each call cost a second virtual call
  // whose span arguments, passed on the stack, GCC reloads in 16-byte pieces: a
  // store-forwarding stall of about 5 ns per message.
  virtual AeadImpl& single_calls() noexcept { return *this; }

  // seal_lanes / open_lanes take up to kMaxLanes already-validated batch jobs. Backends with a
  // multi-buffer kernel override them; the defaults loop. open_lanes returns a bit mask of the
  // jobs that authenticated (the caller zeroes and flags the others).
  static constexpr std::size_t kMaxLanes = 8;
  // interleave_max is the longest text a job may have for seal_lanes / open_lanes to run it
  // on a multi-buffer kernel (0: they only loop). Callers route longer ones to seal / open.
  virtual std::size_t interleave_max() const noexcept { return 0; }
  virtual void seal_lanes(SealJob* const* jobs, std::size_t num_jobs) noexcept {
    for (std::size_t i = 0; i < num_jobs; ++i) {
      seal(jobs[i]->nonce, jobs[i]->aad, jobs[i]->in, jobs[i]->out, jobs[i]->tag);
    }
  }
  virtual std::uint32_t open_lanes(OpenJob* const* jobs, std::size_t num_jobs) noexcept {
    std::uint32_t ok = 0;
    for (std::size_t i = 0; i < num_jobs; ++i) {
      const bool authentic =
          open(jobs[i]->nonce, jobs[i]->aad, jobs[i]->in, jobs[i]->out, jobs[i]->tag);
      ok |= std::uint32_t{authentic} << i;  // no branch on the secret verdict
    }
    return ok;
  }
};

enum class AesMode : std::uint8_t { kCtr, kCbc };

class AesModeImpl {
 public:
  virtual ~AesModeImpl() = default;
  virtual void ctr(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept = 0;
  virtual void cbc_encrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept = 0;
  virtual void cbc_decrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept = 0;

  // cbc_encrypt_lanes takes up to kMaxLanes validated jobs; multi-buffer backends override it.
  static constexpr std::size_t kMaxLanes = 8;
  virtual void cbc_encrypt_lanes(CbcJob* const* jobs, std::size_t num_jobs) noexcept {
    for (std::size_t i = 0; i < num_jobs; ++i) {
      cbc_encrypt(jobs[i]->iv.data(), jobs[i]->in, jobs[i]->out);
    }
  }

  // cbc_encrypt_hashing runs `steps` steps of a CBC encryption stitched with a hash: step j
  // encrypts the 64 bytes at in + 64j into out + 64j, chaining from `chain` (16 bytes, left
  // holding the last ciphertext block), and compresses the 64-byte block at blocks + 64j into
  // `state` (`hash`'s chaining value in native 32-bit words, h0..). A step reads its hashed
  // block and its plaintext before it writes its ciphertext. Backends with a kernel that
  // interleaves the two chains (x86: AES-NI with SHA-NI, for kSha1 and kSha256) override it;
  // the default returns false and does nothing, and the caller runs the two in turn.
  virtual bool cbc_encrypt_hashing(std::uint8_t* /*chain*/, const std::uint8_t* /*in*/,
                                   std::uint8_t* /*out*/, std::size_t /*steps*/,
                                   HashAlgorithm /*hash*/, std::uint32_t* /*state*/,
                                   const std::uint8_t* /*blocks*/) noexcept {
    return false;
  }
};

class CmacImpl {
 public:
  virtual ~CmacImpl() = default;
  virtual void compute(Bytes message, std::uint8_t* mac16) noexcept = 0;
};

// Factories, one per backend. They throw std::invalid_argument on bad keys. The native
// backend's factories and kernel table are its contract, backend/native.h.
std::unique_ptr<AeadImpl> make_openssl_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t nonce_len);
std::unique_ptr<AesModeImpl> make_openssl_aes_mode(AesMode mode, Bytes key);
std::unique_ptr<CmacImpl> make_openssl_cmac(Bytes key);

std::unique_ptr<AeadImpl> make_ipsecmb_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t nonce_len);

// Which primitives ipsec-mb implements (CPU permitting); native_supports is in native.h.
bool ipsecmb_supports(Primitive primitive) noexcept;

// Kernel choices that depend on CPU features, one predicate each, read by the objects when they
// are constructed and by the reports of what runs (tests, `wireseal version`).
// (native_uses_vaes, the native AES kernel choice, is in native.h.)
// hmac_uses_native_sha: HMAC-SHA1/SHA-256 with Backend::kAuto run on wireseal's native SHA
// compression kernels (x86: SHA-NI; ARM: the ARMv8 SHA instructions), single and lanes.
bool hmac_uses_native_sha() noexcept;
// ipsecmb_architecture names the ipsec-mb manager in use ("avx512-t2", "avx2-t1", "sse-t2",
// ...), or "" when ipsec-mb is not built or cannot run with these CPU features.
std::string_view ipsecmb_architecture() noexcept;

}  // namespace wireseal::crypto::detail
