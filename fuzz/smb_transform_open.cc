// Fuzz target: SMB 3.x transform open. Input: selector byte (cipher), then a transformed
// message. Opens it in place with the fixed key; an authenticated plaintext is walked as a
// compound chain. Must never crash, read out of bounds or leave plaintext on failure.
#include <algorithm>
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
    // A bad tag zeroes the ciphertext; any other refusal (a foreign session included) comes
    // before decryption and leaves the message untouched.
    const bool untouched = std::equal(buf.begin(), buf.end(), data + 1);
    if (plain.error() == Error::kAuthFailed && buf.size() > smb::kTransformHeaderSize) {
      const bool zeroed = std::all_of(buf.begin() + smb::kTransformHeaderSize, buf.end(),
                                      [](std::uint8_t b) { return b == 0; });
      fuzz::require(zeroed, "a bad tag zeroes the ciphertext");
    } else {
      fuzz::require(untouched, "a message refused before decryption is untouched");
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
