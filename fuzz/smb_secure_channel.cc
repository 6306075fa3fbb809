// Fuzz target: SecureChannel::receive fed an arbitrary byte stream in arbitrary chunks. The
// input chooses the session (smb_fuzz_setup.h: protection, dialect, cipher, signing, keys,
// message limit), which side is tested (flag u8), then a script of operations, each one byte:
//
//   op % 6 == 0  the peer sends a message: header, body mode below(3) (in the channel's buffer,
//                from a separate buffer, overlapping the buffer: kAliasing), body length
//                below(limit + 2) (one past the limit: kBufferTooSmall), body bytes
//   op % 6 == 1  the peer sends a compound chain of below(4) + 1 members (header, body length
//                below(512), body)
//   op % 6 == 2  raw bytes below(512) join the stream
//   op % 6 == 3  one byte not yet delivered is flipped
//   op % 6 >= 4  deliver below(4096) + 1 bytes, then drain receive()
//
// Whatever the bytes, a received message's body is its message after the header, which
// decodes to its header. While the stream holds only unmodified peer frames, every message
// must come out as sent, in order, with no error, and all of them by the end.
#include <cstdint>
#include <deque>
#include <vector>

#include "fuzz_target.h"
#include "smb_fuzz_setup.h"

namespace {

using namespace wireseal;
using fuzz::require;

struct Sent {
  smb::Smb2Header header;
  std::vector<std::uint8_t> body;
  std::size_t message_size;  // what ChainCursor returns: header, body, padding to the next
};

struct Test {
  const fuzz::ChannelSetup& setup;
  smb::SecureChannel& channel;
  smb::SecureChannel& peer;
  fuzz::Wire wire;
  std::deque<Sent> expected;
};

// expected_flags is what the peer's protection does to the flags of a message it sends.
std::uint32_t expected_flags(const fuzz::ChannelSetup& s, std::uint32_t flags, bool chain) {
  if (s.config.protection == smb::Protection::kSigned) {
    return flags | smb::kFlagSigned;
  }
  if (s.config.protection == smb::Protection::kEncrypted && !chain) {
    return flags & ~smb::kFlagSigned;
  }
  return flags;
}

// send sends `body` written into the channel's buffer (mode 0), from a separate buffer
// (mode 1), or (`alias`) from inside the buffer but not at the body's place.
Result<std::span<const std::uint8_t>> send(Test& t, const smb::Smb2Header& h, unsigned mode,
                                           bool alias, const std::vector<std::uint8_t>& body) {
  const std::span<std::uint8_t> room = t.peer.outgoing_body();
  if (mode == 0) {
    std::copy_n(body.begin(), std::min(body.size(), room.size()), room.begin());
    return t.peer.send(h, body.size());
  }
  if (!alias) {
    return t.peer.send(h, body);
  }
  std::copy(body.begin(), body.end(), room.begin() + 1);
  return t.peer.send(h, std::span<const std::uint8_t>(room.subspan(1, body.size())));
}

void send_message(Test& t, fuzz::FuzzInput& in) {
  smb::Smb2Header h = fuzz::read_smb_header(in);
  const auto mode = static_cast<unsigned>(in.below(3));
  const std::size_t limit = t.setup.config.max_message_len - smb::kHeaderSize;
  const std::vector<std::uint8_t> body = in.vector(in.below(limit + 2));
  const bool alias = mode == 2 && !body.empty() && body.size() < limit;
  const Result<std::span<const std::uint8_t>> frame = send(t, h, mode, alias, body);
  if (body.size() > limit) {
    require(!frame && frame.error() == Error::kBufferTooSmall,
            "send refuses a body over the limit");
    return;
  }
  if (alias) {
    require(!frame && frame.error() == Error::kAliasing, "send refuses an overlapping body");
    return;
  }
  require(frame.has_value(), "send succeeds within the limit");
  t.wire.append_frame(*frame);
  h.session_id = t.setup.config.session_id;
  h.flags = expected_flags(t.setup, h.flags, false);
  t.expected.push_back({h, body, smb::kHeaderSize + body.size()});
}

void send_chain(Test& t, fuzz::FuzzInput& in) {
  smb::ChainBuilder builder(t.peer.outgoing_message());
  std::vector<Sent> members;
  const std::size_t count = 1 + in.below(4);
  for (std::size_t i = 0; i < count; ++i) {
    smb::Smb2Header h = fuzz::read_smb_header(in);
    h.session_id = t.setup.config.session_id;  // send_chain sends members as they are laid out
    const std::vector<std::uint8_t> body = in.vector(in.below(512));
    const Result<std::span<std::uint8_t>> room = builder.append(h, body.size());
    if (!room) {
      break;
    }
    std::copy(body.begin(), body.end(), room->begin());
    if (!members.empty()) {
      // The member before is padded to this one's 8-byte aligned start.
      members.back().message_size = (members.back().message_size + 7) / 8 * 8;
    }
    h.flags = expected_flags(t.setup, h.flags, true);
    members.push_back({h, body, smb::kHeaderSize + body.size()});
  }
  const Result<std::span<const std::uint8_t>> frame = t.peer.send_chain(builder.size());
  if (members.empty()) {
    require(!frame && frame.error() == Error::kInvalidArgument,
            "send_chain refuses an empty chain");
    return;
  }
  require(frame.has_value(), "send_chain sends a laid-out chain");
  t.wire.append_frame(*frame);
  t.expected.insert(t.expected.end(), members.begin(), members.end());
}

void check(Test& t, const smb::Incoming& m) {
  require(m.body.data() == m.message.data() + smb::kHeaderSize &&
              m.body.size() + smb::kHeaderSize == m.message.size(),
          "the body is the message after its header");
  const Result<smb::Smb2Header> h = smb::decode_header(m.message);
  require(h && fuzz::same_header(*h, m.header), "the message decodes to its header");
  require(m.encrypted == (t.setup.config.protection == smb::Protection::kEncrypted),
          "messages arrive encrypted exactly on an encrypted session");
  if (!t.wire.clean()) {
    return;
  }
  require(!t.expected.empty(), "no message arrives that was not sent");
  const Sent& want = t.expected.front();
  require(fuzz::same_header(m.header, want.header), "the message has the header sent");
  require(m.message.size() == want.message_size, "the message has the size sent");
  require(std::equal(want.body.begin(), want.body.end(), m.body.begin()), "the body sent arrives");
  t.expected.pop_front();
}

// drain receives until more bytes are needed; false once the framing is lost.
bool drain(Test& t) {
  for (;;) {
    const Result<std::optional<smb::Incoming>> r = t.channel.receive();
    if (!r) {
      require(!t.wire.clean(), "an unmodified stream receives without errors");
      if (r.error() == Error::kBadState) {
        return false;
      }
      continue;
    }
    if (!r->has_value()) {
      return true;
    }
    check(t, **r);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  fuzz::ChannelSetup setup;
  fuzz::read_channel_setup(in, setup);
  const bool client = in.flag();
  fuzz::CounterRandom channel_random(setup.seed);
  fuzz::CounterRandom peer_random(setup.seed + 1);
  smb::SecureChannel channel(
      setup.config_for(client ? smb::Role::kClient : smb::Role::kServer, channel_random.source()));
  smb::SecureChannel peer(
      setup.config_for(client ? smb::Role::kServer : smb::Role::kClient, peer_random.source()));
  Test t{setup, channel, peer, {}, {}};
  bool framing = true;
  const auto receive = [&t] { return drain(t); };
  while (!in.empty()) {
    const unsigned op = in.u8() % 6u;
    if (op == 0) {
      send_message(t, in);
    } else if (op == 1) {
      send_chain(t, in);
    } else if (op == 2) {
      t.wire.add_raw(in);
    } else if (op == 3) {
      t.wire.mutate(in);
    } else {
      const std::size_t n = 1 + in.below(4096);
      framing = framing && t.wire.deliver(channel, n, receive);
    }
  }
  framing = framing && t.wire.deliver(channel, SIZE_MAX, receive);
  require(!t.wire.clean() || (framing && t.expected.empty()), "every message sent arrives");
  return 0;
}
