// Fuzz target: SRTP protect then unprotect. The input chooses the session (profile, MKI and
// master keys, stream-table size, replay window, RFC 6904 encrypted IDs, RFC 9335 cryptex:
// srtp_fuzz_setup.h), then a script of operations, each one byte:
//
//   op % 8 < 4   an RTP packet (CSRCs, header extension, payload from the input), protected
//                in place (odd op) or out of place (even) by the sender
//   op % 8 == 4  add_stream with options from the input, on every session
//   op % 8 == 5  remove_stream, on every session
//   op % 8 == 6  set_roc, on every session (the sender refuses exactly the ROCs with no index
//                left above the highest it protected)
//   op % 8 == 7  set_active_key on the sender
//
// Protect may fail only for the reasons its contract names, must produce protected_rtp_size
// bytes, and a protected packet must unprotect on both receivers — one out of place, one in
// place, each with its own state — to the original packet (plus the empty extension cryptex
// adds to a CSRC-only packet), with every session agreeing on the stream's ROC.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "fuzz_target.h"
#include "srtp_fuzz_setup.h"
#include "wireseal/srtp/packet_index.h"
#include "wireseal/srtp/rtp_header.h"

namespace {

using namespace wireseal;
using fuzz::require;

struct Sessions {
  srtp::Session sender;
  srtp::Session out_of_place;
  srtp::Session in_place;
  // Every SRTP index the sender protected, per SSRC: the record survives set_roc and
  // remove_stream, as the sender's own marks must.
  std::map<std::uint32_t, std::set<std::uint64_t>> sent;
  // The highest index of the sender's stream since it was created or its ROC was set, from
  // which protect estimates a packet's index (RFC 3711 §3.3.1); absent: no packet yet.
  std::map<std::uint32_t, std::uint64_t> window_highest;
};

// refuses_set_roc: whether the sender must refuse set_roc(ssrc, roc) because no index under
// `roc` lies above the highest it protected (set_roc's contract in session.h).
bool refuses_set_roc(const Sessions& s, std::uint32_t ssrc, std::uint32_t roc) {
  const auto it = s.sent.find(ssrc);
  return it != s.sent.end() && srtp::packet_index(roc, UINT16_MAX) <= *it->second.rbegin();
}

// note_protected records a protected packet's index: the sender's estimate from the highest
// index since the stream (or its ROC) started, or, for the first packet, the ROC it started at,
// which roc() then reports. Protect may fill a gap below the highest index, but never twice.
void note_protected(Sessions& s, std::uint32_t ssrc, std::uint16_t seq) {
  const Result<std::uint32_t> roc = s.sender.roc(ssrc);
  require(roc.has_value(), "a stream that protected a packet has a ROC");
  const auto window = s.window_highest.find(ssrc);
  std::uint64_t index = srtp::packet_index(*roc, seq);
  if (window != s.window_highest.end()) {
    const std::optional<std::uint64_t> estimate = srtp::estimate_packet_index(window->second, seq);
    require(estimate.has_value(), "protect succeeds only with an index");
    index = *estimate;
  }
  std::uint64_t& highest = s.window_highest[ssrc];
  highest = std::max(highest, index);
  require(srtp::roc_of(highest) == *roc, "roc() is the highest index's ROC");
  require(s.sent[ssrc].insert(index).second, "protect never uses an index twice");
}

bool expected_protect_error(Error e) {
  return e == Error::kMalformed || e == Error::kWrongContext || e == Error::kTableFull ||
         e == Error::kInvalidArgument || e == Error::kReplay || e == Error::kReplayOld ||
         e == Error::kSequenceExhausted;
}

// with_cryptex_extension is `rtp` with the empty extension header RFC 9335 §5.1 inserts after
// the CSRCs of a packet that has CSRCs but no extension.
std::vector<std::uint8_t> with_cryptex_extension(const std::vector<std::uint8_t>& rtp,
                                                 std::size_t csrcs) {
  std::vector<std::uint8_t> p = rtp;
  const std::size_t at = srtp::kRtpFixedHeaderSize + 4 * csrcs;
  const std::uint8_t empty[] = {0xbe, 0xde, 0, 0};
  p.insert(p.begin() + static_cast<std::ptrdiff_t>(at), std::begin(empty), std::end(empty));
  p[0] = static_cast<std::uint8_t>(p[0] | 0x10);
  return p;
}

Result<std::size_t> protect(srtp::Session& s, const std::vector<std::uint8_t>& rtp, bool in_place,
                            std::vector<std::uint8_t>& out) {
  const std::size_t want = s.protected_rtp_size(rtp);
  if (in_place) {
    out = rtp;
    out.resize(std::max(want, rtp.size()));
    return s.protect_rtp(out, rtp.size());
  }
  out.assign(want, 0);
  return s.protect_rtp(std::span<const std::uint8_t>(rtp), out);
}

void require_same_roc(const Sessions& s, std::uint32_t ssrc) {
  const Result<std::uint32_t> a = s.sender.roc(ssrc);
  const Result<std::uint32_t> b = s.out_of_place.roc(ssrc);
  const Result<std::uint32_t> c = s.in_place.roc(ssrc);
  require(a.has_value() && b.has_value() && c.has_value() && *a == *b && *a == *c,
          "sender and receivers agree on the ROC");
}

// follow_sender gives a receiver that has no stream for `ssrc` yet the sender's ROC: a sender
// stream re-created after removal continues at its old ROC (it never rewinds), which a real
// receiver learns by signalling; here the receivers are told directly.
void follow_sender(Sessions& s, const fuzz::SrtpSetup& setup, std::uint32_t ssrc) {
  const Result<std::uint32_t> roc = s.sender.roc(ssrc);
  if (!roc || *roc == setup.roc) {
    return;
  }
  srtp::StreamOptions o;
  o.roc = *roc;
  o.key_index = setup.key_index;
  o.cryptex = setup.cryptex;
  o.encrypted_extension_ids = setup.encrypted_ids;
  for (srtp::Session* r : {&s.out_of_place, &s.in_place}) {
    if (!r->has_stream(ssrc)) {
      require(static_cast<bool>(r->add_stream(ssrc, o)), "a receiver can follow the sender");
    }
  }
}

void packet(Sessions& s, const fuzz::SrtpSetup& setup, fuzz::RtpBuilder& builder,
            fuzz::FuzzInput& in, bool in_place) {
  const std::vector<std::uint8_t> rtp = builder.build(in);
  const std::size_t want = s.sender.protected_rtp_size(rtp);
  std::vector<std::uint8_t> buf;
  const Result<std::size_t> r = protect(s.sender, rtp, in_place, buf);
  if (!r) {
    require(expected_protect_error(r.error()), "protect fails only for documented reasons");
    return;
  }
  require(*r == want, "protect returns protected_rtp_size");
  buf.resize(*r);
  const Result<srtp::RtpHeader> h = srtp::parse_rtp_header(rtp);
  require(h.has_value(), "a protected packet's header parses");
  note_protected(s, h->ssrc, h->sequence);
  const std::size_t trailer = s.sender.profile().rtp_tag_len + setup.mki_len;
  const bool grew = *r - rtp.size() - trailer == srtp::kRtpExtensionPreambleSize;
  const std::vector<std::uint8_t> expected =
      grew ? with_cryptex_extension(rtp, h->csrc_count) : rtp;
  follow_sender(s, setup, h->ssrc);

  std::vector<std::uint8_t> out(buf.size());
  const Result<std::span<std::uint8_t>> a =
      s.out_of_place.unprotect_rtp(std::span<const std::uint8_t>(buf), out);
  require(a && std::equal(a->begin(), a->end(), expected.begin(), expected.end()),
          "out-of-place unprotect returns the original packet");
  const Result<std::span<std::uint8_t>> b = s.in_place.unprotect_rtp(std::span<std::uint8_t>(buf));
  require(b && std::equal(b->begin(), b->end(), expected.begin(), expected.end()),
          "in-place unprotect returns the original packet");
  require_same_roc(s, h->ssrc);
}

void require_same(const Status& a, const Status& b, const Status& c, const char* what) {
  const auto code = [](const Status& x) { return x ? 0 : static_cast<int>(x.error()); };
  require(code(a) == code(b) && code(a) == code(c), what);
}

void stream_op(Sessions& s, const fuzz::SrtpSetup& setup, fuzz::FuzzInput& in, unsigned op) {
  if (op == 4) {
    const fuzz::StreamOptionsInput o = fuzz::read_stream_options(in, setup);
    const Status added = s.sender.add_stream(o.ssrc, o.options);
    if (added) {
      s.window_highest.erase(o.ssrc);
    }
    require_same(added, s.out_of_place.add_stream(o.ssrc, o.options),
                 s.in_place.add_stream(o.ssrc, o.options), "add_stream agrees");
    // A sender stream re-added after removal starts at least at its old ROC.
    const Result<std::uint32_t> roc = s.sender.roc(o.ssrc);
    if (added && roc && *roc != o.options.roc) {
      require(s.out_of_place.set_roc(o.ssrc, *roc) && s.in_place.set_roc(o.ssrc, *roc),
              "receivers follow a re-added sender's ROC");
    }
    return;
  }
  const std::uint32_t ssrc = setup.ssrcs[in.below(fuzz::kSsrcPool)];
  if (op == 5) {
    const Status removed = s.sender.remove_stream(ssrc);
    if (removed) {
      s.window_highest.erase(ssrc);
    }
    require_same(removed, s.out_of_place.remove_stream(ssrc), s.in_place.remove_stream(ssrc),
                 "remove_stream agrees");
  } else if (op == 6) {
    const std::uint32_t roc = in.u32();
    const Status sent = s.sender.set_roc(ssrc, roc);
    const bool refused = !sent && sent.error() == Error::kBadState;
    require(refused == (s.sender.has_stream(ssrc) && refuses_set_roc(s, ssrc, roc)),
            "set_roc refuses exactly the ROCs with no index above those protected");
    if (refused) {
      return;  // the receivers keep their ROC
    }
    if (sent) {
      s.window_highest.erase(ssrc);
    }
    require_same(sent, s.out_of_place.set_roc(ssrc, roc), s.in_place.set_roc(ssrc, roc),
                 "set_roc agrees");
  } else {
    const std::size_t key = in.below(setup.key_count + 1);
    const Status st = s.sender.set_active_key(ssrc, key);
    require(st || !s.sender.has_stream(ssrc) || key >= setup.key_count,
            "set_active_key fails only for an unknown stream or key");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::SrtpSetup setup = fuzz::read_srtp_setup(in);
  Sessions s{
      fuzz::make_session(setup), fuzz::make_session(setup), fuzz::make_session(setup), {}, {}};
  fuzz::RtpBuilder builder(setup);
  while (!in.empty()) {
    const unsigned op = in.u8() % 8u;
    if (op < 4) {
      packet(s, setup, builder, in, (op & 1) != 0);
    } else {
      stream_op(s, setup, in, op);
    }
    require(s.sender.stream_count() == s.out_of_place.stream_count() &&
                s.sender.stream_count() == s.in_place.stream_count(),
            "sessions hold the same streams");
  }
  const srtp::DropCounters& d = s.out_of_place.drop_counters();
  require(d.auth + d.replay + d.malformed + d.wrong_context == 0, "receivers drop nothing");
  return 0;
}
