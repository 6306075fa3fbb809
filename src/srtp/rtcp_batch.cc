// SRTCP batches: the crypto of up to 16 packets handed to the crypto core's batch calls at
// once, through the same chunk as SRTP's (batch_chunk.h). Results equal unprotect_rtcp /
// protect_rtcp applied to the jobs in order:
//  - Protect: the checks, the index and the header work happen per packet in order
//    (plan_protect_rtcp); only the keystream, tag and AEAD work are deferred.
//  - Unprotect, AES-CM / NULL: a packet whose checks pass against the current state is queued
//    and its tag computed with the others; then, in order, its stream and replay window are
//    judged again (an earlier packet of the chunk may have created the stream, taken the
//    index or moved the window), its tag compared, and only then the window marked. The
//    authenticated packets are decrypted last, in one AesCtr::apply_batch. A packet whose
//    checks fail flushes the chunk and takes the single path, which sees the state a
//    one-by-one caller would and counts the drop.
//  - Unprotect, AEAD: opening decrypts in place, so nothing can be judged again after it: a
//    chunk takes only encrypted packets of existing streams whose replay verdict the queued
//    packets cannot change, whichever of them authenticate (settled_by_queue). Anything else
//    flushes and goes alone.
#include <algorithm>
#include <cstring>

#include "batch_chunk.h"
#include "common/bytes.h"
#include "common/ct.h"

namespace wireseal::srtp::detail {
namespace {

using wireseal::detail::tag_matches;

// aead_batch_max is the longest body an AEAD chunk defers: the AEAD's batch-kernel bound
// (longer packets gain nothing from a chunk; batch.cc, batch_payload_max); 0 for the other
// profiles, which do not read it. Read once per batch call: per packet, its virtual call was
// 3 % of a batched 100-byte GCM packet.
std::size_t aead_batch_max(const SessionState& s) noexcept {
  return s.profile->cipher == CipherKind::kAesGcm ? s.keys.front().rtcp.aead->batch_interleave_max()
                                                  : 0;
}

// ---- protect

// defer_protect_rtcp plans `job` and queues its crypto; false when it must take the single
// path instead (a GCM packet's body over `batch_max`). A failed plan is the job's
// result: plan_protect_rtcp changes nothing when it fails.
bool defer_protect_rtcp(SessionState& s, Chunk& c, PacketJob& job, std::size_t batch_max) noexcept {
  std::uint8_t* buf = job.buffer.data();
  const std::size_t len = job.length;
  const ProfileInfo& p = *s.profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  if (aead && len > kRtcpHeaderSize && len - kRtcpHeaderSize > batch_max) {
    return false;
  }
  RtcpSendPlan plan;
  if (const Status st = s.plan_protect_rtcp(buf, len, buf, job.buffer.size(), plan); !st) {
    job.status = st;
    return true;
  }
  KeyMaterial& km = *plan.key;
  if (c.full_for(&km)) {
    flush_protect(s, c);
  }
  const std::size_t i = c.take_lane(&km, /*for_rtcp=*/true);
  Lane& lane = c.lanes[i];
  lane.job = &job;
  lane.out_len = plan.total;
  const std::span<std::uint8_t> body(buf + kRtcpHeaderSize, len - kRtcpHeaderSize);
  if (aead) {
    // RFC 7714 §9: AAD = header || E|index; then tag, E|index and MKI follow the body.
    std::memcpy(lane.rtcp_aad, buf, kRtcpHeaderSize);
    store_be32(lane.rtcp_aad + kRtcpHeaderSize, plan.word);
    c.gcm_ivs[i] = gcm_rtcp_iv(salt12(km.rtcp.salt), plan.ssrc, plan.index);
    make_aead_job(c.seal, i, c.gcm_ivs[i], lane.rtcp_aad, body, {buf + len, p.rtcp_tag_len});
    store_be32(buf + len + p.rtcp_tag_len, plan.word);
    std::memcpy(buf + len + p.rtcp_tag_len + kRtcpIndexWordSize, km.mki.data(), s.mki_len);
    return true;
  }
  if (p.cipher == CipherKind::kAesCm) {
    c.cm_ivs[i] = cm_iv(salt14(km.rtcp.salt), plan.ssrc, plan.index);
    make_ctr_job(c, i, body);
  }
  // RFC 3711 §3.4: the tag covers header || E(rest) || E|index, and follows the MKI.
  store_be32(buf + len, plan.word);
  std::memcpy(buf + len + kRtcpIndexWordSize, km.mki.data(), s.mki_len);
  make_hmac_job(c.hmac, i, {buf, len + kRtcpIndexWordSize}, {},
                {buf + len + kRtcpIndexWordSize + s.mki_len, p.rtcp_tag_len});
  return true;
}

// ---- unprotect

Result<std::size_t> unprotect_single(SessionState& s, PacketJob& job) noexcept {
  return s.unprotect_rtcp(job.buffer.data(), job.length, job.buffer.data(), job.length);
}

void flush_unprotect_hmac(SessionState& s, Chunk& c) noexcept {
  const std::size_t n = c.count;
  if (n == 0) {
    return;
  }
  KeyMaterial& km = *c.km;
  const ProfileInfo& p = *s.profile;
  km.rtcp.hmac->compute_batch({c.hmac.data(), n});
  std::size_t decrypts = 0;
  std::array<Lane*, kLanes> decrypted{};
  for (std::size_t i = 0; i < n; ++i) {
    Lane& lane = c.lanes[i];
    PacketJob& job = *lane.job;
    // Judged again: an earlier packet of the chunk may have created the stream, filled the
    // table, taken the index or moved the window.
    StreamState* st = nullptr;
    if (const Status verdict =
            s.judge_rtcp_stream(lane.ssrc, static_cast<std::uint32_t>(lane.index), st);
        !verdict) {
      job.status = s.count_drop(verdict.error());
      continue;
    }
    const std::uint8_t* tag = job.buffer.data() + lane.plain_len + kRtcpIndexWordSize + s.mki_len;
    if (!c.hmac[i].status || !tag_matches({lane.expected, p.rtcp_tag_len}, {tag, p.rtcp_tag_len})) {
      job.status = s.count_drop(Error::kAuthFailed);
      continue;
    }
    if (st == nullptr) {
      st = s.create_stream(lane.ssrc);
    }
    s.streams.rtcp_window(*st).mark(lane.index);
    job.status = {};
    job.length = lane.plain_len;
    if (lane.decrypt) {
      const std::size_t d = decrypts++;
      c.cm_ivs[d] = cm_iv(salt14(km.rtcp.salt), lane.ssrc, lane.index);
      make_ctr_job(c, d, {job.buffer.data() + kRtcpHeaderSize, lane.plain_len - kRtcpHeaderSize});
      decrypted[d] = &lane;
    } else {
      WS_CT_DECLASSIFY(job.buffer.data(), lane.plain_len);  // authenticated plaintext
    }
  }
  decrypt_authenticated(s, c, km.rtcp, {decrypted.data(), decrypts});
  c.count = 0;
}

void flush_unprotect(SessionState& s, Chunk& c) noexcept {
  if (s.profile->cipher == CipherKind::kAesGcm) {
    flush_unprotect_aead(s, c);
  } else {
    flush_unprotect_hmac(s, c);
  }
}

// settled_by_queue: an AEAD packet of a stream with packets queued before it gets the same
// replay verdict whichever of them authenticate, since its opening cannot be redone. Marking
// any subset of the queued indices leaves the stream's highest index at most H, the largest
// of them and the current one (the latest queued packet of the SSRC carries it); so an index
// that is fresh now, is none of the queued ones and lies within the window below H (or above
// it) is fresh whatever the subset, as the window only slides forward and sets no bit but the
// indices marked. An index above H (packets in order) needs no scan for duplicates. Sets
// `highest_after` to the packet's H.
bool settled_by_queue(const Chunk& c, const RtcpOpenPlan& plan, std::size_t window,
                      std::uint64_t& highest_after) noexcept {
  const StreamState& st = *plan.stream;
  const Lane* latest = c.latest_of(plan.ssrc);
  std::uint64_t highest = st.rtcp_started ? st.rtcp_highest : 0;
  if (latest != nullptr) {
    highest = latest->highest_after;
  }
  highest_after = std::max(highest, std::uint64_t{plan.index});
  if (plan.index > highest) {
    return true;
  }
  if (latest != nullptr && c.holds(plan.ssrc, plan.index)) {
    return false;  // a duplicate: a replay if the first one authenticates
  }
  return highest - plan.index < window;
}

// defer_unprotect_rtcp queues `job` when its checks pass against the current state and (AEAD)
// its verdict cannot depend on the queued packets; false when it must take the single path
// (after the chunk is flushed).
bool defer_unprotect_rtcp(SessionState& s, Chunk& c, PacketJob& job,
                          std::size_t batch_max) noexcept {
  std::uint8_t* buf = job.buffer.data();
  const std::size_t len = job.length;
  RtcpOpenPlan plan;
  if (!s.plan_unprotect_rtcp(buf, len, len, plan)) {
    return false;
  }
  const ProfileInfo& p = *s.profile;
  const bool aead = p.cipher == CipherKind::kAesGcm;
  const std::size_t body_len = plan.plain_len - kRtcpHeaderSize;
  std::uint64_t highest_after = 0;
  if (aead &&
      (!plan.encrypted || plan.stream == nullptr || body_len > batch_max ||
       !settled_by_queue(c, plan, s.streams.rtcp_window(*plan.stream).size(), highest_after))) {
    return false;  // authentication only, a new stream, long, or judged by the queued ones
  }
  KeyMaterial& km = *plan.key;
  if (c.full_for(&km)) {
    flush_unprotect(s, c);
  }
  const std::size_t i = c.take_lane(&km, /*for_rtcp=*/true);
  Lane& lane = c.lanes[i];
  lane.job = &job;
  lane.stream = plan.stream;
  lane.ssrc = plan.ssrc;
  lane.index = plan.index;
  lane.highest_after = highest_after;  // AEAD lanes: settled_by_queue reads it
  lane.plain_len = plan.plain_len;
  lane.decrypt = plan.encrypted && p.cipher == CipherKind::kAesCm;
  if (aead) {
    std::memcpy(lane.rtcp_aad, buf, kRtcpHeaderSize);
    store_be32(lane.rtcp_aad + kRtcpHeaderSize, plan.word);
    c.gcm_ivs[i] = gcm_rtcp_iv(salt12(km.rtcp.salt), plan.ssrc, plan.index);
    make_aead_job(c.open, i, c.gcm_ivs[i], lane.rtcp_aad, {buf + kRtcpHeaderSize, body_len},
                  {plan.tag, p.rtcp_tag_len});
  } else {
    make_hmac_job(c.hmac, i, {buf, plan.plain_len + kRtcpIndexWordSize}, {},
                  {lane.expected, p.rtcp_tag_len});
  }
  return true;
}

}  // namespace

void SessionState::protect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  const std::size_t batch_max = aead_batch_max(*this);
  Chunk c;
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
    } else if (!defer_protect_rtcp(*this, c, job, batch_max)) {
      set_result(job,
                 protect_rtcp(job.buffer.data(), job.length, job.buffer.data(), job.buffer.size()));
    }
  }
  flush_protect(*this, c);
}

void SessionState::unprotect_rtcp_batch(std::span<PacketJob> jobs) noexcept {
  const std::size_t batch_max = aead_batch_max(*this);
  Chunk c;
  for (PacketJob& job : jobs) {
    if (job.length > job.buffer.size()) {
      job.status = Error::kInvalidArgument;
    } else if (!defer_unprotect_rtcp(*this, c, job, batch_max)) {
      flush_unprotect(*this, c);  // earlier packets first: this one may depend on them
      set_result(job, unprotect_single(*this, job));
    }
  }
  flush_unprotect(*this, c);
}

}  // namespace wireseal::srtp::detail
