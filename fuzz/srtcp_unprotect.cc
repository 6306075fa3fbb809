// Fuzz target: SRTCP unprotect for every profile and MKI mode. Input: one selector byte, then
// packets each prefixed by a 2-byte length, unprotected out of place and in place, each call
// on its own session (built alike, so both success paths are reached: one shared session
// would see every in-place call as a replay). Nothing may crash, read out of bounds or return
// a view outside the buffer, and both sessions must reach the same verdict.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "fuzz_target.h"
#include "srtp_fuzz_keys.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  if (size < 1) {
    return 0;
  }
  const fuzz::SrtpConfig config = fuzz::srtp_config(data[0]);
  srtp::Session out_of_place = fuzz::srtp_session(config);
  srtp::Session in_place = fuzz::srtp_session(config);
  std::size_t pos = 1;
  while (pos + 2 <= size) {
    const std::size_t len = std::size_t{data[pos]} << 8 | data[pos + 1];
    pos += 2;
    const std::size_t n = len < size - pos ? len : size - pos;
    std::vector<std::uint8_t> packet(data + pos, data + pos + n);
    pos += n;
    std::vector<std::uint8_t> out(packet.size() + 4);
    Result<std::span<std::uint8_t>> a = out_of_place.unprotect_rtcp(packet, out);
    if (a && (a->data() != out.data() || a->size() > packet.size())) {
      std::abort();
    }
    Result<std::span<std::uint8_t>> b = in_place.unprotect_rtcp(std::span<std::uint8_t>(packet));
    if (b && (b->data() != packet.data() || b->size() > packet.size())) {
      std::abort();
    }
    fuzz::require(a.has_value() == b.has_value() && (a || a.error() == b.error()),
                  "in-place and out-of-place unprotect_rtcp agree");
    fuzz::require(!a || std::equal(a->begin(), a->end(), b->begin(), b->end()),
                  "in-place and out-of-place unprotect_rtcp return the same packet");
  }
  return 0;
}
