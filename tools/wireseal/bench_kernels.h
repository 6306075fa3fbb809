#pragma once
// Which kernel ran a `wireseal bench` row: derived from the row's operation and size and from
// what this process's library chose (crypto::kernel_report(), crypto::resolve with kAuto),
// which is what the runner, a child of this process with the same environment and CPU, ran.

#include <cstdint>
#include <string>
#include <string_view>

namespace wireseal::cli {

// row_kernel names the kernels behind wireseal's row `op` ("srtp/aes128cm_sha1_80_protect",
// "scale/dtls_aes128gcm_encrypt_1400", ...) at `size`, e.g. "aes-ctr native vaes + hmac-sha1
// sha-ni"; "-" for rows with no feature-dependent kernel.
std::string row_kernel(std::string_view op, std::uint64_t size);

}  // namespace wireseal::cli
