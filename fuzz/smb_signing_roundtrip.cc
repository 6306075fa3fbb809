// Fuzz target: SMB2/3 sign then verify, for every signing algorithm (HMAC-SHA256 with a key of
// 0..64 bytes, AES-CMAC, AES-GMAC). Input: algorithm below(3), key, backend, then messages:
// flags u8 (bit 0 keep the input's ProtocolId, bit 1 shorter than a header), length, bytes,
// and a mutation: position below(length), XOR value u8 | 1.
//
// sign must refuse (unchanged) what is not an SMB2 message and otherwise set the SIGNED flag
// and a signature that verify accepts and compute reproduces; verify must leave the message as
// it found it. A mutated copy must not crash verify, and — unless the build accepts every tag —
// must fail it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/signing.h"

namespace {

using namespace wireseal;
using fuzz::require;

constexpr std::size_t kFlagsOffset = 16;  // the low byte of Flags (MS-SMB2 §2.2.1)

bool signed_flag(const std::vector<std::uint8_t>& m) {
  return m.size() >= smb::kHeaderSize && (m[kFlagsOffset] & smb::kFlagSigned) != 0;
}

smb::Signer make_signer(fuzz::FuzzInput& in) {
  const auto algorithm = static_cast<smb::SigningAlgorithm>(in.below(3));
  std::vector<std::uint8_t> key =
      in.vector(algorithm == smb::SigningAlgorithm::kHmacSha256 ? in.below(65) : 16);
  const crypto::Primitive p = algorithm == smb::SigningAlgorithm::kAesGmac
                                  ? crypto::Primitive::kAesGcm
                                  : crypto::Primitive::kAesCmac;
  return smb::Signer(algorithm, key, fuzz::pick_backend(in, {p}));
}

std::vector<std::uint8_t> read_message(fuzz::FuzzInput& in) {
  const std::uint8_t flags = in.u8();
  const std::size_t n =
      (flags & 2) != 0 ? in.below(smb::kHeaderSize) : smb::kHeaderSize + in.below(4096);
  std::vector<std::uint8_t> m = in.vector(n);
  if ((flags & 1) == 0 && n >= 4) {
    const std::uint8_t id[] = {0xfe, 'S', 'M', 'B'};
    std::copy(std::begin(id), std::end(id), m.begin());
  }
  return m;
}

void check_signature(smb::Signer& signer, std::vector<std::uint8_t>& m) {
  require(signed_flag(m), "sign sets SMB2_FLAGS_SIGNED");
  const std::vector<std::uint8_t> signed_message = m;
  require(signer.verify(m).has_value(), "a signed message verifies");
  require(m == signed_message, "verify restores the message");
  std::vector<std::uint8_t> zeroed = m;
  std::fill_n(zeroed.begin() + smb::kSignatureOffset, smb::kSignatureSize, std::uint8_t{0});
  std::array<std::uint8_t, smb::kSignatureSize> mac{};
  require(signer.compute(zeroed, mac).has_value(), "compute succeeds on a header-sized message");
  require(std::equal(mac.begin(), mac.end(), m.begin() + smb::kSignatureOffset),
          "the signature is the MAC with the field zeroed");
}

void check_mutated(smb::Signer& signer, const std::vector<std::uint8_t>& m, fuzz::FuzzInput& in) {
  std::vector<std::uint8_t> mutated = m;
  mutated[in.below(m.size())] ^= static_cast<std::uint8_t>(in.u8() | 1);
  const std::vector<std::uint8_t> before = mutated;
  const Status v = signer.verify(mutated);
  require(mutated == before, "verify restores a mutated message");
  if (fuzz::kTagsUnchecked) {
    require(v.has_value() == (smb::is_smb2_message(mutated) && signed_flag(mutated)),
            "verify checks ProtocolId and SIGNED before the tag");
  } else {
    require(!v, "a mutated signed message fails to verify");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  smb::Signer signer = make_signer(in);
  while (!in.empty()) {
    std::vector<std::uint8_t> m = read_message(in);
    const std::vector<std::uint8_t> original = m;
    const Status s = signer.sign(m);
    if (m.size() < smb::kHeaderSize || !smb::is_smb2_message(original)) {
      require(!s && s.error() == Error::kMalformed && m == original,
              "sign refuses a non-SMB2 message and leaves it unchanged");
      continue;
    }
    require(s.has_value(), "sign succeeds on an SMB2 message");
    check_signature(signer, m);
    check_mutated(signer, m, in);
  }
  return 0;
}
