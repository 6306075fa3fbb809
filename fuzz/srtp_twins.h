#pragma once
// Shared by the SRTP and SRTCP batch targets: a batch session and its single-packet twin, the
// packet buffers of one batch, and the comparison of the two paths' results.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fuzz_target.h"
#include "wireseal/srtp/session.h"

namespace wireseal::fuzz {

struct Twins {
  srtp::Session batch;
  srtp::Session single;
};

// Packets is a batch's buffers, owned here, with the PacketJob views into them.
struct Packets {
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<srtp::PacketJob> jobs;

  void add(std::vector<std::uint8_t> buffer, std::size_t length) {
    buffers.push_back(std::move(buffer));
    jobs.push_back({{}, length, {}});
  }
  // bind points the jobs at the buffers (after the last add: the vector may have moved).
  void bind() {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      jobs[i].buffer = buffers[i];
    }
  }
};

inline int code(const Status& s) { return s ? 0 : static_cast<int>(s.error()); }

// require_same_counters_and_streams compares what both twins expose whatever the protocol.
inline void require_same_counters_and_streams(const Twins& t) {
  const srtp::DropCounters& a = t.batch.drop_counters();
  const srtp::DropCounters& b = t.single.drop_counters();
  require(a.auth == b.auth && a.replay == b.replay && a.malformed == b.malformed &&
              a.wrong_context == b.wrong_context,
          "batch and single drop counters agree");
  require(t.batch.stream_count() == t.single.stream_count(),
          "batch and single hold the same streams");
}

// set_result stores a single-path result in `job` the way the batch calls do.
template <class R>
void set_result(srtp::PacketJob& job, const R& r, std::size_t length) {
  job.status = r ? Status{} : Status{r.error()};
  if (r) {
    job.length = length;
  }
}

// run_twins runs `p` through `batch_call` on t.batch and a copy one packet at a time through
// `single_call` on t.single, requires identical results, then `agree(t)`.
template <class Batch, class Single, class Agree>
void run_twins(Twins& t, Packets& p, Batch batch_call, Single single_call, Agree agree) {
  Packets copy = p;
  p.bind();
  copy.bind();
  batch_call(t.batch, p.jobs);
  for (srtp::PacketJob& job : copy.jobs) {
    single_call(t.single, job);
  }
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    require(code(p.jobs[i].status) == code(copy.jobs[i].status), "batch and single status agree");
    require(!p.jobs[i].status || p.jobs[i].length == copy.jobs[i].length,
            "batch and single length agree");
    require(p.buffers[i] == copy.buffers[i], "batch and single write the same bytes");
  }
  require_same_counters_and_streams(t);
  agree(t);
}

}  // namespace wireseal::fuzz
