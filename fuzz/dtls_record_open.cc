// Fuzz target: DTLS datagram parsing and record opening for every record cipher.
//
// Input: one selector byte (cipher, encrypt-then-MAC, CID), then a datagram. Every record in
// the datagram goes through DatagramReader and RecordOpener::open in place; nothing may crash,
// read out of bounds or return a plaintext view outside the input.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "fuzz_keys.h"
#include "fuzz_target.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_protector.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  if (size < 1) {
    return 0;
  }
  const fuzz::DtlsConfig config = fuzz::dtls_config(data[0]);
  const dtls::KeyBlock key_block = fuzz::dtls_key_block(config.cipher);
  dtls::RecordOpener opener(config.cipher, key_block.keys(dtls::Direction::kClientWrite), 1,
                            fuzz::dtls_options(config));
  std::vector<std::uint8_t> datagram(data + 1, data + size);

  // Header parsing alone over the whole datagram.
  dtls::DatagramReader reader(datagram, config.cid_len);
  while (!reader.done()) {
    if (!reader.next()) {
      break;
    }
  }
  // Open record after record, in place.
  std::size_t offset = 0;
  while (offset < datagram.size()) {
    std::span<std::uint8_t> rest(datagram.data() + offset, datagram.size() - offset);
    Result<dtls::OpenedRecord> r = opener.open(rest);
    if (!r) {
      if (r.error() == Error::kMalformed) {
        break;
      }
      Result<dtls::RecordView> v = dtls::parse_record(rest, config.cid_len);
      if (!v) {
        break;
      }
      offset += v->record.size();
      continue;
    }
    if (r->plaintext.data() < rest.data() ||
        r->plaintext.data() + r->plaintext.size() > rest.data() + rest.size()) {
      std::abort();
    }
    offset += r->record_size;
  }
  return 0;
}
