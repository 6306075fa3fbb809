#pragma once
// Shared helpers of the SMB tests: OpenSSL EVP as an independent oracle, deterministic random
// sources and message builders.
#include <openssl/evp.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "wireseal/random.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb::test {

using Bytes = std::vector<std::uint8_t>;

// cipher_from_name maps "AES-128-GCM" etc. to Cipher.
Cipher cipher_from_name(const std::string& name);

// evp_aead_seal encrypts `plain` with OpenSSL EVP (AES-CCM/GCM, 16-byte tag) and returns
// ciphertext || tag.
Bytes evp_aead_seal(Cipher cipher, std::span<const std::uint8_t> key,
                    std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
                    std::span<const std::uint8_t> plain);

// evp_transform_seal builds the whole transformed message with EVP for a 16-byte nonce field.
Bytes evp_transform_seal(Cipher cipher, std::span<const std::uint8_t> key,
                         std::span<const std::uint8_t> nonce_field, std::uint64_t session_id,
                         std::span<const std::uint8_t> message);

// evp_mac computes "HMAC-SHA256" (first 16 bytes), "AES-128-CMAC" or "AES-128-GMAC" (iv given).
Bytes evp_mac(const std::string& algorithm, std::span<const std::uint8_t> key,
              std::span<const std::uint8_t> iv, std::span<const std::uint8_t> message);

// random_message returns an SMB2 message with a valid header and `body_len` random bytes.
Bytes random_message(std::mt19937_64& rng, std::size_t body_len, std::uint32_t flags = 0);

// fixed_random returns a RandomSource that yields `bytes` cyclically (the pointer must live).
RandomSource fixed_random(const Bytes* bytes);

}  // namespace wireseal::smb::test
