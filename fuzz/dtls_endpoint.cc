// Fuzz target: a dtls::Endpoint, client or server, fed arbitrary datagrams and timer ticks
// (dtls_endpoint.h has the format). Must never crash, read or write out of bounds, loop in
// poll_output, send a datagram over the MTU or hold more memory than its bounds allow.
#include "dtls_endpoint.h"

#include <array>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"

namespace {

using namespace wireseal;

// Configurations are made once per process (the server's certificate is slow to make).
struct Configs {
  fuzz::CountingRandom random;
  std::array<std::shared_ptr<dtls::EndpointConfig>, fuzz::kEndpointSelectors> by_selector;
  std::array<dtls::Session, 2> saved{fuzz::fuzz_saved_session(false),
                                     fuzz::fuzz_saved_session(true)};
  Configs() {
    for (std::uint8_t s = 0; s < fuzz::kEndpointSelectors; ++s) {
      by_selector[s] = fuzz::fuzz_endpoint_config(s, random);
    }
  }
};

void drain(dtls::Endpoint& endpoint, std::span<std::uint8_t> buffer) {
  for (int i = 0; i < 256; ++i) {
    const Result<dtls::Output> out = endpoint.poll_output(buffer);
    fuzz::require(static_cast<bool>(out), "poll_output refused a buffer of max_datagram_size()");
    if (out->kind == dtls::Output::Kind::kDatagram) {
      fuzz::require(out->size <= endpoint.max_datagram_size(), "datagram over the MTU");
    }
    if (out->kind == dtls::Output::Kind::kTimeout || out->kind == dtls::Output::Kind::kIdle) {
      return;
    }
  }
  fuzz::require(false, "poll_output never said wait");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Configs configs;
  fuzz::FuzzInput in(data, size);
  const std::uint8_t selector = in.u8() % fuzz::kEndpointSelectors;
  configs.random = {};
  dtls::Endpoint endpoint(configs.by_selector[selector]);
  if ((selector & (fuzz::kEndpointResume | fuzz::kEndpointServer)) == fuzz::kEndpointResume) {
    (void)endpoint.offer_session(configs.saved[(selector & fuzz::kEndpointPsk) != 0 ? 1 : 0]);
  }
  std::array<std::uint8_t, 600> buffer{};
  dtls::Instant now{std::chrono::seconds(100)};
  (void)endpoint.start(now);
  drain(endpoint, buffer);
  std::vector<std::uint8_t> datagram;
  while (!in.empty()) {
    const std::span<const std::uint8_t> next = in.bytes(in.u16());
    datagram.assign(next.begin(), next.end());
    if (datagram.empty()) {
      now += std::chrono::milliseconds(1500);
      (void)endpoint.handle_timeout(now);
    } else {
      (void)endpoint.handle_datagram(now, datagram);
    }
    drain(endpoint, buffer);
    // Reassembly storage, the log, the flight and the peer's chain are each bounded.
    fuzz::require(endpoint.memory_used() < 256 * 1024, "association memory over its bound");
  }
  return 0;
}
