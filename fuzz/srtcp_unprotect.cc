// Fuzz target: SRTCP unprotect for every profile and MKI mode. Input: one selector byte, then
// packets each prefixed by a 2-byte length, unprotected in place and out of place through one
// session; nothing may crash, read out of bounds or return a view outside the buffer.
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
  srtp::Session session = fuzz::srtp_session(fuzz::srtp_config(data[0]));
  std::size_t pos = 1;
  while (pos + 2 <= size) {
    const std::size_t len = std::size_t{data[pos]} << 8 | data[pos + 1];
    pos += 2;
    const std::size_t n = len < size - pos ? len : size - pos;
    std::vector<std::uint8_t> packet(data + pos, data + pos + n);
    pos += n;
    std::vector<std::uint8_t> out(packet.size() + 4);
    Result<std::span<std::uint8_t>> a = session.unprotect_rtcp(packet, out);
    if (a && (a->data() != out.data() || a->size() > packet.size())) {
      std::abort();
    }
    Result<std::span<std::uint8_t>> b = session.unprotect_rtcp(std::span<std::uint8_t>(packet));
    if (b && (b->data() != packet.data() || b->size() > packet.size())) {
      std::abort();
    }
  }
  return 0;
}
