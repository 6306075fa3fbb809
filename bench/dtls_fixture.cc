#include "bench/dtls_fixture.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace wireseal::bench::dtls_bench {

dtls::KeyBlock key_block(dtls::RecordCipher cipher) {
  const Bytes bytes = pattern(dtls::KeyBlock::size(cipher), 7);
  auto block = dtls::KeyBlock::from_bytes(cipher, bytes);
  if (!block) {
    throw std::runtime_error("dtls bench: key block set-up failed");
  }
  return std::move(*block);
}

namespace {

// one_way seals `plaintext` with S and opens the record with O.
template <class S, class O>
bool one_way(const CipherCase& c, const dtls::DirectionKeys& keys, const Bytes& plaintext) {
  S sealer(c, keys);
  O opener(c, keys);
  Bytes record(sealer.sealed_size(plaintext.size()));
  std::copy(plaintext.begin(), plaintext.end(),
            record.begin() + static_cast<std::ptrdiff_t>(sealer.payload_offset()));
  if (!sealer.seal(plaintext.size(), record)) {
    return false;
  }
  const std::span<const std::uint8_t> opened = opener.open_plaintext(record);
  return opened.size() == plaintext.size() &&
         std::equal(opened.begin(), opened.end(), plaintext.begin());
}

}  // namespace

void check_interop(const CipherCase& c, std::size_t size) {
  const dtls::KeyBlock block = key_block(c.cipher);
  const dtls::DirectionKeys keys = block.keys(dtls::Direction::kClientWrite);
  const Bytes plaintext = pattern(size, 3);
  if (!one_way<WiresealSealer, OpenSslOpener>(c, keys, plaintext) ||
      !one_way<OpenSslSealer, WiresealOpener>(c, keys, plaintext)) {
    throw std::runtime_error("dtls bench: wireseal and the OpenSSL baseline disagree on " +
                             std::string(c.name) + " records of " + std::to_string(size) +
                             " bytes");
  }
}

}  // namespace wireseal::bench::dtls_bench
