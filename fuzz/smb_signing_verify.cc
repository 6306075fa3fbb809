// Fuzz target: SMB2/3 signature verification of arbitrary bytes. Input: selector byte
// (algorithm: HMAC-SHA256, AES-CMAC, AES-GMAC, with the fixed key of smb_fuzz_keys.h), then a
// message or compound chain. The whole input and every member of the chain go through
// Signer::verify, which must not crash, must leave the bytes as it found them and (in the
// build that accepts every tag) must accept exactly the SMB2 messages that have SIGNED set.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_target.h"
#include "smb_fuzz_keys.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/signing.h"

namespace {

using namespace wireseal;
using fuzz::require;

constexpr std::size_t kFlagsOffset = 16;  // the low byte of Flags (MS-SMB2 §2.2.1)

void verify(smb::Signer& signer, std::span<std::uint8_t> message) {
  const std::vector<std::uint8_t> before(message.begin(), message.end());
  const Status s = signer.verify(message);
  require(std::equal(message.begin(), message.end(), before.begin(), before.end()),
          "verify restores the message");
  const bool well_formed = message.size() >= smb::kHeaderSize && smb::is_smb2_message(message);
  require(well_formed || (!s && s.error() == Error::kMalformed), "verify rejects non-SMB2 bytes");
  if (fuzz::kTagsUnchecked && well_formed) {
    const bool flagged = (message[kFlagsOffset] & smb::kFlagSigned) != 0;
    require(s.has_value() == flagged, "verify accepts exactly what has SIGNED set");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  const auto key = fuzz::smb_key();
  smb::Signer signer(static_cast<smb::SigningAlgorithm>(data[0] % 3),
                     std::span<const std::uint8_t>(key).first(16));
  std::vector<std::uint8_t> message(data + 1, data + size);
  verify(signer, message);
  smb::ChainCursor chain(message);
  while (!chain.done()) {
    const Result<std::span<std::uint8_t>> member = chain.next();
    if (!member) {
      break;
    }
    verify(signer, *member);
  }
  return 0;
}
