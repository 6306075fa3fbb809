#pragma once
// The keyed objects of the AES-NI kernels, one factory per file that implements them:
// native_select.cc builds backend/native.h's factories from these. Safe to include without
// ISA flags (declarations only).
#include <cstddef>
#include <memory>

#include "backend/interfaces.h"

namespace wireseal::crypto::detail {

// aesni_ccm.cc: AES-CCM (single messages and 8-lane batches; VAES CBC-MAC where chosen).
std::unique_ptr<AeadImpl> make_aesni_ccm(Bytes key, std::size_t tag_len, std::size_t nonce_len);
// aesni_modes.cc: AES-CTR and AES-CBC (VAES CTR and CBC decryption where chosen), AES-CMAC.
std::unique_ptr<AesModeImpl> make_aesni_mode(AesMode mode, Bytes key);
std::unique_ptr<CmacImpl> make_aesni_cmac(Bytes key);

}  // namespace wireseal::crypto::detail
