// Fuzz target: the direct-TCP message pump and what sits right behind it (header decoding,
// compound chains, transform header decoding). Input: selector byte (read chunk size), then
// the byte stream. Must never crash, loop forever or return a message past the bytes fed.
#include <algorithm>
#include <cstdlib>

#include "fuzz_target.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/transform.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  if (size < 1) {
    return 0;
  }
  const std::size_t chunk = std::size_t{data[0]} * 7 + 1;
  smb::MessagePump pump(4096);
  std::size_t pos = 1;
  std::size_t delivered = 0;
  while (pos < size) {
    const std::span<std::uint8_t> space = pump.read_space();
    if (space.empty()) {
      break;  // failed stream, or a full frame left undrained (cannot happen: we drain below)
    }
    const std::size_t n = std::min({chunk, space.size(), size - pos});
    std::copy_n(data + pos, n, space.begin());
    pump.commit(n);
    pos += n;
    for (;;) {
      const auto m = pump.next();
      if (!m || !m->has_value()) {
        break;
      }
      const std::span<std::uint8_t> message = **m;
      delivered += message.size() + smb::kFramePrefixSize;
      if (delivered > pos - 1 || message.size() > pump.max_message_len()) {
        std::abort();
      }
      if (smb::is_transform_message(message)) {
        static_cast<void>(smb::decode_transform_header(message));
        continue;
      }
      smb::ChainCursor chain(message);
      while (!chain.done()) {
        const auto member = chain.next();
        if (!member) {
          break;
        }
        static_cast<void>(smb::decode_header(*member));
      }
    }
  }
  return 0;
}
