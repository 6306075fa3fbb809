// Batch entry points. Today they loop; the interface is shaped so that a multi-buffer kernel
// can take the whole span later:
//  - AES-CM + HMAC-SHA1: HMAC-SHA1 is ~85 % of the cost (ANCHORS.md), and interleaving SHA-1
//    streams (SHA-NI, 16 packets) halves it. The plug-in point is between "encrypt payload"
//    and "compute tag" of protect_rtp: collect (authenticated span, ROC, tag span) per job
//    and hand them to a crypto-core Hmac::compute_batch once it exists.
//  - AEAD: collect SealJob/OpenJob and call Aead::seal_batch / open_batch.
// Replay and ROC state must still be updated per job in order, after each job's result.
#include "wireseal/srtp/session.h"

namespace wireseal::srtp {

void Session::protect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  for (PacketJob& job : jobs) {
    Result<std::size_t> r = protect_rtp(job.buffer, job.length);
    job.status = r ? Status{} : Status{r.error()};
    if (r) {
      job.length = *r;
    }
  }
}

void Session::unprotect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
      continue;
    }
    Result<std::span<std::uint8_t>> r = unprotect_rtp(job.buffer.first(job.length));
    job.status = r ? Status{} : Status{r.error()};
    if (r) {
      job.length = r->size();
    }
  }
}

void Session::protect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  for (PacketJob& job : jobs) {
    Result<std::size_t> r = protect_rtcp(job.buffer, job.length);
    job.status = r ? Status{} : Status{r.error()};
    if (r) {
      job.length = *r;
    }
  }
}

void Session::unprotect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
      continue;
    }
    Result<std::span<std::uint8_t>> r = unprotect_rtcp(job.buffer.first(job.length));
    job.status = r ? Status{} : Status{r.error()};
    if (r) {
      job.length = r->size();
    }
  }
}

}  // namespace wireseal::srtp
