// Fuzz target: SRTCP protect then unprotect. The input chooses the session
// (srtp_fuzz_setup.h), then a script of operations, each one byte:
//
//   op % 4 < 2   an RTCP packet (header, sender SSRC, body from the input), protected in place
//                (odd op) or out of place (even) by the sender
//   op % 4 == 2  add_stream with options from the input, on every session
//   op % 4 == 3  remove_stream, on every session
//
// Protect may fail only for the reasons its contract names and must produce
// protected_rtcp_size bytes carrying the stream's next SRTCP index (E set unless NULL); the
// packet must unprotect on both receivers — out of place and in place, each with its own
// state — to the original RTCP packet.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "fuzz_target.h"
#include "srtp_fuzz_setup.h"

namespace {

using namespace wireseal;
using fuzz::require;

struct Sessions {
  srtp::Session sender;
  srtp::Session out_of_place;
  srtp::Session in_place;
  std::map<std::uint32_t, std::uint32_t> sent_next;  // per SSRC: the SRTCP index after its last
};

std::uint32_t load_be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

// index_word reads E|index from a protected packet (RFC 3711 §3.4, RFC 7714 §9).
std::uint32_t index_word(const srtp::Session& s, const std::vector<std::uint8_t>& protected_packet,
                         std::size_t rtcp_len) {
  const bool aead = s.profile().cipher == srtp::CipherKind::kAesGcm;
  return load_be32(protected_packet.data() + rtcp_len + (aead ? s.profile().rtcp_tag_len : 0));
}

Result<std::size_t> protect(srtp::Session& s, const std::vector<std::uint8_t>& rtcp, bool in_place,
                            std::vector<std::uint8_t>& out) {
  out.assign(s.protected_rtcp_size(rtcp.size()), 0);
  if (in_place) {
    std::copy(rtcp.begin(), rtcp.end(), out.begin());
    return s.protect_rtcp(out, rtcp.size());
  }
  return s.protect_rtcp(std::span<const std::uint8_t>(rtcp), out);
}

void packet(Sessions& s, const fuzz::SrtpSetup& setup, fuzz::FuzzInput& in, bool in_place) {
  const std::vector<std::uint8_t> rtcp = fuzz::build_rtcp(in, setup);
  const std::uint32_t ssrc = load_be32(rtcp.data() + 4);
  // The index protect must use: the stream's next one, or, for a stream removed and not yet
  // re-created, the one after the last its SSRC sent (removal never rewinds a sender).
  const Result<std::uint32_t> index = s.sender.srtcp_index(ssrc);
  const auto sent = s.sent_next.find(ssrc);
  std::vector<std::uint8_t> buf;
  const Result<std::size_t> r = protect(s.sender, rtcp, in_place, buf);
  if (!r) {
    const Error e = r.error();
    require(e == Error::kMalformed || e == Error::kWrongContext || e == Error::kTableFull ||
                e == Error::kSequenceExhausted,
            "protect_rtcp fails only for documented reasons");
    return;
  }
  require(*r == buf.size(), "protect_rtcp returns protected_rtcp_size");
  // A new SSRC starts at index 1 (what libsrtp sends first).
  const std::uint32_t want_index = index ? *index : sent != s.sent_next.end() ? sent->second : 1;
  s.sent_next[ssrc] = want_index + 1;
  const std::uint32_t e_flag =
      s.sender.profile().cipher == srtp::CipherKind::kNull ? 0 : 0x80000000u;
  require(index_word(s.sender, buf, rtcp.size()) == (e_flag | want_index),
          "the packet carries E and the stream's next SRTCP index");

  std::vector<std::uint8_t> out(buf.size());
  const Result<std::span<std::uint8_t>> a =
      s.out_of_place.unprotect_rtcp(std::span<const std::uint8_t>(buf), out);
  require(a && std::equal(a->begin(), a->end(), rtcp.begin(), rtcp.end()),
          "out-of-place unprotect_rtcp returns the original packet");
  const Result<std::span<std::uint8_t>> b = s.in_place.unprotect_rtcp(std::span<std::uint8_t>(buf));
  require(b && std::equal(b->begin(), b->end(), rtcp.begin(), rtcp.end()),
          "in-place unprotect_rtcp returns the original packet");
}

int code(const Status& s) { return s ? 0 : static_cast<int>(s.error()); }

void stream_op(Sessions& s, const fuzz::SrtpSetup& setup, fuzz::FuzzInput& in, unsigned op) {
  if (op == 2) {
    const fuzz::StreamOptionsInput o = fuzz::read_stream_options(in, setup);
    const int a = code(s.sender.add_stream(o.ssrc, o.options));
    require(a == code(s.out_of_place.add_stream(o.ssrc, o.options)) &&
                a == code(s.in_place.add_stream(o.ssrc, o.options)),
            "add_stream agrees");
    return;
  }
  const std::uint32_t ssrc = setup.ssrcs[in.below(fuzz::kSsrcPool)];
  const int a = code(s.sender.remove_stream(ssrc));
  require(
      a == code(s.out_of_place.remove_stream(ssrc)) && a == code(s.in_place.remove_stream(ssrc)),
      "remove_stream agrees");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::SrtpSetup setup = fuzz::read_srtp_setup(in);
  Sessions s{fuzz::make_session(setup), fuzz::make_session(setup), fuzz::make_session(setup), {}};
  while (!in.empty()) {
    const unsigned op = in.u8() % 4u;
    if (op < 2) {
      packet(s, setup, in, (op & 1) != 0);
    } else {
      stream_op(s, setup, in, op);
    }
  }
  const srtp::DropCounters& d = s.in_place.drop_counters();
  require(d.auth + d.replay + d.malformed + d.wrong_context == 0, "receivers drop nothing");
  return 0;
}
