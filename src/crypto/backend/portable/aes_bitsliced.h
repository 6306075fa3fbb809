#pragma once
// Constant-time AES-CTR for CPUs without AES instructions, eight blocks at a time, bit-sliced
// (aes_bitsliced.cc). Written with the compilers' generic vector types, so the same code is
// NEON on ARM and SSE2 on x86; the native ARM backend serves AES-CTR with it on cores that
// have NEON but not the crypto extensions (Cortex-A7, Cortex-A72 as in the Raspberry Pi 4).
#include <memory>

#include "../interfaces.h"  // relative, so that tests can include this header

namespace wireseal::crypto::detail {

// make_bitsliced_aes_ctr returns an AES-CTR object (AesModeImpl::ctr only: the cbc members
// are never called on it, and fill `out` with zeros if they are). Throws
// std::invalid_argument for keys other than 16, 24 or 32 bytes.
std::unique_ptr<AesModeImpl> make_bitsliced_aes_ctr(Bytes key);

}  // namespace wireseal::crypto::detail
