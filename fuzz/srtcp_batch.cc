// Fuzz target: Session::protect_rtcp_batch / unprotect_rtcp_batch against the single-packet
// calls. Four sessions built alike (srtp_fuzz_setup.h): a batch sender and its single twin, a
// batch receiver and its single twin; each pair must agree job by job (status, length, every
// byte of the buffer) and on drop counters, streams and SRTCP indices.
//
// After the set-up, a script of operations, each one byte:
//   op % 3 == 0..1  a batch: count below(20) + 1, then per packet: buffer u8 (bit 0 one byte
//                   short, bit 1 length past the buffer), the RTCP packet. The protected jobs
//                   go to the receivers, each tweaked by a u8: bit 0 drop, bit 1 send twice,
//                   bit 2 flip byte below(len) by u8 | 1, bit 3 replace by a raw packet
//   op % 3 == 2     add_stream (options from the input), or remove_stream (flag u8)
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
      const Result<std::uint32_t> x = t.batch.srtcp_index(ssrc);
      const Result<std::uint32_t> y = t.single.srtcp_index(ssrc);
      require(x.has_value() == y.has_value() && (!x || *x == *y),
              "batch and single SRTCP indices agree");
    }
  };
}

void single_protect(srtp::Session& s, srtp::PacketJob& job) {
  const Result<std::size_t> r = s.protect_rtcp(job.buffer, job.length);
  fuzz::set_result(job, r, r ? *r : 0);
}

void single_unprotect(srtp::Session& s, srtp::PacketJob& job) {
  if (job.length > job.buffer.size()) {  // what the batch documents for such a job
    job.status = Error::kInvalidArgument;
    return;
  }
  const Result<std::span<std::uint8_t>> r = s.unprotect_rtcp(job.buffer.first(job.length));
  fuzz::set_result(job, r, r ? r->size() : 0);
}

Packets read_packets(fuzz::FuzzInput& in, const fuzz::SrtpSetup& setup, const srtp::Session& s) {
  Packets p;
  const std::size_t count = 1 + in.below(20);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t mode = in.u8();
    std::vector<std::uint8_t> rtcp = fuzz::build_rtcp(in, setup);
    const std::size_t len = rtcp.size();
    const std::size_t want = s.protected_rtcp_size(len);
    rtcp.resize((mode & 1) != 0 ? want - 1 : want);
    p.add(std::move(rtcp), (mode & 2) != 0 ? want + 1 : len);
  }
  return p;
}

Packets tweak(const Packets& sent, fuzz::FuzzInput& in) {
  Packets out;
  for (std::size_t i = 0; i < sent.jobs.size(); ++i) {
    if (!sent.jobs[i].status) {
      continue;
    }
    std::vector<std::uint8_t> bytes = sent.buffers[i];
    std::size_t len = sent.jobs[i].length;
    const std::uint8_t t = in.u8();
    if ((t & 8) != 0) {
      bytes = in.vector(in.u16());
      len = bytes.size();
    }
    if ((t & 4) != 0 && len != 0) {
      bytes[in.below(len)] ^= static_cast<std::uint8_t>(in.u8() | 1);
    }
    if ((t & 1) == 0) {
      out.add(bytes, len);
    }
    if ((t & 2) != 0) {
      out.add(bytes, len);
    }
  }
  return out;
}

void batch(Twins& senders, Twins& receivers, const fuzz::SrtpSetup& setup, fuzz::FuzzInput& in) {
  Packets p = read_packets(in, setup, senders.batch);
  fuzz::run_twins(
      senders, p,
      [](srtp::Session& s, std::span<srtp::PacketJob> jobs) { s.protect_rtcp_batch(jobs); },
      single_protect, agree_per_stream(setup));
  Packets received = tweak(p, in);
  fuzz::run_twins(
      receivers, received,
      [](srtp::Session& s, std::span<srtp::PacketJob> jobs) { s.unprotect_rtcp_batch(jobs); },
      single_unprotect, agree_per_stream(setup));
}

void stream_op(Twins& senders, Twins& receivers, const fuzz::SrtpSetup& setup,
               fuzz::FuzzInput& in) {
  srtp::Session* all[] = {&senders.batch, &senders.single, &receivers.batch, &receivers.single};
  int results[4];
  if ((in.u8() & 1) == 0) {
    const fuzz::StreamOptionsInput o = fuzz::read_stream_options(in, setup);
    for (std::size_t i = 0; i < 4; ++i) {
      results[i] = code(all[i]->add_stream(o.ssrc, o.options));
    }
  } else {
    const std::uint32_t ssrc = setup.ssrcs[in.below(fuzz::kSsrcPool)];
    for (std::size_t i = 0; i < 4; ++i) {
      results[i] = code(all[i]->remove_stream(ssrc));
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
  while (!in.empty()) {
    if (in.u8() % 3u < 2) {
      batch(senders, receivers, setup, in);
    } else {
      stream_op(senders, receivers, setup, in);
    }
  }
  return 0;
}
