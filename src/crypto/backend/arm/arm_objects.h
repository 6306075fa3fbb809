#pragma once
// The keyed objects of the ARM crypto-extension kernels, one factory per file that implements
// them: native_select.cc builds backend/native.h's factories from these. Safe to include
// without the crypto-extension flags (declarations only).
#include <memory>

#include "backend/interfaces.h"

namespace wireseal::crypto::detail {

// aes_ce_modes.cc: AES-CTR, AES-CBC and AES-CMAC with AESE/AESD.
std::unique_ptr<AesModeImpl> make_ce_aes_mode(AesMode mode, Bytes key);
std::unique_ptr<CmacImpl> make_ce_cmac(Bytes key);
// aes_ccm_ce.cc: AES-CCM with AESE, nonces of 7..13 bytes.
std::unique_ptr<AeadImpl> make_ce_ccm(Bytes key, std::size_t tag_len, std::size_t nonce_len);
// aes_gcm_ce.cc: AES-GCM with AESE and PMULL, 12-byte nonces.
std::unique_ptr<AeadImpl> make_ce_gcm(Bytes key, std::size_t tag_len);

}  // namespace wireseal::crypto::detail
