// Fuzz target: Aead::seal_batch / open_batch against seal / open, for every algorithm, backend,
// tag and nonce length. Input: algorithm below(7), tag length choice below(7), nonce length
// choice below(7), backend, key; then batches: count below(20) + 1 and per job a layout u8
// (bits 0-1: out of place / in place / partly overlapping / one byte short, bit 2 wrong nonce
// length), nonce, AAD below(64), plaintext below(2048). Each batch is sealed twice — one
// seal_batch call, and seal per job on a copy — and must give the same statuses, bytes and
// tags; the sealed jobs are then opened the same two ways, each with a tweak u8 (bit 0 flip
// one byte of ciphertext or tag, bit 1 a tag one byte short, bits 2-3 layout), with the same
// results, the plaintexts back when untouched and, unless tags are unchecked, a failure when
// touched.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "wireseal/crypto/aead.h"

namespace {

using namespace wireseal;
using crypto::AeadAlgorithm;
using fuzz::require;

// Job is one message's bytes: input and output as offsets into one arena (so in-place and
// overlapping layouts are real aliasing), nonce, AAD and tag.
struct Job {
  std::vector<std::uint8_t> arena;
  std::size_t in_off = 0, in_len = 0, out_off = 0, out_len = 0;
  std::vector<std::uint8_t> nonce, aad, tag;
  std::vector<std::uint8_t> plaintext;  // what was sealed
  bool touched = false;                 // open: ciphertext or tag modified

  std::span<const std::uint8_t> in() const { return std::span(arena).subspan(in_off, in_len); }
  std::span<std::uint8_t> out() { return std::span(arena).subspan(out_off, out_len); }
};

int code(const Status& s) { return s ? 0 : static_cast<int>(s.error()); }

crypto::Aead make_aead(fuzz::FuzzInput& in) {
  const auto alg = static_cast<AeadAlgorithm>(in.below(7));
  const std::size_t tag_choice = in.below(7);
  const std::size_t nonce_choice = in.below(7);
  crypto::AeadOptions o;
  const bool ccm = alg == AeadAlgorithm::kAes128Ccm || alg == AeadAlgorithm::kAes192Ccm ||
                   alg == AeadAlgorithm::kAes256Ccm;
  if (ccm) {
    o.tag_len = 4 + 2 * tag_choice;
    o.nonce_len = 7 + nonce_choice;
  } else if (alg != AeadAlgorithm::kChaCha20Poly1305) {
    o.tag_len = 12 + tag_choice % 5;
  }
  o.backend = fuzz::pick_backend(in, {crypto::primitive_of(alg)});
  const std::vector<std::uint8_t> key = in.vector(crypto::info(alg).key_len);
  return crypto::Aead(alg, key, o);
}

// lay_out places `data` as the input of `j` in the layout `mode` chooses.
void lay_out(Job& j, const std::vector<std::uint8_t>& data, unsigned mode) {
  const std::size_t n = data.size();
  j.in_len = n;
  j.out_len = n;
  switch (mode & 3u) {
    case 1:  // in place
      j.arena = data;
      break;
    case 2:  // output one byte further: partial overlap
      j.arena.assign(n + 1, 0);
      j.out_off = 1;
      break;
    case 3:  // output one byte short
      j.arena.assign(2 * n, 0);
      j.out_off = n;
      j.out_len = n == 0 ? 0 : n - 1;
      break;
    default:
      j.arena.assign(2 * n, 0);
      j.out_off = n;
      break;
  }
  std::copy(data.begin(), data.end(), j.arena.begin());
}

Job read_seal_job(const crypto::Aead& aead, fuzz::FuzzInput& in) {
  Job j;
  const std::uint8_t layout = in.u8();
  j.nonce = in.vector((layout & 4) != 0 ? aead.nonce_len() + 1 : aead.nonce_len());
  j.aad = in.vector(in.below(64));
  j.plaintext = in.vector(in.below(2048));
  lay_out(j, j.plaintext, layout);
  j.tag.assign(aead.tag_len(), 0);
  return j;
}

void require_same(const std::vector<Job>& a, const std::vector<Job>& b, const Status* sa,
                  const Status* sb, const char* what) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    require(code(sa[i]) == code(sb[i]), what);
    require(a[i].arena == b[i].arena && a[i].tag == b[i].tag, what);
  }
}

void seal_twice(crypto::Aead& aead, std::vector<Job>& jobs, std::vector<Status>& st) {
  std::vector<Job> single = jobs;
  std::vector<crypto::SealJob> batch(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    batch[i] = {jobs[i].nonce, jobs[i].aad, jobs[i].in(), jobs[i].out(), jobs[i].tag, {}};
  }
  aead.seal_batch(batch);
  std::vector<Status> single_status(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job& j = single[i];
    single_status[i] = aead.seal(j.nonce, j.aad, j.in(), j.out(), j.tag);
    st[i] = batch[i].status;
  }
  require_same(jobs, single, st.data(), single_status.data(), "seal_batch and seal agree");
}

// open_job builds the open of a sealed job: its ciphertext and tag, tweaked by the input.
Job open_job(Job& sealed, fuzz::FuzzInput& in) {
  Job j;
  const std::uint8_t tweak = in.u8();
  const std::span<std::uint8_t> ct = sealed.out();
  std::vector<std::uint8_t> ciphertext(ct.begin(), ct.end());
  j.nonce = sealed.nonce;
  j.aad = sealed.aad;
  j.tag = sealed.tag;
  j.plaintext = sealed.plaintext;
  if ((tweak & 1) != 0) {
    const std::size_t at = in.below(ciphertext.size() + j.tag.size());
    const auto x = static_cast<std::uint8_t>(in.u8() | 1);
    (at < ciphertext.size() ? ciphertext[at] : j.tag[at - ciphertext.size()]) ^= x;
    j.touched = true;
  }
  if ((tweak & 2) != 0) {
    j.tag.pop_back();
  }
  lay_out(j, ciphertext, static_cast<unsigned>(tweak >> 2));
  return j;
}

void open_twice(crypto::Aead& aead, std::vector<Job>& jobs) {
  std::vector<Job> single = jobs;
  std::vector<crypto::OpenJob> batch(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    batch[i] = {jobs[i].nonce, jobs[i].aad, jobs[i].in(), jobs[i].out(), jobs[i].tag, {}};
  }
  aead.open_batch(batch);
  std::vector<Status> batch_status(jobs.size());
  std::vector<Status> single_status(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job& j = single[i];
    single_status[i] = aead.open(j.nonce, j.aad, j.in(), j.out(), j.tag);
    batch_status[i] = batch[i].status;
  }
  require_same(jobs, single, batch_status.data(), single_status.data(),
               "open_batch and open agree");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job& j = jobs[i];
    const bool well_formed = j.tag.size() == aead.tag_len() && j.out_len == j.in_len &&
                             (j.out_off == 0 || j.out_off >= j.in_len);
    if (well_formed && (!j.touched || fuzz::kTagsUnchecked)) {
      require(batch_status[i].has_value(), "a sealed message opens");
      require(j.touched || std::equal(j.plaintext.begin(), j.plaintext.end(), j.out().begin()),
              "opening returns the plaintext");
    } else if (well_formed) {
      require(!batch_status[i], "a modified message fails to open");
    }
  }
}

void run_batch(crypto::Aead& aead, fuzz::FuzzInput& in) {
  std::vector<Job> jobs(1 + in.below(20));
  for (Job& j : jobs) {
    j = read_seal_job(aead, in);
  }
  std::vector<Status> sealed(jobs.size());
  seal_twice(aead, jobs, sealed);
  std::vector<Job> opens;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (sealed[i]) {
      opens.push_back(open_job(jobs[i], in));
    }
  }
  open_twice(aead, opens);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  crypto::Aead aead = make_aead(in);
  while (!in.empty()) {
    run_batch(aead, in);
  }
  return 0;
}
