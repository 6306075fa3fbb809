// What the native x86-64 backend implements, given the CPU. Compiled without ISA flags: it
// runs before we know AES-NI exists.
#include "backend/interfaces.h"
#include "common/cpu_features.h"

namespace wireseal::crypto::detail {

bool native_supports(Primitive primitive) noexcept {
  const cpu::X86Features& cpu = cpu::x86_features();
  switch (primitive) {
    case Primitive::kAesCcm:
    case Primitive::kAesCtr:
    case Primitive::kAesCbc:
    case Primitive::kAesCmac:
      return cpu.aesni;
    default:
      return false;
  }
}

// The VAES kernels also use AVX2 instructions (vaes_*.cc are built with -mavx2).
bool native_uses_vaes() noexcept { return cpu::x86_features().vaes && cpu::x86_features().avx2; }

}  // namespace wireseal::crypto::detail
