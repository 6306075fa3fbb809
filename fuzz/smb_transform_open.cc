// Fuzz target: SMB 3.x transform open. Input: selector byte (cipher), then a transformed
// message. Opens it in place with the fixed key; an authenticated plaintext is walked as a
// compound chain. Must never crash, read out of bounds or leave plaintext on failure.
#include <cstdlib>
#include <vector>

#include "fuzz_target.h"
#include "smb_fuzz_keys.h"
#include "wireseal/smb/header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  if (size < 1) {
    return 0;
  }
  const smb::Cipher cipher = fuzz::kSmbCiphers[data[0] % 4];
  const auto key = fuzz::smb_key();
  static smb::TransformOpener openers[4] = {
      {fuzz::kSmbCiphers[0], std::span(key).first(16), fuzz::kSmbSessionId},
      {fuzz::kSmbCiphers[1], std::span(key).first(16), fuzz::kSmbSessionId},
      {fuzz::kSmbCiphers[2], std::span(key), fuzz::kSmbSessionId},
      {fuzz::kSmbCiphers[3], std::span(key), fuzz::kSmbSessionId}};
  smb::TransformOpener& opener = openers[data[0] % 4];
  static_cast<void>(cipher);
  std::vector<std::uint8_t> buf(data + 1, data + size);
  static_cast<void>(smb::decode_transform_header(buf));
  const Result<std::span<std::uint8_t>> plain = opener.open(buf);
  if (!plain) {
    if (plain.error() == Error::kAuthFailed && buf.size() > smb::kTransformHeaderSize) {
      // A bad tag zeroes the ciphertext; a foreign session leaves it untouched.
      const bool zeroed = [&] {
        for (std::size_t i = smb::kTransformHeaderSize; i < buf.size(); ++i) {
          if (buf[i] != 0) {
            return false;
          }
        }
        return true;
      }();
      const bool untouched = std::equal(buf.begin(), buf.end(), data + 1);
      if (!zeroed && !untouched) {
        std::abort();
      }
    }
    return 0;
  }
  smb::ChainCursor chain(*plain);
  while (!chain.done()) {
    const auto m = chain.next();
    if (!m) {
      break;
    }
    static_cast<void>(smb::decode_header(*m));
  }
  return 0;
}
