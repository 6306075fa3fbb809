// The CPU feature probe on architectures without a probe of their own: no feature is present,
// so every dispatch takes the portable or OpenSSL paths. Built wherever neither
// cpu_features_x86.cc nor cpu_features_arm.cc is (src/CMakeLists.txt).
#include "common/cpu_features.h"

namespace wireseal::cpu {

const Features& probed_features() noexcept {
  static const Features none;
  return none;
}

}  // namespace wireseal::cpu
