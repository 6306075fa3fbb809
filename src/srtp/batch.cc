// SRTP batches: the crypto of up to 16 packets handed to the crypto core's batch entry points
// at once. HMAC-SHA1 is most of an AES-CM packet's cost, and Hmac::compute_batch
// hashes independent messages together by the CPU's batch plan (interleaved SHA-NI chains on
// AMD, sixteen AVX-512 lanes on Intel; docs/DESIGN.md, "Multi-buffer HMAC"), hiding one
// message's compression latency behind another's. GCM jobs go to Aead::seal_batch /
// open_batch (which interleave where the backend has a multi-buffer kernel).
//
// Results equal the single-packet transforms applied to the jobs in order:
//  - Protect: everything but the crypto (parsing, index, stream creation, replay-window mark)
//    happens per job in order, so a later job of the same SSRC sees an earlier one's index;
//    only the keystream, tag and AEAD work are deferred to the chunk's batch calls. A packet
//    that needs header work (cryptex, RFC 6904) or fails a check takes the single path.
//  - Unprotect, AES-CM / NULL: each packet's index is estimated provisionally, assuming the
//    earlier packets of its chunk authenticate, and packets that fail the replay check then
//    never reach the HMAC batch (replay check before authentication). The tags of the chunk
//    are computed together; then, in order, each packet's index is re-estimated from the
//    real stream state (replay check again, since an earlier packet of the chunk may have
//    taken the index), its tag compared, and only then the window marked. If the real
//    estimate differs from the provisional one (an earlier packet failed), the packet goes
//    through the single path, which sees exactly the state a one-by-one caller would.
//    Decryption runs last, as one AesCtr::apply_batch over the authenticated packets.
//  - Unprotect, AEAD: opening authenticates and decrypts in place in one step, so nothing can
//    be redone: a chunk takes only packets of existing streams whose index and replay check
//    are the same whichever earlier packets of the chunk fail (settled_by_queue_state: always
//    true for the first packet of an SSRC in the chunk, and for later ones of a started
//    stream away from the index's rollover edges); anything else flushes the chunk and goes
//    alone.
// If a deferred crypto call fails (it cannot for the sizes checked here), the job reports the
// error; for protect the index stays marked as used, which errs on the side of never reusing
// a keystream.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "batch_chunk.h"
#include "common/bytes.h"
#include "common/ct.h"
#include "keystream.h"
#include "rtp_header_read.h"
#include "rtp_plan.h"
#include "session_state.h"
#include "wireseal/srtp/packet_index.h"

namespace wireseal::srtp {
namespace detail {

void flush_protect(const SessionState& s, Chunk& c) noexcept {
  const std::size_t n = c.count;
  if (n == 0) {
    return;
  }
  CipherKeys& keys = *c.keys;
  switch (s.profile->cipher) {
    case CipherKind::kAesCm:
      keys.ctr->apply_batch({c.ctr.data(), n});
      keys.hmac->compute_batch({c.hmac.data(), n});
      break;
    case CipherKind::kNull:
      keys.hmac->compute_batch({c.hmac.data(), n});
      break;
    case CipherKind::kAesGcm:
      keys.aead->seal_batch({c.seal.data(), n});
      break;
  }
  for (std::size_t i = 0; i < n; ++i) {
    Lane& lane = c.lanes[i];
    Status st;
    switch (s.profile->cipher) {
      case CipherKind::kAesCm:
        st = first_error(c.ctr[i].status, c.hmac[i].status);
        break;
      case CipherKind::kNull:
        st = c.hmac[i].status;
        break;
      case CipherKind::kAesGcm:
        st = c.seal[i].status;
        break;
    }
    lane.job->status = st;
    if (st) {
      lane.job->length = lane.out_len;
    }
  }
  c.count = 0;
}

void flush_unprotect_aead(SessionState& s, Chunk& c) noexcept {
  const std::size_t n = c.count;
  if (n == 0) {
    return;
  }
  c.keys->aead->open_batch({c.open.data(), n});
  // Every lane's stream exists, and the index and replay check judged before opening hold
  // whichever earlier packets of the chunk failed (settled_by_queue_state here,
  // settled_by_queue in rtcp_batch.cc). Lanes of one stream mostly come in runs: the window
  // is looked up once per run.
  for (std::size_t i = 0; i < n;) {
    StreamState& stream = *c.lanes[i].stream;
    ReplayWindow window = c.rtcp ? s.streams.rtcp_window(stream) : s.streams.rtp_window(stream);
    for (; i < n && c.lanes[i].stream == &stream; ++i) {
      Lane& lane = c.lanes[i];
      if (!c.open[i].status) {
        lane.job->status = s.count_drop(c.open[i].status.error());
        continue;
      }
      window.mark(lane.index);
      lane.job->status = {};
      lane.job->length = lane.plain_len;
      WS_CT_DECLASSIFY(lane.job->buffer.data(), lane.plain_len);  // authenticated plaintext
    }
  }
  c.count = 0;
}

void decrypt_authenticated(SessionState& s, Chunk& c, CipherKeys& keys,
                           std::span<Lane* const> lanes) noexcept {
  if (lanes.empty()) {
    return;  // NULL profiles have no keystream (keys.ctr is empty)
  }
  keys.ctr->apply_batch({c.ctr.data(), lanes.size()});
  for (std::size_t d = 0; d < lanes.size(); ++d) {
    PacketJob& job = *lanes[d]->job;
    if (!c.ctr[d].status) {
      wireseal::detail::secure_wipe(job.buffer.data(), lanes[d]->plain_len);
      job.status = s.count_drop(c.ctr[d].status.error());
    } else {
      WS_CT_DECLASSIFY(job.buffer.data(), lanes[d]->plain_len);  // authenticated plaintext
    }
  }
}

namespace {

using wireseal::detail::tag_matches;

// ---- protect

// defer_protect does the per-packet part of protect_rtp for `job` and queues its crypto in
// `c`; false (nothing changed) when the packet must take the single path instead.
bool defer_protect(SessionState& s, Chunk& c, PacketJob& job) noexcept {
  std::uint8_t* buf = job.buffer.data();
  const std::size_t len = job.length;
  RtpPlan plan;
  if (!s.plan_protect_rtp(buf, len, job.buffer.size(), plan) || plan.header_protection() ||
      plan.config->allow_resend) {
    return false;  // an error the single path reports, or header or resend work it does
  }
  const RtpHeader& h = plan.header;
  const ProfileInfo& p = *s.profile;
  const std::size_t total = plan.total;
  Result<SentIndex> taken = s.take_rtp_index(plan.stream, h.ssrc, h.sequence);
  if (!taken) {
    return false;  // the single path reports the same error
  }
  const std::uint64_t index = taken->index;
  KeyMaterial* km = plan.key;
  if (c.full_for(km)) {
    flush_protect(s, c);
  }
  const std::size_t i = c.take_lane(km, /*for_rtcp=*/false);
  Lane& lane = c.lanes[i];
  lane.job = &job;
  lane.out_len = total;
  store_be32(lane.roc_be, roc_of(index));
  const std::span<std::uint8_t> payload(buf + h.size, len - h.size);
  std::uint8_t* tail = buf + len;
  if (p.cipher == CipherKind::kAesGcm) {
    c.gcm_ivs[i] = gcm_rtp_iv(salt12(km->rtp.salt), h.ssrc, roc_of(index), h.sequence);
    make_aead_job(c.seal, i, c.gcm_ivs[i], {buf, h.size}, payload, {tail, p.rtp_tag_len});
    std::memcpy(tail + p.rtp_tag_len, km->mki.data(), s.mki_len);  // RFC 7714 §8: MKI last
  } else {
    if (p.cipher == CipherKind::kAesCm) {
      c.cm_ivs[i] = cm_iv(salt14(km->rtp.salt), h.ssrc, index);
      make_ctr_job(c, i, payload);
    }
    std::memcpy(tail, km->mki.data(), s.mki_len);  // RFC 3711 §3.1: MKI, then the tag
    make_hmac_job(c.hmac, i, {buf, len}, lane.roc_be, {tail + s.mki_len, p.rtp_tag_len});
  }
  return true;
}

// ---- unprotect

Result<std::size_t> unprotect_single(SessionState& s, PacketJob& job) noexcept {
  return s.unprotect_rtp(job.buffer.data(), job.length, job.buffer.data(), job.length);
}

void flush_unprotect_hmac(SessionState& s, Chunk& c) noexcept {
  const std::size_t n = c.count;
  if (n == 0) {
    return;
  }
  KeyMaterial& km = *c.km;
  const ProfileInfo& p = *s.profile;
  km.rtp.hmac->compute_batch({c.hmac.data(), n});
  std::size_t decrypts = 0;
  std::array<Lane*, kLanes> decrypted{};
  for (std::size_t i = 0; i < n; ++i) {
    Lane& lane = c.lanes[i];
    PacketJob& job = *lane.job;
    StreamState* st = s.streams.find(lane.ssrc);
    if (st == nullptr && (!s.auto_create || s.streams.full())) {
      set_result(job, unprotect_single(s, job));
      continue;
    }
    const StreamState& cfg = st != nullptr ? *st : s.defaults;
    Result<std::uint64_t> index = estimate_rtp_index(s.streams, st, cfg, lane.sequence);
    if (!index) {
      job.status = s.count_drop(index.error());
      continue;
    }
    if (*index != lane.index || !c.hmac[i].status) {
      set_result(job, unprotect_single(s, job));  // an earlier packet failed: redo exactly
      continue;
    }
    const std::uint8_t* tag = job.buffer.data() + lane.plain_len + s.mki_len;
    if (!tag_matches({lane.expected, p.rtp_tag_len}, {tag, p.rtp_tag_len})) {
      job.status = s.count_drop(Error::kAuthFailed);
      continue;
    }
    if (st == nullptr) {
      st = s.create_stream(lane.ssrc);
    }
    s.streams.rtp_window(*st).mark(*index);
    job.status = {};
    job.length = lane.plain_len;
    if (p.cipher == CipherKind::kAesCm) {
      const std::size_t d = decrypts++;
      const std::span<std::uint8_t> payload(job.buffer.data() + lane.header_len,
                                            lane.plain_len - lane.header_len);
      c.cm_ivs[d] = cm_iv(salt14(km.rtp.salt), lane.ssrc, *index);
      make_ctr_job(c, d, payload);
      decrypted[d] = &lane;
    }
  }
  decrypt_authenticated(s, c, km.rtp, {decrypted.data(), decrypts});
  c.count = 0;
}

void flush_unprotect(SessionState& s, Chunk& c) noexcept {
  if (s.profile->cipher == CipherKind::kAesGcm) {
    flush_unprotect_aead(s, c);
  } else {
    flush_unprotect_hmac(s, c);
  }
}

// settled_by_queue_state tells whether an AEAD packet behind queued packets of its own SSRC
// gets the same index and passes the replay check whichever of them authenticate, since its
// opening cannot be redone: decryption happens in place. With the stream started, the highest
// index at flush time lies between the stream's now (all earlier ones fail) and the
// provisional `highest` (all succeed), and the estimate is a non-decreasing function of the
// highest index, so equal estimates at both ends mean the same index throughout; and a
// packet not behind the window of the provisional highest is not behind any lower one.
bool settled_by_queue_state(SessionState& s, StreamState& st, std::uint64_t highest,
                            std::uint64_t index, std::uint16_t sequence) noexcept {
  if (!st.rtp_started) {
    return false;
  }
  if (estimate_packet_index(st.rtp_highest, sequence) != std::optional<std::uint64_t>(index)) {
    return false;
  }
  const std::size_t window = s.streams.rtp_window(st).size();
  return index > highest || highest - index < window;
}

// Provisional is a queued packet's provisional index (see the file comment), the stream's
// highest index should it and the packets queued before it authenticate, and its stream
// (null: yet to be created).
struct Provisional {
  std::uint64_t index;
  std::uint64_t highest_after;
  StreamState* stream;
};

// continues_run: the packet is the next one, in order, of a started stream after `queued`,
// the latest packet the chunk holds of that stream (a burst, what most batches are), and
// the highest index of that stream the chunk would leave. Its index is then that packet's
// plus one and estimate_provisional's checks all pass without being run: the index is past
// every index of the stream's window and of the chunk (fresh, no duplicate), and less than
// 2^15 past the stream's real highest index, which lies between that and the queued packet's
// index (whichever queued packets fail), so RFC 3711's estimate from any of them is this
// index (settled for AEAD; docs/DESIGN.md, "Runs of one stream in SRTP batches"). Measured
// on Zen 5, the checks it skips were 3-4 ns of a batched 100-byte GCM packet's 35.
bool continues_run(const Lane& queued, const RtpHeader& h, Provisional& out) noexcept {
  const std::uint64_t index = queued.index + 1;
  StreamState* st = queued.stream;
  if (queued.index != queued.highest_after || st == nullptr || !st->rtp_started ||
      sequence_of(index) != h.sequence || index > kMaxPacketIndex ||
      index - st->rtp_highest >= (std::uint64_t{1} << 15)) {
    return false;
  }
  out = {index, index, st};
  return true;
}

// estimate_provisional estimates the packet's index from the stream's state and `queued`,
// the latest packet of its SSRC in the chunk (or null: Chunk::latest_of), with the replay
// check; false when it must take the single path.
bool estimate_provisional(SessionState& s, const Chunk& c, const RtpHeader& h, const Lane* queued,
                          bool aead, Provisional& out) noexcept {
  StreamState* st = queued != nullptr ? queued->stream : s.streams.find(h.ssrc);
  if (st == nullptr && (aead || !s.auto_create || s.streams.full())) {
    return false;
  }
  const StreamState& cfg = st != nullptr ? *st : s.defaults;
  const bool queued_ssrc = queued != nullptr;
  const bool started = queued_ssrc || (st != nullptr && st->rtp_started);
  std::uint64_t highest = 0;
  if (queued_ssrc) {
    highest = queued->highest_after;
  } else if (started) {
    highest = st->rtp_highest;
  }
  std::uint64_t index = packet_index(cfg.initial_roc, h.sequence);
  if (started) {
    const std::optional<std::uint64_t> e = estimate_packet_index(highest, h.sequence);
    if (!e) {
      return false;
    }
    index = *e;
  }
  // Replay check before authentication: a packet the window already rejects never reaches
  // the MAC. Marks only accumulate, so a rejection here is final.
  if (st != nullptr && !s.streams.rtp_window(*st).is_fresh(index)) {
    return false;
  }
  // A duplicate of a queued packet (its fate depends on that one's) can only be at or below
  // the provisional highest index; in-order packets skip the scan.
  if (queued_ssrc && index <= highest && c.holds(h.ssrc, index)) {
    return false;
  }
  if (aead && queued_ssrc && !settled_by_queue_state(s, *st, highest, index, h.sequence)) {
    return false;
  }
  out = {index, started ? std::max(highest, index) : index, st};
  return true;
}

// defer_unprotect queues the packet of `job` in `c` (see the file comment); false (nothing
// changed) when it must take the single path.
bool defer_unprotect(SessionState& s, Chunk& c, PacketJob& job) noexcept {
  const std::uint8_t* buf = job.buffer.data();
  const std::size_t len = job.length;
  RtpHeader h;
  if (!read_rtp_header({buf, len}, h)) {
    return false;
  }
  const ProfileInfo& p = *s.profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  if (len < h.size + p.rtp_tag_len + s.mki_len) {
    return false;
  }
  const std::size_t plain_len = len - p.rtp_tag_len - s.mki_len;
  if (exceeds_keystream(p, plain_len - kRtpFixedHeaderSize)) {
    return false;
  }
  KeyMaterial* km = s.key_for_mki(buf + plain_len + (aead ? p.rtp_tag_len : 0));
  if (km == nullptr) {
    return false;
  }
  const Lane* queued = c.latest_of(h.ssrc);
  Provisional est;
  if (!(queued != nullptr && continues_run(*queued, h, est)) &&
      !estimate_provisional(s, c, h, queued, aead, est)) {
    return false;
  }
  const StreamState& cfg = est.stream != nullptr ? *est.stream : s.defaults;
  if (h.has_extension && (cfg.cryptex || cfg.encrypt_extensions)) {
    return false;  // header protection: single path
  }
  if (c.full_for(km)) {
    flush_unprotect(s, c);
    return defer_unprotect(s, c, job);  // the state moved: estimate again
  }
  const std::size_t i = c.take_lane(km, /*for_rtcp=*/false);
  Lane& lane = c.lanes[i];
  lane.job = &job;
  lane.index = est.index;
  lane.highest_after = est.highest_after;
  lane.stream = est.stream;
  lane.ssrc = h.ssrc;
  lane.plain_len = plain_len;
  if (aead) {
    const std::span<std::uint8_t> payload(job.buffer.data() + h.size, plain_len - h.size);
    c.gcm_ivs[i] = gcm_rtp_iv(salt12(km->rtp.salt), h.ssrc, roc_of(est.index), h.sequence);
    make_aead_job(c.open, i, c.gcm_ivs[i], {buf, h.size}, payload,
                  {buf + plain_len, p.rtp_tag_len});
  } else {
    lane.sequence = h.sequence;  // the flush estimates the index again, from the real state
    lane.header_len = h.size;
    store_be32(lane.roc_be, roc_of(est.index));
    make_hmac_job(c.hmac, i, {buf, plain_len}, lane.roc_be, {lane.expected, p.rtp_tag_len});
  }
  return true;
}

// batch_payload_max is the longest payload whose crypto a chunk defers: any for AES-CM and
// NULL (the HMAC lanes take every length), and for GCM the AEAD's batch-kernel bound (256
// bytes with x86's VAES kernel; 0 where the backend has none, since GCM kernels are parallel
// within one packet already). Other packets take the single path directly: chunking them
// would only add bookkeeping, which measured 10-25 % slower than packet by packet.
std::size_t batch_payload_max(const SessionState& s) noexcept {
  return s.profile->cipher == CipherKind::kAesGcm ? s.keys.front().rtp.aead->batch_interleave_max()
                                                  : std::numeric_limits<std::size_t>::max();
}

// goes_alone: the packet's length alone shows its payload (at most `length` minus the fixed
// header and `trailer`: tag and MKI of a protected packet) may exceed `payload_max`.
bool goes_alone(std::size_t length, std::size_t trailer, std::size_t payload_max) noexcept {
  const std::size_t overhead = kRtpFixedHeaderSize + trailer;
  return length > overhead && length - overhead > payload_max;
}

}  // namespace

void SessionState::protect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  const std::size_t payload_max = batch_payload_max(*this);
  auto protect_alone = [this](PacketJob& job) {
    set_result(job,
               protect_rtp(job.buffer.data(), job.length, job.buffer.data(), job.buffer.size()));
  };
  Chunk c;
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
    } else if (goes_alone(job.length, 0, payload_max) || !defer_protect(*this, c, job)) {
      protect_alone(job);
    }
  }
  flush_protect(*this, c);
}

void SessionState::unprotect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  const std::size_t payload_max = batch_payload_max(*this);
  const std::size_t trailer = profile->rtp_tag_len + mki_len;
  Chunk c;
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
    } else if (goes_alone(job.length, trailer, payload_max) || !defer_unprotect(*this, c, job)) {
      flush_unprotect(*this, c);  // earlier packets first: this one may depend on them
      set_result(job, unprotect_single(*this, job));
    }
  }
  flush_unprotect(*this, c);
}

}  // namespace detail

void Session::protect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  state_->protect_rtp_batch(jobs);
}

void Session::unprotect_rtp_batch(std::span<PacketJob> jobs) noexcept {
  state_->unprotect_rtp_batch(jobs);
}

void Session::protect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  state_->protect_rtcp_batch(jobs);
}

void Session::unprotect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  state_->unprotect_rtcp_batch(jobs);
}

}  // namespace wireseal::srtp
