#pragma once
// The keyed objects of the x86 kernels (AES-NI, VAES GCM, and the AVX-512 ChaCha20), one factory
// per file that implements them: native_select.cc builds backend/native.h's factories from these.
// Safe to include without ISA flags (declarations only).
#include <cstddef>
#include <memory>

#include "backend/interfaces.h"

namespace wireseal::crypto::detail {

// aesni_ccm.cc: AES-CCM (single messages and 8-lane batches; VAES CBC-MAC where chosen).
std::unique_ptr<AeadImpl> make_aesni_ccm(Bytes key, std::size_t tag_len, std::size_t nonce_len);
// aesni_modes.cc: AES-CTR and AES-CBC (VAES CTR and CBC decryption where chosen), AES-CMAC.
std::unique_ptr<AesModeImpl> make_aesni_mode(AesMode mode, Bytes key);
std::unique_ptr<CmacImpl> make_aesni_cmac(Bytes key);
// chacha20_poly1305.cc: ChaCha20-Poly1305 on the AVX-512 keystream (only with AVX-512F/BW). Records
// over 512 bytes go to ipsec-mb's kernel when it serves ChaCha20-Poly1305, unless
// own_kernel_only (tests: our kernel at every size).
std::unique_ptr<AeadImpl> make_native_chacha20_poly1305(Bytes key, bool own_kernel_only = false);
// aes_gcm.cc: AES-GCM on the multi-message VAES kernel (only with AVX-512F/BW, VAES and
// VPCLMULQDQ) for messages within gcm_vaes_fits, `bulk` (ipsec-mb's) for the others.
std::unique_ptr<AeadImpl> make_native_aes_gcm(Bytes key, std::size_t tag_len,
                                              std::unique_ptr<AeadImpl> bulk);
// kNativeGcmBatchMax: longer batch jobs go to `bulk` one at a time (aes_gcm.cc says why).
inline constexpr std::size_t kNativeGcmBatchMax = 256;

}  // namespace wireseal::crypto::detail
