#pragma once
// AES-CBC decryption with VAES on 512-bit registers (32 blocks in flight). Defined in
// vaes512_cbc.cc, compiled with -mavx512f -mvaes; call only when features().vaes && .avx512f.

#include <cstddef>
#include <cstdint>

namespace wireseal::crypto::detail {

// cbc_decrypt_uses_vaes512: this CPU runs cbc_decrypt_vaes512 (VAES and AVX-512F; defined in
// native_select.cc, which is built for the baseline).
bool cbc_decrypt_uses_vaes512() noexcept;

// cbc_decrypt_vaes512 decrypts all len / 16 blocks of `in` (len a multiple of 16) with the
// equivalent-inverse-cipher round keys `dec_round_keys` (rounds + 1 blocks), chaining from
// `iv`. `in` and `out` may be identical.
void cbc_decrypt_vaes512(const void* dec_round_keys, int rounds, const std::uint8_t* iv,
                         const std::uint8_t* in, std::uint8_t* out, std::size_t len) noexcept;

}  // namespace wireseal::crypto::detail
