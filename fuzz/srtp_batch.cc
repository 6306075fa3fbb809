// Fuzz target: Session::protect_rtp_batch / unprotect_rtp_batch against the single-packet
// calls. Four sessions built alike (srtp_fuzz_setup.h): a batch sender and its single twin, a
// batch receiver and its single twin. Each twin pair must agree job by job — status, length,
// every byte of the buffer — and on drop counters, streams and ROCs.
//
// After the set-up, a script of operations, each one byte:
//   op % 4 == 0..1  a batch: count below(20) + 1, then per packet: buffer u8 (bit 0 one byte
//                   short, bit 1 length past the buffer), the RTP packet. The protected jobs
//                   then go to the receivers, each tweaked by a u8: bit 0 drop, bit 1 send
//                   twice, bit 2 flip byte below(len) by u8 | 1, bit 3 swap with the next,
//                   bit 4 replace by a raw packet (u16 length, bytes)
//   op % 4 == 2     add_stream (options from the input) on every session
//   op % 4 == 3     set_roc on every session, or remove_stream (flag u8)
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "fuzz_target.h"
#include "srtp_fuzz_setup.h"
#include "srtp_twins.h"

namespace {

using namespace wireseal;
using fuzz::code;
using fuzz::Packets;
using fuzz::require;
using fuzz::Twins;

// agree_per_stream requires the twins to agree on every SSRC of the pool.
auto agree_per_stream(const fuzz::SrtpSetup& setup) {
  return [&setup](const Twins& t) {
    for (const std::uint32_t ssrc : setup.ssrcs) {
      const Result<std::uint32_t> x = t.batch.roc(ssrc);
      const Result<std::uint32_t> y = t.single.roc(ssrc);
      require(x.has_value() == y.has_value() && (!x || *x == *y), "batch and single ROCs agree");
    }
  };
}

void single_protect(srtp::Session& s, srtp::PacketJob& job) {
  const Result<std::size_t> r = s.protect_rtp(job.buffer, job.length);
  fuzz::set_result(job, r, r ? *r : 0);
}

void single_unprotect(srtp::Session& s, srtp::PacketJob& job) {
  if (job.length > job.buffer.size()) {  // what the batch documents for such a job
    job.status = Error::kInvalidArgument;
    return;
  }
  const Result<std::span<std::uint8_t>> r = s.unprotect_rtp(job.buffer.first(job.length));
  fuzz::set_result(job, r, r ? r->size() : 0);
}

Packets read_packets(fuzz::FuzzInput& in, fuzz::RtpBuilder& builder, const srtp::Session& s) {
  Packets p;
  const std::size_t count = 1 + in.below(20);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t mode = in.u8();
    std::vector<std::uint8_t> rtp = builder.build(in);
    const std::size_t len = rtp.size();
    const std::size_t want = std::max(s.protected_rtp_size(rtp), len);
    rtp.resize((mode & 1) != 0 && want > len ? want - 1 : want);
    p.add(std::move(rtp), (mode & 2) != 0 ? want + 1 : len);
  }
  return p;
}

// tweak turns the protected batch into what the receivers get: dropped, duplicated,
// corrupted, reordered and foreign packets.
Packets tweak(const Packets& sent, fuzz::FuzzInput& in) {
  Packets out;
  std::vector<std::pair<std::vector<std::uint8_t>, std::size_t>> list;
  for (std::size_t i = 0; i < sent.jobs.size(); ++i) {
    if (sent.jobs[i].status) {
      list.emplace_back(sent.buffers[i], sent.jobs[i].length);
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::uint8_t t = in.u8();
    auto& [bytes, len] = list[i];
    if ((t & 16) != 0) {
      bytes = in.vector(in.u16());
      len = bytes.size();
    }
    if ((t & 4) != 0 && len != 0) {
      bytes[in.below(len)] ^= static_cast<std::uint8_t>(in.u8() | 1);
    }
    if ((t & 8) != 0 && i + 1 < list.size()) {
      std::swap(list[i], list[i + 1]);
    }
    if ((t & 1) == 0) {
      out.add(list[i].first, list[i].second);
    }
    if ((t & 2) != 0) {
      out.add(list[i].first, list[i].second);
    }
  }
  return out;
}

void batch(Twins& senders, Twins& receivers, const fuzz::SrtpSetup& setup,
           fuzz::RtpBuilder& builder, fuzz::FuzzInput& in) {
  Packets p = read_packets(in, builder, senders.batch);
  fuzz::run_twins(
      senders, p,
      [](srtp::Session& s, std::span<srtp::PacketJob> jobs) { s.protect_rtp_batch(jobs); },
      single_protect, agree_per_stream(setup));
  Packets received = tweak(p, in);
  fuzz::run_twins(
      receivers, received,
      [](srtp::Session& s, std::span<srtp::PacketJob> jobs) { s.unprotect_rtp_batch(jobs); },
      single_unprotect, agree_per_stream(setup));
}

void stream_op(Twins& senders, Twins& receivers, const fuzz::SrtpSetup& setup, fuzz::FuzzInput& in,
               unsigned op) {
  srtp::Session* all[] = {&senders.batch, &senders.single, &receivers.batch, &receivers.single};
  int results[4];
  if (op == 2) {
    const fuzz::StreamOptionsInput o = fuzz::read_stream_options(in, setup);
    for (std::size_t i = 0; i < 4; ++i) {
      results[i] = code(all[i]->add_stream(o.ssrc, o.options));
    }
  } else {
    const std::uint32_t ssrc = setup.ssrcs[in.below(fuzz::kSsrcPool)];
    const bool remove = (in.u8() & 1) != 0;
    const std::uint32_t roc = remove ? 0 : in.u32();
    for (std::size_t i = 0; i < 4; ++i) {
      results[i] = code(remove ? all[i]->remove_stream(ssrc) : all[i]->set_roc(ssrc, roc));
    }
  }
  // Twins agree; senders and receivers need not (a dropped first packet leaves the receivers
  // without a stream the senders have).
  require(results[0] == results[1] && results[2] == results[3], "stream operations agree on twins");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::SrtpSetup setup = fuzz::read_srtp_setup(in);
  Twins senders{fuzz::make_session(setup), fuzz::make_session(setup)};
  Twins receivers{fuzz::make_session(setup), fuzz::make_session(setup)};
  fuzz::RtpBuilder builder(setup);
  while (!in.empty()) {
    const unsigned op = in.u8() % 4u;
    if (op < 2) {
      batch(senders, receivers, setup, builder, in);
    } else {
      stream_op(senders, receivers, setup, in, op);
    }
  }
  return 0;
}
