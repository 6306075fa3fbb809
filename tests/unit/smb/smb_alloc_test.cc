// Zero allocation in steady state: transform seal/open, sign/verify, the framing pump and the
// whole engine round trip (client and fake server over the in-memory pipe).
#include <gtest/gtest.h>

#include <vector>

#include "support/alloc_counter.h"
#include "wireseal/io/pipe.h"
#include "wireseal/smb/client_engine.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::smb {
namespace {

using Bytes = std::vector<std::uint8_t>;

template <class Sink>
void drain(io::MemoryPipe::Endpoint& from, Sink& sink) {
  while (from.readable() > 0) {
    sink.commit(from.read(sink.read_space()));
  }
}

TEST(SmbAlloc, TransformAndSigningSteadyState) {
  const Bytes key(16, 3);
  TransformSealer sealer(Cipher::kAes128Gcm, key, 1);
  TransformOpener opener(Cipher::kAes128Gcm, key, 1);
  Signer cmac(SigningAlgorithm::kAesCmac, key);
  Signer gmac(SigningAlgorithm::kAesGmac, key);
  Signer hmac(SigningAlgorithm::kHmacSha256, key);
  Bytes message(4096, 7);
  message[0] = 0xFE;
  message[1] = 'S';
  message[2] = 'M';
  message[3] = 'B';
  Bytes sealed(kTransformHeaderSize + message.size());
  ASSERT_TRUE(sealer.seal(message, sealed));  // warm-up (backend lazy state)
  ASSERT_TRUE(opener.open(sealed));
  const test::AllocScope scope;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(sealer.seal(message, sealed));
    ASSERT_TRUE(opener.open(sealed));
    for (Signer* s : {&cmac, &gmac, &hmac}) {
      ASSERT_TRUE(s->sign(message));
      ASSERT_TRUE(s->verify(message));
    }
  }
  EXPECT_EQ(scope.delta().count, 0u);
}

TEST(SmbAlloc, EngineRoundTripSteadyState) {
  for (Protection p : {Protection::kNone, Protection::kSigned, Protection::kEncrypted}) {
    const Bytes key(16, 5);
    const Bytes pre(64, 6);
    SessionConfig cfg;
    cfg.protection = p;
    cfg.session_id = 77;
    cfg.session_key = key;
    cfg.preauth_hash = pre;
    cfg.max_message_len = 1 << 17;
    io::MemoryPipe pipe(1 << 18);
    ClientEngine client(cfg);
    cfg.role = Role::kServer;
    SecureChannel server(cfg);
    auto round_trip = [&] {
      const auto sent = client.send_request(Request{.command = Command::kRead}, 49);
      ASSERT_TRUE(sent);
      pipe.client().write(sent->frame);
      drain(pipe.server(), server);
      const auto in = server.receive();
      ASSERT_TRUE(in);
      ASSERT_TRUE(in->has_value());
      Smb2Header h = (*in)->header;
      h.flags = kFlagServerToRedir;
      h.credits = 1;
      const auto frame = server.send(h, 65536);
      ASSERT_TRUE(frame);
      pipe.server().write(*frame);
      drain(pipe.client(), client);
      const auto r = client.poll();
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->has_value());
    };
    round_trip();
    const test::AllocScope scope;
    for (int i = 0; i < 50; ++i) {
      round_trip();
    }
    EXPECT_EQ(scope.delta().count, 0u) << "protection " << static_cast<int>(p);
  }
}

}  // namespace
}  // namespace wireseal::smb
