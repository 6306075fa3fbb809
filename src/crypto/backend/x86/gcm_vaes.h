#pragma once
// AES-GCM (NIST SP 800-38D) for short messages on VAES and VPCLMULQDQ with 512-bit registers,
// several messages per call. The counter blocks of all the messages are encrypted together,
// four to a register and four registers in flight, and each message's GHASH is one sum of
// products with precomputed powers of H followed by a single reduction, so the messages'
// multiplications are independent of one another and overlap. Defined in gcm_vaes.cc, built
// with -mavx512f -mavx512bw -mavx512vl -mvaes -mvpclmulqdq; call only when the CPU has all five
// (and AES-NI and PCLMULQDQ): native_select.cc checks.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// kGcmVaesMaxBlocks bounds one message's GHASH input in 16-byte blocks: its associated data
// and its text, each zero-padded to whole blocks, plus the length block. There is one
// precomputed power of H per block, so the whole sum needs no reduction before the end.
inline constexpr std::size_t kGcmVaesMaxBlocks = 32;
// kGcmVaesMaxMessages bounds the messages of one call (the keystream of all of them lives on
// the stack: 4 KiB at most).
inline constexpr std::size_t kGcmVaesMaxMessages = 8;

// gcm_vaes_ghash_blocks is a message's GHASH input in blocks: associated data and text each
// zero-padded, then the length block.
constexpr std::size_t gcm_vaes_ghash_blocks(std::size_t aad_len, std::size_t len) noexcept {
  return (aad_len + 15) / 16 + (len + 15) / 16 + 1;
}

// gcm_vaes_fits tells whether a message with `aad_len` bytes of associated data and `len`
// bytes of text is short enough for this kernel.
constexpr bool gcm_vaes_fits(std::size_t aad_len, std::size_t len) noexcept {
  return aad_len <= 16 * kGcmVaesMaxBlocks && len <= 16 * kGcmVaesMaxBlocks &&
         gcm_vaes_ghash_blocks(aad_len, len) <= kGcmVaesMaxBlocks;
}

// GcmVaesKey is an expanded key: the AES round keys and H^32 .. H^1 in the order the kernel
// multiplies by them (each times x^-1, in GHASH's reflected bit order), then three zero blocks
// that a partial last register multiplies against. Secret: the owner wipes it.
struct GcmVaesKey {
  alignas(64) std::uint8_t round_keys[15][16];
  alignas(64) std::uint8_t powers[kGcmVaesMaxBlocks + 3][16];
  int rounds = 0;
};

// GcmVaesMessage is one message of a call. The nonce is 12 bytes (the counter starts at
// nonce || 1). `in` and `out` are `len` bytes and either the same buffer or disjoint. Sealing
// writes the whole 16-byte tag to `tag`; opening compares the computed tag with the tag_len
// bytes at `received_tag`.
struct GcmVaesMessage {
  const std::uint8_t* nonce;
  const std::uint8_t* aad;
  std::size_t aad_len;
  const std::uint8_t* in;
  std::uint8_t* out;
  std::size_t len;
  union {
    std::uint8_t tag[16];              // sealing
    const std::uint8_t* received_tag;  // opening
  };
};

// gcm_vaes_init expands a 16-, 24- or 32-byte AES key (std::invalid_argument otherwise).
void gcm_vaes_init(GcmVaesKey& key, const std::uint8_t* aes_key, std::size_t key_len);

// gcm_vaes_seal encrypts and authenticates `count` (1..kGcmVaesMaxMessages) messages, each one
// for which gcm_vaes_fits holds. gcm_vaes_open authenticates them (reading the ciphertext
// before it is overwritten) and decrypts them, and returns the verdicts: bit i is set when
// message i's received tag equals the first `tag_len` (1..16) bytes of the computed one. The
// comparison is constant time, and the computed tags never leave registers. The caller must
// discard the text of a message that failed.
void gcm_vaes_seal(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count) noexcept;
std::uint32_t gcm_vaes_open(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count,
                            std::size_t tag_len) noexcept;

}  // namespace wireseal::crypto::detail
