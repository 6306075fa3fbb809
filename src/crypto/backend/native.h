#pragma once
// The native backend's contract: what every architecture's own kernels provide to the front
// ends (Aead, AesCtr, AesCbc, AesCmac, Hmac) and to backend selection. Exactly one
// implementation is linked, chosen by CMAKE_SYSTEM_PROCESSOR in src/CMakeLists.txt:
// backend/x86/ on x86-64, backend/arm/ on aarch64 and 32-bit ARM, backend/native_absent.cc
// anywhere else.
//
// Every answer here depends only on the CPU features read once at start-up (common/
// cpu_features.h, after the WIRESEAL_CPU_DISABLE mask) and never changes during the process,
// so a keyed object can ask once at construction and keep what it was given: no per-message
// dispatch on CPU features anywhere.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "interfaces.h"  // this folder's, so that tests can include crypto/backend/native.h
#include "wireseal/crypto/backend.h"

namespace wireseal::crypto::detail {

// native_supports tells whether the native backend serves `primitive` on this CPU. When it
// returns true, the matching factory below succeeds for every algorithm, key size and option
// of that primitive that the front end accepts (and, for the HMAC primitives, the matching
// members of native_sha_kernels() are set); when false, nothing below is ever called for it.
// Backend selection (backend_select.cc) builds is_available and kAuto on this alone.
bool native_supports(Primitive primitive) noexcept;

// The factories, each called only when native_supports says the native backend serves the
// primitive. They throw std::invalid_argument on bad keys, like every backend's factories
// (interfaces.h), and where no native kernel exists for the primitive.
std::unique_ptr<AeadImpl> make_native_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                           std::size_t nonce_len);
std::unique_ptr<AesModeImpl> make_native_aes_mode(AesMode mode, Bytes key);
std::unique_ptr<CmacImpl> make_native_cmac(Bytes key);

// kNativeChaChaOwnMax: records longer than this many bytes go from the native ChaCha20-Poly1305
// object to ipsec-mb's kernel inside it, when ipsec-mb serves ChaCha20-Poly1305 (x86).
inline constexpr std::size_t kNativeChaChaOwnMax = 512;

// native_gcm_batch_max: AES-GCM batch jobs with texts up to this many bytes run on the native
// multi-message kernel (x86 with AVX-512 and VAES: 256); 0 where there is none.
std::size_t native_gcm_batch_max() noexcept;

// native_uses_vaes: the native AES-CTR, AES-CBC decryption and AES-CCM bulk paths run on the
// wide (x86 VAES) kernels; false wherever there are none.
bool native_uses_vaes() noexcept;
// native_cbc_stitches_sha: the native AES-CBC object's cbc_encrypt_hashing runs a stitched
// kernel (x86: AES-NI with SHA-NI) for SHA-1 and SHA-256, so crypto::mac_then_encrypt and
// encrypt_then_mac interleave the two chains; false wherever there is none.
bool native_cbc_stitches_sha() noexcept;
// native_aes_name names the native AES kernels for kernel_report() ("vaes", "aes-ni",
// "armv8-ce"); only asked when native_supports(kAesCtr).
const char* native_aes_name() noexcept;

// ShaKernels is the hash-compression kernel table, chosen once from the CPU features. A null
// member means no native kernel for it on this CPU; a set one may be called with any state and
// any blocks, at any alignment, and must be constant time (straight-line code, addresses
// independent of the data). Each kernel has the layout of FIPS 180-4's chaining value in
// native 32-bit words (SHA-1: h0..h4, SHA-256: h0..h7) and reads 64-byte blocks:
//   sha1 / sha256       run `num_blocks` (>= 1) consecutive blocks into `state`;
//   sha1_x2 / sha256_x2 compress one block for each of two independent states, interleaved so
//                       one chain's latency hides behind the other's (multi-buffer HMAC). An
//                       _x2 member is set exactly when its single-lane member is (a target
//                       without an interleaved form sets one that runs the two in turn).
// HMAC-SHA1/SHA-256's native backend is exactly this table (hmac.cc, hmac_lanes.cc):
// native_supports(kHmacSha1 / kHmacSha256) is sha1 / sha256 != nullptr.
//   sha1_x16 / sha256_x16 compress one block for each of sixteen lanes held word-major in one
//                       state array (state[16 * word + lane]), updating only the lanes set in
//                       `active`; every block pointer must be readable. Null where the CPU has
//                       no wide vectors for it (x86: AVX-512F and AVX-512BW).
// `lanes` says how a batch of HMACs is spread over these kernels (hmac_lanes.cc): chosen per CPU
// at start-up, since whether interleaving pays depends on the core, not only on the features.
enum class HmacLanes : std::uint8_t {
  kOneByOne,  // each message alone on the single-lane kernel
  kPairs,     // up to four messages in lockstep, two at a time on the _x2 kernels
  kSixteen,   // up to sixteen messages in lockstep on the _x16 kernels
};

struct ShaKernels {
  using Compress = void (*)(std::uint32_t* state, const std::uint8_t* blocks,
                            std::size_t num_blocks) noexcept;
  using CompressX2 = void (*)(std::uint32_t* const* states,
                              const std::uint8_t* const* blocks) noexcept;
  using CompressX16 = void (*)(std::uint32_t* state, const std::uint8_t* const* blocks,
                               std::uint32_t active) noexcept;
  // CompressKeep is Compress that also ORs the state after block b, masked by keep[b], into
  // `kept` (the constant-time MAC-then-encrypt check's secret final block).
  using CompressKeep = void (*)(std::uint32_t* state, const std::uint8_t* blocks,
                                std::size_t num_blocks, const std::uint32_t* keep,
                                std::uint32_t* kept) noexcept;
  Compress sha1 = nullptr;
  CompressKeep sha1_keep = nullptr;  // optional even with sha1
  CompressX2 sha1_x2 = nullptr;
  CompressX16 sha1_x16 = nullptr;
  Compress sha256 = nullptr;
  CompressKeep sha256_keep = nullptr;  // optional even with sha256
  CompressX2 sha256_x2 = nullptr;
  CompressX16 sha256_x16 = nullptr;
  HmacLanes lanes = HmacLanes::kPairs;  // kSixteen only when the _x16 members are set
  const char* name = nullptr;           // the kernels' name in kernel_report() ("sha-ni"), or null
  const char* lanes_name = nullptr;     // the batch plan's ("sha-ni-x2", "avx512-x16"), or null
};

// native_sha_kernels returns this process's table (the same object on every call).
const ShaKernels& native_sha_kernels() noexcept;

}  // namespace wireseal::crypto::detail
