// Fuzz target: DTLS seal then open. The input chooses the record cipher, encrypt-then-MAC,
// CID and CID padding, record version, epoch and first sequence (dtls_fuzz_setup.h), then a
// script of operations, each one byte:
//
//   op % 3 == 0  seal one record from a separate buffer
//   op % 3 == 1  seal one record in place (plaintext already at payload_offset())
//   op % 3 == 2  seal_batch of 1 + (op >> 2) % 16 records (each: in-place flag u8)
//
// and per record: content type u8, plaintext length below(16386) (one past the maximum), the
// plaintext (input bytes, then a pattern). Every seal must succeed unless the plaintext is too
// long, the type unsealable, the sequence exhausted or the CID padding too long, produce exactly
// sealed_size(n) bytes, and the twin opener must return the same type, epoch, sequence and
// plaintext; a batch is opened as one datagram.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dtls_fuzz_setup.h"
#include "fuzz_target.h"
#include "wireseal/dtls/record.h"

namespace {

using namespace wireseal;
using fuzz::require;

constexpr std::size_t kMaxPlaintext = 16384;

struct Sealed {
  dtls::ContentType type;
  std::uint64_t sequence;
  std::vector<std::uint8_t> plaintext;
  std::vector<std::uint8_t> record;
};

// expected_error is what seal must return for a record of `type` and n plaintext bytes when
// the next sequence number is `next`, in the order the sealer checks.
Status expected_error(const dtls::RecordSealer& sealer, dtls::ContentType type, std::size_t n,
                      std::size_t cid_len, std::uint64_t next) {
  const bool bad_type = type == dtls::ContentType::kTls12Cid ||
                        (cid_len != 0 && static_cast<std::uint8_t>(type) == 0);
  if (n > kMaxPlaintext || bad_type) {
    return Error::kInvalidArgument;
  }
  if (next > dtls::kMaxSequence) {
    return Error::kSequenceExhausted;
  }
  if (sealer.sealed_size(n) - dtls::header_size(cid_len) > dtls::kMaxFragmentLength) {
    return Error::kInvalidArgument;  // CID padding made the fragment too long
  }
  return {};
}

void require_same_status(const Status& got, const Status& want, const char* what) {
  require(got.has_value() == want.has_value() && (got || got.error() == want.error()), what);
}

void check_sizes(const dtls::RecordSealer& sealer, std::size_t n) {
  const std::size_t sealed = sealer.sealed_size(n);
  require(sealed - n <= sealer.overhead(), "sealed_size(n) - n <= overhead()");
  require(sealer.max_plaintext_size(sealed) >= n, "max_plaintext_size(sealed_size(n)) >= n");
  require(sealer.sealed_size(sealer.max_plaintext_size(sealed)) <= sealed,
          "max_plaintext_size fits its record");
}

// seal_one seals one record out of place or in place; the record stays empty when the seal
// (as expected) fails.
Sealed seal_one(dtls::RecordSealer& sealer, fuzz::FuzzInput& in, bool in_place,
                std::size_t cid_len) {
  Sealed s{static_cast<dtls::ContentType>(in.u8()), sealer.next_sequence(), {}, {}};
  const std::size_t n = in.below(kMaxPlaintext + 2);
  s.plaintext = in.vector(n);
  const Status want = expected_error(sealer, s.type, n, cid_len, sealer.next_sequence());
  std::vector<std::uint8_t> out(sealer.sealed_size(n));
  std::span<const std::uint8_t> source = s.plaintext;
  if (in_place) {
    require(sealer.payload_offset() + n <= out.size(), "payload_offset() + n inside the record");
    std::copy(s.plaintext.begin(), s.plaintext.end(),
              std::span<std::uint8_t>(out).subspan(sealer.payload_offset()).begin());
    source = std::span<const std::uint8_t>(out).subspan(sealer.payload_offset(), n);
  }
  const Result<std::size_t> r = sealer.seal(s.type, source, out);
  require_same_status(r ? Status{} : Status{r.error()}, want, "seal fails only as expected");
  if (r) {
    check_sizes(sealer, n);
    require(*r == out.size(), "seal returns sealed_size(n)");
    s.record = std::move(out);
  }
  return s;
}

// seal_batch seals `count` records with one seal_batch call; records that fail keep an empty
// `record`.
std::vector<Sealed> seal_batch(dtls::RecordSealer& sealer, fuzz::FuzzInput& in, std::size_t count,
                               std::size_t cid_len) {
  std::vector<Sealed> sealed(count);
  std::vector<dtls::RecordSealer::Job> jobs(count);
  for (std::size_t i = 0; i < count; ++i) {
    const bool in_place = (in.u8() & 1) != 0;
    sealed[i].type = static_cast<dtls::ContentType>(in.u8());
    sealed[i].plaintext = in.vector(in.below(kMaxPlaintext + 2));
    const std::size_t n = sealed[i].plaintext.size();
    sealed[i].record.resize(sealer.sealed_size(n));
    std::span<const std::uint8_t> source = sealed[i].plaintext;
    if (in_place) {
      std::copy(source.begin(), source.end(),
                std::span<std::uint8_t>(sealed[i].record).subspan(sealer.payload_offset()).begin());
      source = std::span<const std::uint8_t>(sealed[i].record).subspan(sealer.payload_offset(), n);
    }
    jobs[i] = {sealed[i].type, source, sealed[i].record, {}, 0};
  }
  // Expected outcomes, in order: each success takes the next sequence number.
  std::uint64_t next = sealer.next_sequence();
  sealer.seal_batch(jobs);
  for (std::size_t i = 0; i < count; ++i) {
    const Status want =
        expected_error(sealer, sealed[i].type, sealed[i].plaintext.size(), cid_len, next);
    require_same_status(jobs[i].status, want, "seal_batch job fails only as expected");
    sealed[i].sequence = next;
    if (jobs[i].status) {
      require(jobs[i].record_len == sealed[i].record.size(), "batch record_len is sealed_size(n)");
      ++next;
    } else {
      sealed[i].record.clear();
    }
  }
  require(sealer.next_sequence() == next, "seal_batch advances the sequence per success");
  return sealed;
}

// open_datagram opens the records of `records` (in order, concatenated into one datagram) and
// checks each against what was sealed.
void open_datagram(dtls::RecordOpener& opener, std::uint16_t epoch,
                   const std::vector<Sealed>& records) {
  std::vector<std::uint8_t> datagram;
  for (const Sealed& s : records) {
    datagram.insert(datagram.end(), s.record.begin(), s.record.end());
  }
  std::size_t offset = 0;
  for (const Sealed& s : records) {
    if (s.record.empty()) {
      continue;
    }
    const Result<dtls::OpenedRecord> r =
        opener.open(std::span<std::uint8_t>(datagram).subspan(offset));
    require(r.has_value(), "a sealed record opens");
    require(r->record_size == s.record.size(), "opened record size");
    require(r->type == s.type, "opened content type");
    require(r->epoch == epoch && r->sequence == s.sequence, "opened epoch and sequence");
    require(std::equal(r->plaintext.begin(), r->plaintext.end(), s.plaintext.begin(),
                       s.plaintext.end()),
            "opened plaintext");
    offset += r->record_size;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::DtlsSetup setup = fuzz::read_dtls_setup(in);
  const dtls::KeyBlock kb = fuzz::dtls_key_block(setup.cipher);
  if (!fuzz::sealer_accepts(setup, kb)) {
    return 0;
  }
  fuzz::CounterRandom random(setup.iv_seed);
  dtls::RecordSealer sealer = fuzz::make_sealer(setup, kb, random.source());
  dtls::RecordOpener opener = fuzz::make_opener(setup, kb);
  const std::size_t cid_len = setup.options.cid.size();
  while (!in.empty()) {
    const std::uint8_t op = in.u8();
    std::vector<Sealed> records;
    if (op % 3 == 2) {
      records = seal_batch(sealer, in, 1 + (op >> 2) % 16, cid_len);
    } else {
      records.push_back(seal_one(sealer, in, op % 3 == 1, cid_len));
    }
    open_datagram(opener, setup.epoch, records);
  }
  return 0;
}
