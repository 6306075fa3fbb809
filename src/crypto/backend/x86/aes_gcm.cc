// The native AES-GCM AEAD on x86: batches of short messages on the multi-message VAES kernel
// (gcm_vaes.cc), everything else on ipsec-mb's GCM.
//
// Why both: ipsec-mb's VAES GCM is the fastest single-message kernel we have, but each call
// pays a fixed cost (about 30 ns on Zen 5 at 16 B, from set-up for bulk work) that is most of
// a short SRTP packet's crypto. The VAES kernel encrypts the counter blocks of a whole batch
// together and hashes each short message with one reduction, so a batch's messages overlap.
// With one message it is slower than ipsec-mb (its AES and GHASH chains run one after the
// other), so single messages, batches of one, and texts over kNativeGcmBatchMax go to
// ipsec-mb.
// Compiled without ISA flags; made only when native_select.cc's CPU check passes.
#include <cstring>

#include "backend/x86/aesni_objects.h"
#include "backend/x86/gcm_vaes.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

static_assert(AeadImpl::kMaxLanes <= kGcmVaesMaxMessages);

// Batch jobs with texts over kNativeGcmBatchMax go to ipsec-mb one at a time. Measured on
// Zen 5, batches of eight, ns per message, this kernel against ipsec-mb's one by one: 27 vs 35
// at 100 B, 31 vs 37 at 160 B, even from 208 to 352 B, 57 vs 49 at 400 B (ipsec-mb's bulk
// loop is the better one once the per-call cost is amortised).
bool batch_kernel_fits(Bytes aad, Bytes text) noexcept {
  return text.size() <= kNativeGcmBatchMax && gcm_vaes_fits(aad.size(), text.size());
}

class NativeGcm final : public AeadImpl {
 public:
  NativeGcm(Bytes key, std::size_t tag_len, std::unique_ptr<AeadImpl> bulk)
      : tag_len_(tag_len), bulk_(std::move(bulk)) {
    gcm_vaes_init(key_, key.data(), key.size());
  }
  ~NativeGcm() override { secure_wipe(&key_, sizeof(key_)); }
  NativeGcm(const NativeGcm&) = delete;
  NativeGcm& operator=(const NativeGcm&) = delete;

  // Single messages are ipsec-mb's: it measured faster than this kernel with one message
  // (Zen 5: 30 against 41 ns at 16 B, 35 against 44 at 100 B), whose AES and GHASH chains run
  // one after the other. Since the kernel finishes tags four at a time the two are about level
  // (December 2026: the kernel alone 24-32 ns at 16 B and 29-37 at 100 B, Aead::seal on
  // ipsec-mb 26-40 and 31-46 with the front end's checks), so the choice stands until a
  // same-run row says otherwise. The front end calls it directly (single_calls); these two
  // serve anyone who holds this object itself.
  AeadImpl& single_calls() noexcept override { return *bulk_; }
  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    bulk_->seal(nonce, aad, in, out, tag);
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    return bulk_->open(nonce, aad, in, out, tag);
  }

  std::size_t interleave_max() const noexcept override { return kNativeGcmBatchMax; }

  void seal_lanes(SealJob* const* jobs, std::size_t num_jobs) noexcept override {
    GcmVaesMessage m[kMaxLanes];
    SealJob* short_jobs[kMaxLanes];
    std::size_t n = 0;
    for (std::size_t i = 0; i < num_jobs; ++i) {
      SealJob& job = *jobs[i];
      if (batch_kernel_fits(job.aad, job.in)) {
        short_jobs[n] = &job;
        set_message(m[n++], job.nonce, job.aad, job.in, job.out);
      } else {
        bulk_->seal(job.nonce, job.aad, job.in, job.out, job.tag);
      }
    }
    if (n == 1) {  // nothing to interleave: the single path is faster
      SealJob& job = *short_jobs[0];
      bulk_->seal(job.nonce, job.aad, job.in, job.out, job.tag);
      return;
    }
    if (n == 0) {
      return;
    }
    gcm_vaes_seal(key_, m, n);
    for (std::size_t i = 0; i < n; ++i) {
      copy_tag(short_jobs[i]->tag.data(), m[i]);
    }
  }

  std::uint32_t open_lanes(OpenJob* const* jobs, std::size_t num_jobs) noexcept override {
    GcmVaesMessage m[kMaxLanes];
    std::size_t lane_of[kMaxLanes];
    std::size_t n = 0;
    std::uint32_t ok = 0;
    for (std::size_t i = 0; i < num_jobs; ++i) {
      OpenJob& job = *jobs[i];
      if (batch_kernel_fits(job.aad, job.in)) {
        lane_of[n] = i;
        set_message(m[n], job.nonce, job.aad, job.in, job.out);
        m[n++].received_tag = job.tag.data();
      } else {
        const bool authentic = bulk_->open(job.nonce, job.aad, job.in, job.out, job.tag);
        ok |= std::uint32_t{authentic} << i;  // no branch on the secret verdict
      }
    }
    if (n == 1) {  // nothing to interleave: the single path is faster
      OpenJob& job = *jobs[lane_of[0]];
      const bool authentic = bulk_->open(job.nonce, job.aad, job.in, job.out, job.tag);
      return ok | std::uint32_t{authentic} << lane_of[0];
    }
    if (n == 0) {
      return ok;
    }
    const std::uint32_t verdicts = gcm_vaes_open(key_, m, n, tag_len_);
    for (std::size_t i = 0; i < n; ++i) {
      ok |= (verdicts >> i & 1) << lane_of[i];
    }
    return ok;
  }

 private:
  // set_message fills `m` member by member: a whole-struct copy from a temporary had GCC
  // store it in 8-byte pieces and reload 16-byte ones, which stalls on store forwarding (a
  // third of a short batch's time).
  static void set_message(GcmVaesMessage& m, Bytes nonce, Bytes aad, Bytes in,
                          MutableBytes out) noexcept {
    m.nonce = nonce.data();
    m.aad = aad.data();
    m.aad_len = aad.size();
    m.in = in.data();
    m.out = out.data();
    m.len = in.size();
  }

  // copy_tag copies the tag bytes in use; the common full tag as one fixed-size copy.
  void copy_tag(std::uint8_t* tag, const GcmVaesMessage& m) const noexcept {
    if (tag_len_ == sizeof(m.tag)) {
      std::memcpy(tag, m.tag, sizeof(m.tag));
    } else {
      std::memcpy(tag, m.tag, tag_len_);
    }
  }

  GcmVaesKey key_;
  std::size_t tag_len_;
  std::unique_ptr<AeadImpl> bulk_;  // ipsec-mb's, for messages over the kernel's bound
};

}  // namespace

std::unique_ptr<AeadImpl> make_native_aes_gcm(Bytes key, std::size_t tag_len,
                                              std::unique_ptr<AeadImpl> bulk) {
  return std::make_unique<NativeGcm>(key, tag_len, std::move(bulk));
}

}  // namespace wireseal::crypto::detail
