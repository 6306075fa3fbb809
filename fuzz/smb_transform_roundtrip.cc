// Fuzz target: SMB 3.x transform seal then open. The input chooses the cipher (4), key,
// session id, first nonce counter (0, or any u64 to reach exhaustion), nonce-salt seed and
// backend, then messages: mode u8 (bit 0 seal in place, else from a separate buffer), length
// below(8192) (0 is refused), the message bytes.
//
// Seal must fail only as documented (length 0, nonce counter used up), write a header that
// decodes to this session, size and counter, and open in place, into a disjoint buffer and into its
// own buffer must all return the message; one byte less must be rejected as malformed.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "wireseal/smb/transform.h"

namespace {

using namespace wireseal;
using fuzz::require;

constexpr smb::Cipher kCiphers[] = {smb::Cipher::kAes128Ccm, smb::Cipher::kAes128Gcm,
                                    smb::Cipher::kAes256Ccm, smb::Cipher::kAes256Gcm};

crypto::Primitive primitive(smb::Cipher c) {
  return c == smb::Cipher::kAes128Gcm || c == smb::Cipher::kAes256Gcm ? crypto::Primitive::kAesGcm
                                                                      : crypto::Primitive::kAesCcm;
}

std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = v << 8 | p[i];
  }
  return v;
}

Result<std::size_t> seal(smb::TransformSealer& sealer, const std::vector<std::uint8_t>& message,
                         bool in_place, std::vector<std::uint8_t>& out) {
  out.assign(smb::transformed_size(message.size()), 0);
  if (in_place) {
    std::copy(message.begin(), message.end(),
              std::span<std::uint8_t>(out).subspan(smb::kTransformHeaderSize).begin());
    return sealer.seal(out, message.size());
  }
  return sealer.seal(message, out);
}

void check_header(const std::vector<std::uint8_t>& sealed, const smb::TransformSealer& sealer,
                  std::size_t n, std::uint64_t counter) {
  const Result<smb::TransformHeader> h = smb::decode_transform_header(sealed);
  require(h.has_value(), "a sealed message's transform header decodes");
  require(h->original_message_size == n && h->flags == smb::kTransformFlagEncrypted &&
              h->session_id == sealer.session_id(),
          "transform header carries size, flags and session");
  require(load_le64(h->nonce.data()) == counter, "the nonce starts with the counter");
}

void round_trip(smb::TransformSealer& sealer, smb::TransformOpener& opener, bool& exhausted,
                fuzz::FuzzInput& in) {
  const bool in_place = (in.u8() & 1) != 0;
  const std::vector<std::uint8_t> message = in.vector(in.below(8192));
  const std::uint64_t counter = sealer.next_counter();
  // The counter's last value is never handed out: a sealer at 2^64 - 1 is used up.
  exhausted = counter == std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint8_t> sealed;
  const Result<std::size_t> r = seal(sealer, message, in_place, sealed);
  if (message.empty() || exhausted) {
    require(
        !r && r.error() == (message.empty() ? Error::kInvalidArgument : Error::kSequenceExhausted),
        "seal refuses an empty message, then an exhausted counter");
    return;
  }
  require(r && *r == sealed.size(), "seal returns the transformed size");
  require(sealer.next_counter() == counter + 1, "the counter advances once");
  check_header(sealed, sealer, message.size(), counter);

  std::vector<std::uint8_t> out(message.size());
  const Result<std::span<std::uint8_t>> a = opener.open(sealed, out);
  require(a && std::equal(a->begin(), a->end(), message.begin(), message.end()),
          "open into a disjoint buffer returns the message");
  std::vector<std::uint8_t> same = sealed;
  const Result<std::span<std::uint8_t>> front =
      opener.open(std::span<const std::uint8_t>(same), std::span<std::uint8_t>(same));
  require(front && front->data() == same.data() &&
              std::equal(front->begin(), front->end(), message.begin(), message.end()),
          "open into the message's own buffer returns the message at its start");
  const std::span<const std::uint8_t> shorter =
      std::span<const std::uint8_t>(sealed).first(sealed.size() - 1);
  std::vector<std::uint8_t> short_out(message.size());
  const Result<std::span<std::uint8_t>> s = opener.open(shorter, short_out);
  require(!s && s.error() == Error::kMalformed, "a truncated message is malformed");
  const Result<std::span<std::uint8_t>> b = opener.open(sealed);
  require(b && std::equal(b->begin(), b->end(), message.begin(), message.end()),
          "open returns the message in place");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const smb::Cipher cipher = kCiphers[in.below(4)];
  std::array<std::uint8_t, 32> key{};
  in.fill(key);
  const std::span<const std::uint8_t> k =
      std::span<const std::uint8_t>(key).first(smb::info(cipher).key_len);
  const std::uint64_t session_id = in.u64();
  const std::uint64_t first_counter = in.flag() ? in.u64() : 0;
  fuzz::CounterRandom random(in.u64());
  const crypto::Backend backend = fuzz::pick_backend(in, {primitive(cipher)});
  smb::TransformSealer sealer(
      cipher, k, session_id,
      {.random = random.source(), .first_counter = first_counter, .backend = backend});
  smb::TransformOpener opener(cipher, k, session_id, {.backend = backend});
  bool exhausted = false;
  while (!in.empty()) {
    round_trip(sealer, opener, exhausted, in);
  }
  return 0;
}
