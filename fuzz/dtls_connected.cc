// Fuzz target: an established DTLS association, client or server, fed datagrams from a third
// party who knows the 5-tuple but no keys. Input: one selector byte (bit 0: the server is fed,
// else the client; bit 1: an ECDSA certificate instead of a PSK), then datagrams, each a
// 2-byte big-endian length and that many bytes; an empty one means "1.5 s pass". The
// association must stay connected, send nothing back (no answer, alert or resend for an
// unauthenticated record) and still carry data both ways afterwards.
//
// In the fuzzing build every tag verifies (kTagsUnchecked), so a record in a keyed epoch
// counts as the peer's own there: the properties are then required only of datagrams whose
// records are all plaintext (epoch 0, no connection ID).
#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "dtls_endpoint.h"
#include "fuzz_input.h"
#include "fuzz_target.h"

namespace {

using namespace wireseal;

constexpr std::uint8_t kFeedServer = 1;
constexpr std::uint8_t kCertificate = 2;
constexpr std::size_t kRecordHeader = 13;
constexpr std::uint8_t kTls12Cid = 25;

// Configurations are made once per process (the server's certificate is slow to make); their
// counters are reset before each input, so every input replays the same handshake. Both
// sides take session tickets, so the server's last flight carries a NewSessionTicket too.
struct Configs {
  fuzz::CountingRandom client_random;
  fuzz::CountingRandom server_random;
  std::array<std::shared_ptr<dtls::EndpointConfig>, 2> client;  // [certificate]
  std::array<std::shared_ptr<dtls::EndpointConfig>, 2> server;
  Configs() {
    for (std::size_t certificate = 0; certificate < 2; ++certificate) {
      const std::uint8_t kind =
          fuzz::kEndpointResume | (certificate != 0 ? std::uint8_t{0} : fuzz::kEndpointPsk);
      client[certificate] = fuzz::fuzz_endpoint_config(kind, client_random);
      server[certificate] = fuzz::fuzz_endpoint_config(kind | fuzz::kEndpointServer, server_random);
    }
  }
};

struct Pair {
  std::optional<dtls::Endpoint> client;
  std::optional<dtls::Endpoint> server;
};

// pump passes every datagram each side has to the other until neither has one; returns
// whether both reported kConnected by then.
bool pump(Pair& p, dtls::Instant now, std::span<std::uint8_t> buffer, std::array<bool, 2>& up) {
  const std::array<dtls::Endpoint*, 2> sides{&*p.client, &*p.server};
  for (int round = 0; round < 16; ++round) {
    bool moved = false;
    for (std::size_t from = 0; from < 2; ++from) {
      for (int guard = 0; guard < 64; ++guard) {
        const Result<dtls::Output> out = sides[from]->poll_output(buffer);
        if (!out || out->kind == dtls::Output::Kind::kTimeout ||
            out->kind == dtls::Output::Kind::kIdle) {
          break;
        }
        up[from] = up[from] || out->kind == dtls::Output::Kind::kConnected;
        if (out->kind == dtls::Output::Kind::kDatagram) {
          moved = true;
          (void)sides[1 - from]->handle_datagram(now, buffer.first(out->size));
        }
      }
    }
    if (!moved) {
      break;
    }
  }
  return up[0] && up[1];
}

// only_plaintext_records: every record the datagram frames is of epoch 0 without a CID (bytes
// that frame no record count as plaintext: nobody can authenticate them).
bool only_plaintext_records(std::span<const std::uint8_t> d) {
  while (d.size() >= kRecordHeader) {
    if (d[0] == kTls12Cid || d[3] != 0 || d[4] != 0) {
      return false;
    }
    const std::size_t length = static_cast<std::size_t>(d[11]) << 8 | d[12];
    d = d.subspan(std::min(d.size(), kRecordHeader + length));
  }
  return true;
}

// outputs_of drains `e` and counts the datagrams it wanted to send.
std::size_t outputs_of(dtls::Endpoint& e, std::span<std::uint8_t> buffer) {
  std::size_t datagrams = 0;
  for (int guard = 0; guard < 256; ++guard) {
    const Result<dtls::Output> out = e.poll_output(buffer);
    fuzz::require(static_cast<bool>(out), "poll_output refused a buffer of max_datagram_size()");
    if (out->kind == dtls::Output::Kind::kDatagram) {
      ++datagrams;
    }
    if (out->kind == dtls::Output::Kind::kTimeout || out->kind == dtls::Output::Kind::kIdle) {
      return datagrams;
    }
  }
  fuzz::require(false, "poll_output never said wait");
  return datagrams;
}

// carries: a record `from` seals reaches `to` as application data.
bool carries(dtls::Endpoint& from, dtls::Endpoint& to, dtls::Instant now,
             std::span<std::uint8_t> buffer) {
  constexpr std::string_view kText = "still up";
  const Result<std::size_t> n = from.send(
      std::span(reinterpret_cast<const std::uint8_t*>(kText.data()), kText.size()), buffer);
  if (!n || !to.handle_datagram(now, buffer.first(*n))) {
    return false;
  }
  std::array<std::uint8_t, 600> out{};
  const Result<dtls::Output> o = to.poll_output(out);
  return o && o->kind == dtls::Output::Kind::kApplicationData && o->data.size() == kText.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Configs configs;
  fuzz::FuzzInput in(data, size);
  const std::uint8_t selector = in.u8();
  const std::size_t certificate = (selector & kCertificate) != 0 ? 1 : 0;
  configs.client_random = {};
  configs.server_random = {};
  Pair p;
  p.client.emplace(configs.client[certificate]);
  p.server.emplace(configs.server[certificate]);
  dtls::Instant now{std::chrono::seconds(100)};
  (void)p.client->start(now);
  (void)p.server->start(now);
  std::array<std::uint8_t, 600> buffer{};
  std::array<bool, 2> up{false, false};
  fuzz::require(pump(p, now, buffer, up), "the in-memory handshake did not complete");
  dtls::Endpoint& target = (selector & kFeedServer) != 0 ? *p.server : *p.client;
  dtls::Endpoint& peer = (selector & kFeedServer) != 0 ? *p.client : *p.server;
  std::vector<std::uint8_t> datagram;
  bool keyed_seen = false;  // the fuzzing build took a record as the peer's
  while (!in.empty()) {
    const std::span<const std::uint8_t> next = in.bytes(in.u16());
    datagram.assign(next.begin(), next.end());
    const bool unauthenticated = !fuzz::kTagsUnchecked || only_plaintext_records(datagram);
    keyed_seen = keyed_seen || !unauthenticated;
    if (datagram.empty()) {
      now += std::chrono::milliseconds(1500);
      (void)target.handle_timeout(now);
    } else {
      (void)target.handle_datagram(now, datagram);
    }
    const std::size_t answers = outputs_of(target, buffer);
    if (unauthenticated) {
      fuzz::require(answers == 0, "a connected endpoint answered an unauthenticated datagram");
      fuzz::require(target.connected(), "an unauthenticated datagram ended the association");
    }
    if (!target.connected()) {
      return 0;  // only where the fuzzing build let a keyed record through
    }
  }
  if (!keyed_seen) {
    fuzz::require(carries(target, peer, now, buffer) && carries(peer, target, now, buffer),
                  "the association no longer carries data");
  }
  return 0;
}
