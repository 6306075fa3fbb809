// The CPU feature probe on architectures without a probe of their own: no x86 feature is
// present, so every dispatch takes the portable or OpenSSL paths. Built wherever
// cpu_features_x86.cc is not (src/CMakeLists.txt). An architecture that gains native kernels
// gets its own probe file and feature struct beside these.
#include "common/cpu_features.h"

namespace wireseal::cpu {

const X86Features& probed_x86_features() noexcept {
  static const X86Features none;
  return none;
}

}  // namespace wireseal::cpu
