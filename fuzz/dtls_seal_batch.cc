// Fuzz target: RecordSealer::seal_batch against seal. Two sealers built alike (same set-up from
// dtls_fuzz_setup.h, same deterministic IV stream) get the same records: one as seal_batch
// calls, its twin one seal() per job. Each job's status, length and every byte of its output
// buffer must be equal, and so must the sequence numbers; the batch's records must open.
//
// After the set-up: batches, each `count` below(24) + 1, then per job: flags u8 (bit 0 in
// place, bits 1-2 buffer: exact / one byte short / 17 bytes slack / empty, bit 3 plaintext
// partly overlapping the buffer), type u8, length below(16386), plaintext.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dtls_fuzz_setup.h"
#include "fuzz_target.h"

namespace {

using namespace wireseal;
using fuzz::require;

constexpr std::size_t kMaxPlaintext = 16384;

// TwinJob is one job's inputs, laid out identically for both sealers.
struct TwinJob {
  dtls::ContentType type{};
  std::vector<std::uint8_t> plaintext;
  std::vector<std::uint8_t> batch_out;
  std::vector<std::uint8_t> single_out;
  std::size_t plaintext_offset = 0;  // inside the out buffers when `inside`
  bool inside = false;
};

std::size_t buffer_size(std::size_t sealed, unsigned mode) {
  switch (mode) {
    case 1:
      return sealed - 1;
    case 2:
      return sealed + 17;
    case 3:
      return 0;
    default:
      return sealed;
  }
}

TwinJob read_job(const dtls::RecordSealer& sealer, fuzz::FuzzInput& in) {
  TwinJob j;
  const std::uint8_t flags = in.u8();
  j.type = static_cast<dtls::ContentType>(in.u8());
  j.plaintext = in.vector(in.below(kMaxPlaintext + 2));
  const std::size_t n = j.plaintext.size();
  const std::size_t size = buffer_size(sealer.sealed_size(n), (flags >> 1) & 3u);
  j.batch_out.assign(size, 0xa5);
  // In place: the plaintext at payload_offset(); overlapping: one byte further (kAliasing).
  const std::size_t offset = sealer.payload_offset() + ((flags & 8) != 0 ? 1 : 0);
  j.inside = (flags & 9) != 0 && offset + n <= size;
  if (j.inside) {
    j.plaintext_offset = offset;
    std::copy(j.plaintext.begin(), j.plaintext.end(),
              std::span<std::uint8_t>(j.batch_out).subspan(offset).begin());
  }
  j.single_out = j.batch_out;
  return j;
}

std::span<const std::uint8_t> source(const TwinJob& j, const std::vector<std::uint8_t>& out) {
  if (!j.inside) {
    return j.plaintext;
  }
  return std::span<const std::uint8_t>(out).subspan(j.plaintext_offset, j.plaintext.size());
}

void open_records(dtls::RecordOpener& opener, std::vector<TwinJob>& jobs,
                  const std::vector<dtls::RecordSealer::Job>& results) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!results[i].status) {
      continue;
    }
    const Result<dtls::OpenedRecord> r =
        opener.open(std::span<std::uint8_t>(jobs[i].batch_out).first(results[i].record_len));
    require(r && r->type == jobs[i].type, "a batch-sealed record opens with its type");
    require(std::equal(r->plaintext.begin(), r->plaintext.end(), jobs[i].plaintext.begin(),
                       jobs[i].plaintext.end()),
            "a batch-sealed record opens to its plaintext");
  }
}

void run_batch(dtls::RecordSealer& batch, dtls::RecordSealer& single, dtls::RecordOpener& opener,
               fuzz::FuzzInput& in) {
  std::vector<TwinJob> jobs(1 + in.below(24));
  std::vector<dtls::RecordSealer::Job> batch_jobs(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i] = read_job(batch, in);
    batch_jobs[i] = {jobs[i].type, source(jobs[i], jobs[i].batch_out), jobs[i].batch_out, {}, 0};
  }
  batch.seal_batch(batch_jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TwinJob& j = jobs[i];
    const Result<std::size_t> r = single.seal(j.type, source(j, j.single_out), j.single_out);
    const dtls::RecordSealer::Job& b = batch_jobs[i];
    require(b.status.has_value() == r.has_value(), "seal_batch and seal agree on success");
    require(r || b.status.error() == r.error(), "seal_batch and seal agree on the error");
    require(!r || b.record_len == *r, "seal_batch and seal agree on the record length");
    require(j.batch_out == j.single_out, "seal_batch and seal write the same bytes");
  }
  require(batch.next_sequence() == single.next_sequence(), "twin sealers stay in step");
  open_records(opener, jobs, batch_jobs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::DtlsSetup setup = fuzz::read_dtls_setup(in);
  const dtls::KeyBlock kb = fuzz::dtls_key_block(setup.cipher);
  if (!fuzz::sealer_accepts(setup, kb)) {
    return 0;
  }
  fuzz::CounterRandom batch_random(setup.iv_seed);
  fuzz::CounterRandom single_random(setup.iv_seed);
  dtls::RecordSealer batch = fuzz::make_sealer(setup, kb, batch_random.source());
  dtls::RecordSealer single = fuzz::make_sealer(setup, kb, single_random.source());
  dtls::RecordOpener opener = fuzz::make_opener(setup, kb);
  while (!in.empty()) {
    run_batch(batch, single, opener, in);
  }
  return 0;
}
