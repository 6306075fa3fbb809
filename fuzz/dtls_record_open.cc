// Fuzz target: DTLS datagram parsing and record opening for every record cipher.
//
// Input: one selector byte (cipher, encrypt-then-MAC, CID), then a datagram. Every record in
// the datagram goes through DatagramReader and RecordOpener::open, in place and (through a
// twin opener) out of place; nothing may crash, read out of bounds or return a plaintext view
// outside its buffer, the two opens must agree byte for byte, the out-of-place one must leave
// its input alone, and every rejected record must be counted once in drop_counters().
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "fuzz_keys.h"
#include "fuzz_target.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  if (size < 1) {
    return 0;
  }
  const fuzz::DtlsConfig config = fuzz::dtls_config(data[0]);
  const dtls::KeyBlock key_block = fuzz::dtls_key_block(config.cipher);
  const dtls::RecordSealerOptions sealer_options = fuzz::dtls_options(config);
  const dtls::RecordOpenerOptions options{.encrypt_then_mac = sealer_options.encrypt_then_mac,
                                          .cid = sealer_options.cid};
  dtls::RecordOpener opener(config.cipher, key_block.keys(dtls::Direction::kClientWrite), 1,
                            options);
  dtls::RecordOpener twin(config.cipher, key_block.keys(dtls::Direction::kClientWrite), 1, options);
  std::vector<std::uint8_t> datagram(data + 1, data + size);
  const std::vector<std::uint8_t> original = datagram;
  std::vector<std::uint8_t> out(datagram.size());
  std::uint64_t failures = 0;

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
    const std::span<const std::uint8_t> input(original.data() + offset, rest.size());
    Result<dtls::OpenedRecord> t = twin.open(input, out);
    Result<dtls::OpenedRecord> r = opener.open(rest);
    fuzz::require(r.has_value() == t.has_value(), "in-place and out-of-place opens agree");
    if (!r) {
      fuzz::require(r.error() == t.error(), "both opens fail for the same reason");
      ++failures;
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
    fuzz::require(t->record_size == r->record_size && t->type == r->type &&
                      std::equal(r->plaintext.begin(), r->plaintext.end(), t->plaintext.begin(),
                                 t->plaintext.end()) &&
                      t->plaintext.data() >= out.data() &&
                      t->plaintext.data() + t->plaintext.size() <= out.data() + out.size(),
                  "out-of-place open yields the same plaintext, inside its output");
    offset += r->record_size;
  }
  fuzz::require(std::equal(original.begin(), original.end(), data + 1),
                "out-of-place opens leave their input alone");
  fuzz::require(
      opener.drop_counters().total() == failures && twin.drop_counters().total() == failures,
      "every rejected record is counted once");
  return 0;
}
