#pragma once
// AES-CBC encryption stitched with SHA-1 or SHA-256 compression (AES-NI and SHA-NI in one
// instruction stream). Defined in cbc_sha_ni.cc, compiled with -maes -msha -msse4.1; call only
// when native_cbc_stitches_sha() (backend/native.h).
//
// Why: a CBC record of TLS/DTLS (MAC-then-encrypt or encrypt-then-MAC) is two serial chains,
// the CBC encryption (each block waits for the previous one's ten or fourteen AESENC) and the
// HMAC's compressions (each block waits for the previous state). Run one after the other they
// cost the sum of the two. Run side by side the core overlaps them, but only when their
// instructions are mixed finely in program order: the out-of-order window does not reach from
// one chain's code into the other's when they come in separate 64-byte pieces (measured on Zen
// 5: 8 KB, 10.4 -> 9.5 us in 256-byte pieces, where the stitched kernel takes the longer chain).

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// cbc_encrypt_sha1_ni / cbc_encrypt_sha256_ni run `steps` steps. Step j CBC-encrypts the 64
// bytes at in + 64j into out + 64j with the encryption round keys `round_keys` (rounds + 1
// blocks), chaining from `chain` (the IV or the previous ciphertext block, 16 bytes; updated
// to the last ciphertext block), and compresses the 64-byte block at blocks + 64j into
// `state` (h0..h4 / h0..h7). Within a step, the hashed block and the plaintext are read before
// any ciphertext is written, so the caller may hash bytes that the same step overwrites
// (MAC-then-encrypt in place) or ciphertext that an earlier step wrote (encrypt-then-MAC).
void cbc_encrypt_sha1_ni(const void* round_keys, int rounds, std::uint8_t chain[16],
                         const std::uint8_t* in, std::uint8_t* out, std::uint32_t state[5],
                         const std::uint8_t* blocks, std::size_t steps) noexcept;
void cbc_encrypt_sha256_ni(const void* round_keys, int rounds, std::uint8_t chain[16],
                           const std::uint8_t* in, std::uint8_t* out, std::uint32_t state[8],
                           const std::uint8_t* blocks, std::size_t steps) noexcept;

}  // namespace wireseal::crypto::detail
