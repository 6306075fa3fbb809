// Fuzz target: ClientEngine::poll fed an arbitrary byte stream in arbitrary chunks, with the
// requests in flight chosen by the input. The input chooses the session (smb_fuzz_setup.h),
// the first MessageId (2, or u64 after a set flag), the credits (u16) and the in-flight table
// size (below(16) + 1), then a script of operations, each one byte:
//
//   op % 6 == 0  send_request: command, credit charge below(5), credit request u16, tree id,
//                flags, body length below(limit + 2); a server channel must receive it as sent
//   op % 6 == 1  the server responds: header (MessageId of a request in flight if a flag u8
//                says so), body below(256)
//   op % 6 == 2  raw bytes join the stream;  op % 6 == 3  a byte not yet delivered is flipped
//   op % 6 >= 4  deliver below(4096) + 1 bytes, then drain poll()
//
// A model of the engine's bookkeeping (MessageIds, credits, the requests in flight) predicts
// every send_request result. Whatever the bytes, poll only ever returns a response to a request
// in flight and retires it; while the stream holds only unmodified server frames, every poll
// result (response, kReplay, kMalformed, skipped interim response) and the credits are exactly
// as MS-SMB2 §3.2.5.1 says.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "fuzz_target.h"
#include "smb_fuzz_setup.h"

namespace {

using namespace wireseal;
using fuzz::require;

struct Model {
  std::vector<std::uint64_t> in_flight;
  std::uint64_t next_id = 0;
  std::uint32_t credits = 0;
  std::size_t max_in_flight = 0;

  bool has(std::uint64_t id) const {
    return std::find(in_flight.begin(), in_flight.end(), id) != in_flight.end();
  }
  void retire(std::uint64_t id) {
    in_flight.erase(std::find(in_flight.begin(), in_flight.end(), id));
  }
  void grant(std::uint32_t n) {
    credits = n > std::numeric_limits<std::uint32_t>::max() - credits
                  ? std::numeric_limits<std::uint32_t>::max()
                  : credits + n;
  }
};

struct Test {
  const fuzz::ChannelSetup& setup;
  smb::ClientEngine& client;
  smb::SecureChannel& server;
  fuzz::Wire wire;
  Model model;
  std::vector<smb::Smb2Header> responses;  // per server frame on the wire
  std::size_t consumed = 0;                // frames the engine has read (clean streams)
};

int code(Error e) { return static_cast<int>(e); }

// feed hands a whole frame to `server` and returns the one message it must yield.
smb::Smb2Header server_receives(smb::SecureChannel& server, std::span<const std::uint8_t> frame) {
  while (!frame.empty()) {
    const std::span<std::uint8_t> space = server.read_space();
    require(!space.empty(), "the server has room for a request");
    const std::size_t k = std::min(space.size(), frame.size());
    std::copy_n(frame.begin(), k, space.begin());
    server.commit(k);
    frame = frame.subspan(k);
  }
  const Result<std::optional<smb::Incoming>> m = server.receive();
  require(m && m->has_value(), "the server receives the request");
  const smb::Smb2Header h = (*m)->header;
  const Result<std::optional<smb::Incoming>> none = server.receive();
  require(none && !none->has_value(), "a request is one message");
  return h;
}

Error expected_send_error(const Test& t, std::uint16_t charge, std::size_t body_len) {
  const Model& m = t.model;
  if (m.in_flight.size() >= m.max_in_flight || m.credits < charge) {
    return Error::kBadState;
  }
  if (m.next_id > std::numeric_limits<std::uint64_t>::max() - 1 - charge) {
    return Error::kSequenceExhausted;
  }
  if (body_len > t.setup.config.max_message_len - smb::kHeaderSize) {
    return Error::kBufferTooSmall;
  }
  return Error{};
}

void send_request(Test& t, fuzz::FuzzInput& in) {
  smb::Request req;
  req.command = static_cast<smb::Command>(in.below(fuzz::kSmbCommandCount));
  req.credit_charge = static_cast<std::uint16_t>(in.below(5));
  req.credit_request = in.u16();
  req.tree_id = in.u32();
  req.flags = in.u32();
  const std::size_t body_len = in.below(t.setup.config.max_message_len - smb::kHeaderSize + 2);
  const std::span<std::uint8_t> body = t.client.request_body();
  in.fill(body.first(std::min(body_len, body.size())));
  const std::uint16_t charge = req.credit_charge == 0 ? std::uint16_t{1} : req.credit_charge;
  const Error want = expected_send_error(t, charge, body_len);
  const Result<smb::ClientEngine::Sent> sent = t.client.send_request(req, body_len);
  if (want != Error{}) {
    require(!sent && code(sent.error()) == code(want), "send_request fails as the model says");
    return;
  }
  require(sent && sent->message_id == t.model.next_id, "send_request takes the next MessageId");
  t.model.in_flight.push_back(sent->message_id);
  t.model.credits -= charge;
  t.model.next_id += charge;
  const smb::Smb2Header h = server_receives(t.server, sent->frame);
  require(h.message_id == sent->message_id && h.command == req.command && !h.is_response() &&
              h.credit_charge == req.credit_charge && h.credits == req.credit_request &&
              h.tree_id == req.tree_id,
          "the server receives the request as sent");
}

void respond(Test& t, fuzz::FuzzInput& in) {
  smb::Smb2Header h = fuzz::read_smb_header(in);
  if ((in.u8() & 1) != 0 && !t.model.in_flight.empty()) {
    h.message_id = t.model.in_flight[in.below(t.model.in_flight.size())];
  }
  const std::size_t limit = t.setup.config.max_message_len - smb::kHeaderSize;
  const std::vector<std::uint8_t> body = in.vector(in.below(std::min<std::size_t>(limit, 256) + 1));
  const Result<std::span<const std::uint8_t>> frame = t.server.send(h, body);
  require(frame.has_value(), "the server sends a response within the limit");
  t.wire.append_frame(*frame);
  t.responses.push_back(h);
}

// Outcome is what one poll() returned, or what the model says it must return.
struct Outcome {
  int error = 0;  // 0: no error
  bool response = false;
  std::uint64_t id = 0;
};

// predict runs MS-SMB2 §3.2.5.1's rules over the server frames delivered whole.
Outcome predict(Test& t) {
  while (t.consumed < t.wire.complete_frames()) {
    const smb::Smb2Header& h = t.responses[t.consumed++];
    if (!h.is_response()) {
      return {code(Error::kMalformed), false, 0};
    }
    if (!t.model.has(h.message_id)) {
      return {code(Error::kReplay), false, 0};
    }
    t.model.grant(h.credits);
    if (h.status == smb::kStatusPending && h.is_async()) {
      continue;  // interim response: credits only
    }
    t.model.retire(h.message_id);
    return {0, true, h.message_id};
  }
  return {};
}

// drain polls until more bytes are needed; false once the framing is lost.
bool drain(Test& t) {
  for (;;) {
    const Result<std::optional<smb::Response>> r = t.client.poll();
    const Outcome got{r ? 0 : code(r.error()), r && r->has_value(),
                      r && r->has_value() ? (*r)->message_id : 0};
    if (t.wire.clean()) {
      const Outcome want = predict(t);
      require(got.error == want.error && got.response == want.response && got.id == want.id,
              "poll returns what MS-SMB2 says for an unmodified stream");
      require(t.client.credits() == t.model.credits, "credits are as granted");
    } else {
      if (got.response) {
        require(t.model.has(got.id), "poll returns only responses to requests in flight");
        t.model.retire(got.id);
      }
      t.model.credits = t.client.credits();  // interim responses in raw bytes may grant some
    }
    require(t.client.in_flight() == t.model.in_flight.size(), "in_flight counts the requests");
    if (!r && r.error() == Error::kBadState) {
      return false;
    }
    if (r && !r->has_value()) {
      return true;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  fuzz::ChannelSetup setup;
  fuzz::read_channel_setup(in, setup);
  const std::uint64_t first_id = in.flag() ? in.u64() : 2;
  const std::uint32_t credits = in.u16();
  const std::size_t max_in_flight = 1 + in.below(16);
  fuzz::CounterRandom client_random(setup.seed);
  fuzz::CounterRandom server_random(setup.seed + 1);
  smb::ClientEngine client(setup.config_for(smb::Role::kClient, client_random.source()), first_id,
                           credits, max_in_flight);
  smb::SecureChannel server(setup.config_for(smb::Role::kServer, server_random.source()));
  Test t{setup, client, server, {}, Model{{}, first_id, credits, max_in_flight}, {}, 0};
  bool framing = true;
  const auto poll = [&t] { return drain(t); };
  while (!in.empty()) {
    const unsigned op = in.u8() % 6u;
    if (op == 0) {
      send_request(t, in);
    } else if (op == 1) {
      respond(t, in);
    } else if (op == 2) {
      t.wire.add_raw(in);
    } else if (op == 3) {
      t.wire.mutate(in);
    } else {
      framing = framing && t.wire.deliver(client, 1 + in.below(4096), poll);
    }
  }
  if (framing) {
    static_cast<void>(t.wire.deliver(client, SIZE_MAX, poll));
  }
  return 0;
}
