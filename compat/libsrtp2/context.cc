// srtp_t set-up: srtp_create, srtp_add_stream, srtp_update, srtp_remove_stream, and the
// per-session queries (ROC, trailer lengths, user data).
#include "context.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>

#include "common/ct.h"
#include "wireseal/srtp/profile.h"

namespace wireseal::compat {

Keying::~Keying() {
  detail::secure_wipe(identity.data(), identity.size());
  detail::secure_wipe(kdf_inputs.data(), kdf_inputs.size());
}

namespace {

// marks_elsewhere is the highest of the marks `ssrc` left in the keyings sharing k's keys.
srtp::SenderMarks marks_elsewhere(const Keying& k, std::uint32_t ssrc) noexcept {
  srtp::SenderMarks m;
  for (const Keying* other : k.sharing) {
    const srtp::SenderMarks theirs = other->session.sender_marks(ssrc);
    m.rtp_next = std::max(m.rtp_next, theirs.rtp_next);
    m.rtcp_next = std::max(m.rtcp_next, theirs.rtcp_next);
  }
  return m;
}

}  // namespace

Status add_stream_to(Keying& k, std::uint32_t ssrc, srtp::StreamOptions options) noexcept {
  options.sent_elsewhere = marks_elsewhere(k, ssrc);
  return k.session.add_stream(ssrc, options);
}

srtp::StreamOptions Policy::options(std::uint8_t key_index, std::uint32_t roc) const noexcept {
  srtp::StreamOptions o;
  o.roc = roc;
  o.key_index = key_index;
  o.encrypted_extension_ids = extension_ids;
  o.allow_resend = allow_repeat_tx;
  return o;
}

// --- the SSRC map

namespace {

std::size_t home(std::uint32_t ssrc) noexcept {
  return (ssrc * 0x9E3779B1U) & (kStreamSlots - 1);  // Fibonacci hashing spreads close SSRCs
}

}  // namespace

Stream* StreamMap::find(std::uint32_t ssrc) noexcept {
  for (std::size_t i = home(ssrc), n = 0; n < kStreamSlots; i = (i + 1) & (kStreamSlots - 1), ++n) {
    Stream& s = slots_[i];
    if (s.policy == nullptr && !s.removed) {
      return nullptr;
    }
    if (!s.removed && s.ssrc == ssrc) {
      return &s;
    }
  }
  return nullptr;
}

Stream* StreamMap::insert(std::uint32_t ssrc, Policy* policy) noexcept {
  // At most three quarters of the slots live: an insert always finds a free or removed slot.
  if (full()) {
    return nullptr;
  }
  for (std::size_t i = home(ssrc);; i = (i + 1) & (kStreamSlots - 1)) {
    Stream& s = slots_[i];
    if (s.policy == nullptr || s.removed) {
      ++live_;
      s = Stream{ssrc, policy, false, Direction::kUnknown, 0, 0};
      return &s;
    }
  }
}

void StreamMap::erase(Stream* s) noexcept {
  s->removed = true;
  s->policy = nullptr;
  --live_;
}

// --- errors and events

srtp_err_status_t status_of(Error e) noexcept {
  switch (e) {
    case Error::kAuthFailed:
      return srtp_err_status_auth_fail;
    case Error::kReplay:
      return srtp_err_status_replay_fail;
    case Error::kReplayOld:
      return srtp_err_status_replay_old;
    case Error::kKeyLimit:
    case Error::kSequenceExhausted:
      return srtp_err_status_key_expired;
    case Error::kWrongContext:
      return srtp_err_status_no_ctx;
    case Error::kTableFull:
    case Error::kOutOfMemory:
      return srtp_err_status_alloc_fail;
    case Error::kMalformed:
    case Error::kBufferTooSmall:
    case Error::kAliasing:
    case Error::kInvalidArgument:
      return srtp_err_status_bad_param;
    default:
      return srtp_err_status_fail;
  }
}

namespace {

// --- turning a policy into keyings

struct KeyView {
  const unsigned char* key;  // master key then salt
  const unsigned char* mki;
};

// Keys are a policy's master keys: policy.key alone, or policy.keys with their MKIs.
struct Keys {
  std::vector<KeyView> keys;
  std::size_t mki_len = 0;
};

// policy.key, when set, wins over policy.keys (libsrtp's rule): one key, no MKI.
std::optional<Keys> keys_of(const srtp_policy_t& p) {
  Keys k;
  if (p.key != nullptr) {
    k.keys.push_back({p.key, nullptr});
    return k;
  }
  if (p.keys == nullptr || p.num_master_keys == 0 || p.num_master_keys > SRTP_MAX_NUM_MASTER_KEYS) {
    return std::nullopt;
  }
  for (unsigned long i = 0; i < p.num_master_keys; ++i) {
    const srtp_master_key_t* m = p.keys[i];
    if (m == nullptr || m->key == nullptr || m->mki_size > SRTP_MAX_MKI_LEN ||
        (m->mki_size != 0 && m->mki_id == nullptr) || (i > 0 && m->mki_size != k.mki_len)) {
      return std::nullopt;  // every key needs an MKI of the same length
    }
    k.mki_len = m->mki_size;
    k.keys.push_back({m->key, m->mki_id});
  }
  if (k.keys.size() > 1 && k.mki_len == 0) {
    return std::nullopt;
  }
  return k;
}

// A keying is known by everything that shapes its keystream and its wire format.
// identity_of leaves the replay window and allow_repeat_tx out on purpose: two Sessions under
// the same keys would keep separate index books, so a stream moved between them could reuse
// an index. A keying keeps the window of the policy that made it.
std::vector<std::uint8_t> identity_of(srtp::Profile profile, const Keys& k) {
  const srtp::ProfileInfo& info = srtp::info(profile);
  std::vector<std::uint8_t> id{static_cast<std::uint8_t>(profile),
                               static_cast<std::uint8_t>(k.mki_len)};
  for (const KeyView& v : k.keys) {
    id.insert(id.end(), v.key, v.key + info.master_key_len + info.master_salt_len);
    if (k.mki_len != 0) {
      id.insert(id.end(), v.mki, v.mki + k.mki_len);
    }
  }
  return id;
}

// kdf_inputs_of lays out what each master key's session keys are derived from (kKdfInputSize
// bytes a key): the AES key length, the key and the salt. Not the tag length, not the MKI:
// RFC 3711 §4.3's KDF reads neither. RFC 7714's AEAD profiles run the same KDF with the same
// labels on a 12-byte salt followed by two zero bytes (crypto::srtp_kdf), so an AES-GCM key
// and an AES-CM key with such a salt derive the same session key. NULL profiles: none.
std::vector<std::uint8_t> kdf_inputs_of(srtp::Profile profile, const Keys& k) {
  const srtp::ProfileInfo& info = srtp::info(profile);
  std::vector<std::uint8_t> inputs;
  if (info.cipher == srtp::CipherKind::kNull) {
    return inputs;
  }
  inputs.resize(k.keys.size() * kKdfInputSize);
  std::uint8_t* at = inputs.data();
  for (const KeyView& v : k.keys) {
    at[0] = static_cast<std::uint8_t>(info.master_key_len);
    std::memcpy(at + 1, v.key, info.master_key_len);
    std::memcpy(at + 1 + 32, v.key + info.master_key_len, info.master_salt_len);
    at += kKdfInputSize;
  }
  return inputs;
}

// share_a_key: some master key of `a` is one of `b` (KDF inputs as kdf_inputs_of lays them
// out). Compared in constant time, as keys are.
bool share_a_key(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) noexcept {
  for (std::size_t i = 0; i < a.size(); i += kKdfInputSize) {
    for (std::size_t j = 0; j < b.size(); j += kKdfInputSize) {
      if (detail::ct_equal({a.data() + i, kKdfInputSize}, {b.data() + j, kKdfInputSize})) {
        return true;
      }
    }
  }
  return false;
}

// keyings_sharing_keys are the keyings of `ctx` deriving from one of the master keys laid out
// in `inputs`. kInvalidArgument when one of them encrypts with the other AES mode: AES-CM and
// AES-GCM under one session key have counter blocks that meet at different indexes, which no
// index book can keep apart (docs/DESIGN.md, "The drop-in libsrtp2").
Result<std::vector<Keying*>> keyings_sharing_keys(const srtp_ctx_t_& ctx, srtp::CipherKind cipher,
                                                  const std::vector<std::uint8_t>& inputs) {
  std::vector<Keying*> sharing;
  for (const auto& other : ctx.keyings) {
    if (share_a_key(inputs, other->kdf_inputs)) {
      if (other->cipher != cipher) {
        return Error::kInvalidArgument;
      }
      sharing.push_back(other.get());
    }
  }
  return sharing;
}

// adopt puts `keying` into ctx and into the sharing lists of the keyings in its own (room is
// made first, so no list can be left knowing only half of the pair).
Keying* adopt(srtp_ctx_t_& ctx, std::unique_ptr<Keying> keying) {
  for (Keying* other : keying->sharing) {
    other->sharing.reserve(other->sharing.size() + 1);
  }
  ctx.keyings.reserve(ctx.keyings.size() + 1);
  Keying* k = keying.get();
  for (Keying* other : k->sharing) {
    other->sharing.push_back(k);
  }
  ctx.keyings.push_back(std::move(keying));
  return k;
}

Result<Keying*> keying_for(srtp_ctx_t_& ctx, srtp::Profile profile, std::size_t window,
                           const Keys& k) {
  std::vector<std::uint8_t> id = identity_of(profile, k);
  for (const auto& keying : ctx.keyings) {
    if (keying->identity == id) {
      detail::secure_wipe(id.data(), id.size());
      return keying.get();
    }
  }
  const srtp::ProfileInfo& info = srtp::info(profile);
  std::vector<std::uint8_t> inputs = kdf_inputs_of(profile, k);
  Result<std::vector<Keying*>> sharing = keyings_sharing_keys(ctx, info.cipher, inputs);
  if (!sharing) {
    detail::secure_wipe(id.data(), id.size());
    detail::secure_wipe(inputs.data(), inputs.size());
    return sharing.error();
  }
  std::vector<srtp::MasterKey> masters;
  for (const KeyView& v : k.keys) {
    masters.push_back({{v.key, info.master_key_len},
                       {v.key + info.master_key_len, info.master_salt_len},
                       {v.mki, k.mki_len}});
  }
  srtp::SessionConfig c;
  c.profile = profile;
  c.keys = masters;
  c.mki_len = k.mki_len;
  c.max_streams = kStreamsPerKeying;
  c.replay_window = window;
  c.create_streams_on_first_packet = true;  // the SSRC map decides who may create streams
  Result<srtp::Session> session = srtp::Session::create(c);
  if (!session) {
    detail::secure_wipe(id.data(), id.size());
    detail::secure_wipe(inputs.data(), inputs.size());
    return session.error();
  }
  auto keying = std::make_unique<Keying>(std::move(id), std::move(*session), std::move(inputs));
  keying->sharing = std::move(*sharing);
  return adopt(ctx, std::move(keying));
}

// same_rtcp_transform: one wireseal Session's SRTCP is what the RTCP policy asks for.
bool same_rtcp_transform(srtp::Profile rtp, srtp::Profile rtcp) noexcept {
  const srtp::ProfileInfo& a = srtp::info(rtp);
  const srtp::ProfileInfo& b = srtp::info(rtcp);
  return a.cipher == b.cipher && a.master_key_len == b.master_key_len &&
         a.rtcp_tag_len == b.rtcp_tag_len;
}

// policy_from validates `p` and builds its Policy (finding or making its keyings).
Result<std::unique_ptr<Policy>> policy_from(srtp_ctx_t_& ctx, const srtp_policy_t& p) {
  const srtp_ssrc_type_t type = ssrc_type_of(p);
  if (type == ssrc_undefined) {
    return Error::kInvalidArgument;
  }
  srtp::Profile rtp{};
  srtp::Profile rtcp{};
  if (!profile_of(p.rtp, rtp) || !profile_of(p.rtcp, rtcp) ||
      // wireseal's SRTCP tags are 80 bits (HMAC) or 128 (GCM): a 32-bit SRTCP tag is refused
      p.rtcp.auth_tag_len != static_cast<int>(srtp::info(rtcp).rtcp_tag_len) ||
      srtp::info(rtp).master_key_len != srtp::info(rtcp).master_key_len ||
      srtp::info(rtp).master_salt_len != srtp::info(rtcp).master_salt_len) {
    return Error::kInvalidArgument;
  }
  const std::size_t window = p.window_size == 0 ? 128 : p.window_size;
  if (window < 64 || window >= 0x8000) {
    return Error::kInvalidArgument;
  }
  if (p.enc_xtn_hdr_count < 0 || (p.enc_xtn_hdr_count > 0 && p.enc_xtn_hdr == nullptr)) {
    return Error::kInvalidArgument;
  }
  const std::optional<Keys> keys = keys_of(p);
  if (!keys) {
    return Error::kInvalidArgument;
  }
  auto policy = std::make_unique<Policy>();
  policy->type = type;
  policy->ssrc = p.ssrc.value;
  policy->key_count = keys->keys.size();
  policy->mki_len = keys->mki_len;
  for (const KeyView& v : keys->keys) {
    policy->mkis.insert(policy->mkis.end(), v.mki, v.mki + keys->mki_len);
  }
  for (int i = 0; i < p.enc_xtn_hdr_count; ++i) {
    if (p.enc_xtn_hdr[i] < 1 || p.enc_xtn_hdr[i] > 255) {
      return Error::kInvalidArgument;
    }
    policy->extension_ids.push_back(static_cast<std::uint8_t>(p.enc_xtn_hdr[i]));
  }
  Result<Keying*> rtp_keying = keying_for(ctx, rtp, window, *keys);
  if (!rtp_keying) {
    return rtp_keying.error();
  }
  policy->rtp = *rtp_keying;
  policy->rtcp = policy->rtp;
  if (!same_rtcp_transform(rtp, rtcp)) {
    Result<Keying*> rtcp_keying = keying_for(ctx, rtcp, window, *keys);
    if (!rtcp_keying) {
      return rtcp_keying.error();
    }
    policy->rtcp = *rtcp_keying;
  }
  if (p.allow_repeat_tx != 0) {
    // RTP only: libsrtp's SRTCP always takes the next index. A keying that already has rings
    // keeps them (kBadState: reserved before with another window).
    policy->allow_repeat_tx = true;
    const Status s = policy->rtp->session.reserve_resends(std::min(window, kMaxResendWindow),
                                                          kResendStreamsPerKeying);
    if (!s && s.error() != Error::kBadState) {
      return s.error();
    }
  }
  return policy;
}

// add_to_keyings gives `ssrc` a stream in each keying of `policy`.
Status add_to_keyings(const Policy& policy, std::uint32_t ssrc, std::uint32_t roc = 0,
                      std::uint32_t srtcp_index = 0) {
  srtp::StreamOptions o = policy.options(0, roc);
  o.srtcp_index = srtcp_index;
  if (Status s = add_stream_to(*policy.rtp, ssrc, o); !s) {
    return s;
  }
  if (policy.rtcp != policy.rtp) {
    return add_stream_to(*policy.rtcp, ssrc, o);
  }
  return {};
}

// remove_from_keyings drops `ssrc`'s streams (their high-water marks stay with the keys).
Status remove_from_keyings(const Policy& policy, std::uint32_t ssrc) {
  Status result;
  for (Keying* k : {policy.rtp, policy.rtcp}) {
    if (k->session.has_stream(ssrc)) {
      if (Status s = k->session.remove_stream(ssrc); !s) {
        result = s;
      }
    }
    if (policy.rtcp == policy.rtp) {
      break;
    }
  }
  return result;
}

srtp_err_status_t add_stream(srtp_ctx_t_& ctx, const srtp_policy_t& p) {
  Result<std::unique_ptr<Policy>> made = policy_from(ctx, p);
  if (!made) {
    return status_of(made.error());
  }
  Policy* policy = made->get();
  switch (policy->type) {
    case ssrc_any_inbound:
    case ssrc_any_outbound: {
      Policy*& slot = policy->type == ssrc_any_inbound ? ctx.inbound : ctx.outbound;
      if (slot != nullptr) {
        return srtp_err_status_bad_param;  // one template per direction
      }
      slot = policy;
      break;
    }
    default: {
      if (ctx.streams.find(policy->ssrc) != nullptr) {
        return srtp_err_status_bad_param;
      }
      if (const Status s = add_to_keyings(*policy, policy->ssrc); !s) {
        return status_of(s.error() == Error::kBadState ? Error::kInvalidArgument : s.error());
      }
      if (ctx.streams.insert(policy->ssrc, policy) == nullptr) {
        static_cast<void>(remove_from_keyings(*policy, policy->ssrc));
        return srtp_err_status_alloc_fail;
      }
      break;
    }
  }
  ctx.policies.push_back(std::move(*made));
  return srtp_err_status_ok;
}

// move_stream puts `s` under `to`'s keys, its ROC and SRTCP count continued (srtp_update).
// Refused (nothing moved) when `from`'s keys have no room left for its marks: a stream left
// behind in a keying while the SSRC sends under another could later resume below what it sent
// there. A stream `to`'s keyings cannot take now is made by its next packet, as a template's.
Status move_stream(Stream& s, Policy& to) {
  const Policy& from = *s.policy;
  const Result<std::uint32_t> roc = from.rtp->session.roc(s.ssrc);
  const Result<std::uint32_t> srtcp = from.rtcp->session.srtcp_index(s.ssrc);
  if (Status removed = remove_from_keyings(from, s.ssrc); !removed) {
    return removed;
  }
  static_cast<void>(add_to_keyings(to, s.ssrc, roc ? *roc : 0, srtcp ? *srtcp : 0));
  s.policy = &to;
  s.key_index = 0;
  return {};
}

srtp_err_status_t update_stream(srtp_ctx_t_& ctx, const srtp_policy_t& p) {
  Policy* old = nullptr;
  const srtp_ssrc_type_t type = ssrc_type_of(p);
  if (type == ssrc_any_inbound) {
    old = ctx.inbound;
  } else if (type == ssrc_any_outbound) {
    old = ctx.outbound;
  } else if (type == ssrc_specific) {
    Stream* s = ctx.streams.find(p.ssrc.value);
    old = s != nullptr ? s->policy : nullptr;
  }
  if (old == nullptr) {
    return srtp_err_status_bad_param;  // libsrtp updates only what exists
  }
  Result<std::unique_ptr<Policy>> made = policy_from(ctx, p);
  if (!made) {
    return status_of(made.error());
  }
  Policy* policy = made->get();
  if (policy->rtp == old->rtp && policy->rtcp == old->rtcp) {
    return srtp_err_status_ok;  // the same keys: the streams go on as they are
  }
  ctx.policies.push_back(std::move(*made));  // first: a stream moved points at it
  if (type == ssrc_specific) {
    return move_stream(*ctx.streams.find(p.ssrc.value), *policy) ? srtp_err_status_ok
                                                                 : srtp_err_status_fail;
  }
  bool all_moved = true;
  ctx.streams.for_each_of(old,
                          [&](Stream& s) { all_moved = all_moved && move_stream(s, *policy); });
  if (!all_moved) {
    return srtp_err_status_fail;  // the template stays: its streams not moved still use it
  }
  (type == ssrc_any_inbound ? ctx.inbound : ctx.outbound) = policy;
  return srtp_err_status_ok;
}

// for_each_policy runs f over a policy list until one fails.
template <class F>
srtp_err_status_t for_each_policy(const srtp_policy_t* p, F&& f) {
  try {
    for (; p != nullptr; p = p->next) {
      if (const srtp_err_status_t s = f(*p); s != srtp_err_status_ok) {
        return s;
      }
    }
    return srtp_err_status_ok;
  } catch (const std::bad_alloc&) {
    return srtp_err_status_alloc_fail;
  }
}

uint32_t trailer_of(const Policy& p, bool rtcp, bool use_mki) {
  const srtp::ProfileInfo& info = p.rtp->session.profile();
  const std::size_t tag = rtcp ? p.rtcp->session.profile().rtcp_tag_len + 4 : info.rtp_tag_len;
  return static_cast<uint32_t>(tag + (use_mki ? p.mki_len : 0));
}

// trailer_length: the largest trailer any stream or template adds, as libsrtp reports it.
srtp_err_status_t trailer_length(srtp_t session, bool rtcp, uint32_t use_mki, uint32_t mki_index,
                                 uint32_t* length) {
  if (session == nullptr || length == nullptr || session->policies.empty()) {
    return srtp_err_status_bad_param;
  }
  // A stream without key `mki_index` adds nothing (libsrtp: 0 when none has it). Unlike
  // libsrtp 2.5, the MKI's own bytes are counted: the length sizes the caller's buffer.
  *length = 0;
  for (const auto& p : session->policies) {
    if (use_mki == 0 || mki_index < p->key_count) {
      *length = std::max(*length, trailer_of(*p, rtcp, use_mki != 0));
    }
  }
  return srtp_err_status_ok;
}

}  // namespace
}  // namespace wireseal::compat

using namespace wireseal::compat;  // NOLINT(google-build-using-namespace): the C entry points

extern "C" {

srtp_err_status_t srtp_create(srtp_t* session, const srtp_policy_t* policy) {
  if (session == nullptr) {
    return srtp_err_status_bad_param;
  }
  *session = nullptr;
  auto* ctx = new (std::nothrow) srtp_ctx_t_;
  if (ctx == nullptr) {
    return srtp_err_status_alloc_fail;
  }
  const srtp_err_status_t s =
      for_each_policy(policy, [&](const srtp_policy_t& p) { return add_stream(*ctx, p); });
  if (s != srtp_err_status_ok) {
    delete ctx;
    return s;
  }
  *session = ctx;
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_dealloc(srtp_t session) {
  if (session == nullptr) {
    return srtp_err_status_bad_param;
  }
  delete session;
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_add_stream(srtp_t session, const srtp_policy_t* policy) {
  if (session == nullptr || policy == nullptr) {
    return srtp_err_status_bad_param;
  }
  try {
    return add_stream(*session, *policy);
  } catch (const std::bad_alloc&) {
    return srtp_err_status_alloc_fail;
  }
}

srtp_err_status_t srtp_update(srtp_t session, const srtp_policy_t* policy) {
  if (session == nullptr || policy == nullptr) {
    return srtp_err_status_bad_param;
  }
  return for_each_policy(policy,
                         [&](const srtp_policy_t& p) { return update_stream(*session, p); });
}

srtp_err_status_t srtp_update_stream(srtp_t session, const srtp_policy_t* policy) {
  if (session == nullptr || policy == nullptr) {
    return srtp_err_status_bad_param;
  }
  try {
    return update_stream(*session, *policy);
  } catch (const std::bad_alloc&) {
    return srtp_err_status_alloc_fail;
  }
}

// The SSRC comes in network byte order here (libsrtp's contract; the ROC calls take host order).
srtp_err_status_t srtp_remove_stream(srtp_t session, unsigned int ssrc_network_order) {
  if (session == nullptr) {
    return srtp_err_status_bad_param;
  }
  const std::uint32_t ssrc = ntohl(ssrc_network_order);
  Stream* s = session->streams.find(ssrc);
  if (s == nullptr) {
    return srtp_err_status_no_ctx;
  }
  // Refused only when the keys keep too many removed senders' marks: re-key instead.
  if (!remove_from_keyings(*s->policy, ssrc)) {
    return srtp_err_status_fail;
  }
  session->streams.erase(s);
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_set_stream_roc(srtp_t session, uint32_t ssrc, uint32_t roc) {
  Stream* s = session != nullptr ? session->streams.find(ssrc) : nullptr;
  if (s == nullptr) {
    return srtp_err_status_bad_param;
  }
  // As in libsrtp, the ROC is pending until the stream's next packet (0 means none).
  s->pending_roc = roc;
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_get_stream_roc(srtp_t session, uint32_t ssrc, uint32_t* roc) {
  Stream* s = session != nullptr ? session->streams.find(ssrc) : nullptr;
  if (s == nullptr || roc == nullptr) {
    return srtp_err_status_bad_param;
  }
  const wireseal::Result<std::uint32_t> now = s->policy->rtp->session.roc(ssrc);
  *roc = now ? *now : 0;
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_get_protect_trailer_length(srtp_t session, uint32_t use_mki,
                                                  uint32_t mki_index, uint32_t* length) {
  return trailer_length(session, false, use_mki, mki_index, length);
}

srtp_err_status_t srtp_get_protect_rtcp_trailer_length(srtp_t session, uint32_t use_mki,
                                                       uint32_t mki_index, uint32_t* length) {
  return trailer_length(session, true, use_mki, mki_index, length);
}

void srtp_set_user_data(srtp_t ctx, void* data) {
  if (ctx != nullptr) {
    ctx->user_data = data;
  }
}

void* srtp_get_user_data(srtp_t ctx) { return ctx != nullptr ? ctx->user_data : nullptr; }

}  // extern "C"
