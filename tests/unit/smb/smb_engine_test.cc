// Framing pump, SecureChannel and ClientEngine: round trips over the in-memory pipe and a
// loopback TCP socket in every protection mode, many requests in flight, compound chains,
// replayed and foreign responses.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <thread>

#include "smb_test_util.h"
#include "wireseal/io/pipe.h"
#include "wireseal/io/socket.h"
#include "wireseal/smb/client_engine.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::smb {
namespace {

using test::Bytes;

const Bytes kSessionKey(32, 0x5A);
const Bytes kPreauth(64, 0x11);

SessionConfig config_for(Protection p, Cipher c = Cipher::kAes128Gcm,
                         SigningAlgorithm s = SigningAlgorithm::kAesGmac,
                         Dialect d = Dialect::kSmb311) {
  SessionConfig cfg;
  cfg.protection = p;
  cfg.cipher = c;
  cfg.signing = s;
  cfg.dialect = d;
  cfg.session_id = 0x100000000025;
  cfg.session_key = kSessionKey;
  cfg.preauth_hash = kPreauth;
  cfg.max_message_len = 1 << 17;
  return cfg;
}

SessionConfig server_config(SessionConfig c) {
  c.role = Role::kServer;
  return c;
}

// pump moves everything the pipe holds into a channel's receive buffer.
template <class Sink>
void drain(io::MemoryPipe::Endpoint& from, Sink& sink) {
  while (from.readable() > 0) {
    const std::span<std::uint8_t> space = sink.read_space();
    ASSERT_FALSE(space.empty());
    sink.commit(from.read(space));
  }
}

// answer reads every request the server channel has and answers each with `len` bytes of
// READ data, in reverse order of arrival (responses may come in any order).
void answer_all(SecureChannel& server, io::MemoryPipe::Endpoint& end, std::size_t len) {
  drain(end, server);
  std::vector<Smb2Header> requests;
  for (;;) {
    const Result<std::optional<Incoming>> in = server.receive();
    ASSERT_TRUE(in);
    if (!in->has_value()) {
      break;
    }
    requests.push_back((*in)->header);
  }
  std::reverse(requests.begin(), requests.end());
  for (const Smb2Header& req : requests) {
    Smb2Header h = req;
    h.flags = kFlagServerToRedir;
    h.credits = 1;
    h.status = kStatusSuccess;
    const std::span<std::uint8_t> body = server.outgoing_body();
    std::fill_n(body.begin(), len, static_cast<std::uint8_t>(req.message_id));
    const Result<std::span<const std::uint8_t>> frame = server.send(h, len);
    ASSERT_TRUE(frame);
    ASSERT_EQ(end.write(*frame), frame->size());
  }
}

struct ModeCase {
  const char* name;
  SessionConfig config;
};

class EngineRoundTrip : public ::testing::TestWithParam<ModeCase> {};

TEST_P(EngineRoundTrip, ManyInFlightMatchedByMessageId) {
  const SessionConfig cfg = GetParam().config;
  io::MemoryPipe pipe(1 << 20);
  ClientEngine client(cfg, 2, 64, 16);
  SecureChannel server(server_config(cfg));
  std::vector<std::uint64_t> sent;
  for (int i = 0; i < 10; ++i) {
    std::fill_n(client.request_body().begin(), 49, std::uint8_t{0x31});
    const auto s = client.send_request(Request{.command = Command::kRead, .tree_id = 7}, 49);
    ASSERT_TRUE(s);
    sent.push_back(s->message_id);
    ASSERT_EQ(pipe.client().write(s->frame), s->frame.size());
  }
  EXPECT_EQ(client.in_flight(), 10u);
  answer_all(server, pipe.server(), 3000);
  drain(pipe.client(), client);
  std::vector<std::uint64_t> got;
  for (;;) {
    const Result<std::optional<Response>> r = client.poll();
    ASSERT_TRUE(r);
    if (!r->has_value()) {
      break;
    }
    EXPECT_EQ((*r)->body.size(), 3000u);
    EXPECT_EQ((*r)->body[2999], static_cast<std::uint8_t>((*r)->message_id));
    got.push_back((*r)->message_id);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, sent);
  EXPECT_EQ(client.in_flight(), 0u);
  EXPECT_EQ(client.credits(), 64u);
}

TEST_P(EngineRoundTrip, ReplayedResponseIsRejected) {
  const SessionConfig cfg = GetParam().config;
  io::MemoryPipe pipe(1 << 20);
  ClientEngine client(cfg);
  SecureChannel server(server_config(cfg));
  const auto s = client.send_request(Request{.command = Command::kEcho}, 4);
  ASSERT_TRUE(s);
  pipe.client().write(s->frame);
  answer_all(server, pipe.server(), 8);
  Bytes copy(pipe.client().readable());
  pipe.client().read(copy);
  for (int i = 0; i < 2; ++i) {
    const std::span<std::uint8_t> space = client.read_space();
    std::copy(copy.begin(), copy.end(), space.begin());
    client.commit(copy.size());
    const Result<std::optional<Response>> r = client.poll();
    if (i == 0) {
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->has_value());
    } else {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error(), Error::kReplay);
    }
  }
  EXPECT_EQ(client.counters().dropped.replay, 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, EngineRoundTrip,
    ::testing::Values(
        ModeCase{"Plain", config_for(Protection::kNone)},
        ModeCase{"SignedHmac21", config_for(Protection::kSigned, Cipher::kAes128Gcm,
                                            SigningAlgorithm::kHmacSha256, Dialect::kSmb210)},
        ModeCase{"SignedCmac30", config_for(Protection::kSigned, Cipher::kAes128Ccm,
                                            SigningAlgorithm::kAesCmac, Dialect::kSmb300)},
        ModeCase{"SignedGmac", config_for(Protection::kSigned)},
        ModeCase{"EncryptedCcm30", config_for(Protection::kEncrypted, Cipher::kAes128Ccm,
                                              SigningAlgorithm::kAesCmac, Dialect::kSmb300)},
        ModeCase{"EncryptedGcm128", config_for(Protection::kEncrypted)},
        ModeCase{"EncryptedGcm256", config_for(Protection::kEncrypted, Cipher::kAes256Gcm)},
        ModeCase{"EncryptedCcm256", config_for(Protection::kEncrypted, Cipher::kAes256Ccm)}),
    [](const ::testing::TestParamInfo<ModeCase>& p) { return std::string(p.param.name); });

TEST(SmbEngine, ForeignSessionUnsignedAndUnencryptedAreRejected) {
  io::MemoryPipe pipe(1 << 20);
  SessionConfig enc = config_for(Protection::kEncrypted);
  ClientEngine client(enc);
  SessionConfig other = server_config(enc);
  other.session_id = 99;
  SecureChannel foreign(other);
  Smb2Header h;
  h.flags = kFlagServerToRedir;
  h.message_id = 2;
  auto frame = foreign.send(h, 4);
  ASSERT_TRUE(frame);
  pipe.server().write(*frame);
  drain(pipe.client(), client);
  EXPECT_EQ(client.poll().error(), Error::kWrongContext);
  // A plain (unencrypted) response on an encrypted session.
  SecureChannel plain(server_config(config_for(Protection::kNone)));
  frame = plain.send(h, 4);
  pipe.server().write(*frame);
  drain(pipe.client(), client);
  EXPECT_EQ(client.poll().error(), Error::kAuthFailed);
  EXPECT_EQ(client.counters().dropped.wrong_context, 1u);
  EXPECT_EQ(client.counters().dropped.auth, 1u);
  // An unsigned response on a signed session.
  ClientEngine signed_client(config_for(Protection::kSigned));
  pipe.server().write(*frame);
  drain(pipe.client(), signed_client);
  EXPECT_EQ(signed_client.poll().error(), Error::kAuthFailed);
}

TEST(SmbEngine, CreateReportsMisuseInsteadOfThrowing) {
  SessionConfig bad = config_for(Protection::kEncrypted);
  bad.session_key = bad.session_key.first(8);
  EXPECT_EQ(SecureChannel::create(bad).error(), Error::kInvalidArgument);
  EXPECT_TRUE(SecureChannel::create(config_for(Protection::kEncrypted)));
  EXPECT_EQ(ClientEngine::create(bad).error(), Error::kInvalidArgument);
  EXPECT_TRUE(ClientEngine::create(config_for(Protection::kSigned)));
  const Bytes key(16, 3);
  EXPECT_EQ(Signer::create(SigningAlgorithm::kAesCmac, Bytes(15, 3)).error(),
            Error::kInvalidArgument);
  Result<Signer> signer = Signer::create(SigningAlgorithm::kAesCmac, key);
  ASSERT_TRUE(signer);
  EXPECT_EQ(signer->algorithm(), SigningAlgorithm::kAesCmac);
}

TEST(SmbEngine, ChannelsOfOneSessionNeverShareANonce) {
  // Two client channels of one encrypted session (MS-SMB2 §3.2.4.1.7 multichannel): the
  // second takes the first's nonce source, so their transform nonces never collide, and one
  // server opener reads both.
  SessionConfig cfg = config_for(Protection::kEncrypted);
  SecureChannel channel1(cfg);
  cfg.encryption_nonces = channel1.encryption_nonces();
  ASSERT_NE(cfg.encryption_nonces, nullptr);
  SecureChannel channel2(cfg);
  EXPECT_EQ(channel2.encryption_nonces(), channel1.encryption_nonces());
  SecureChannel server(server_config(config_for(Protection::kEncrypted)));
  std::set<std::array<std::uint8_t, kTransformNonceSize>> nonces;
  for (int i = 0; i < 200; ++i) {
    SecureChannel& ch = i % 2 == 0 ? channel1 : channel2;
    Smb2Header h;
    h.message_id = static_cast<std::uint64_t>(i);
    const auto frame = ch.send(h, 8);
    ASSERT_TRUE(frame);
    const std::size_t nonce_at = kFramePrefixSize + kTransformNonceOffset;
    std::array<std::uint8_t, kTransformNonceSize> nonce{};
    std::copy_n(frame->begin() + static_cast<long>(nonce_at), nonce.size(), nonce.begin());
    nonces.insert(nonce);
    const std::span<std::uint8_t> space = server.read_space();
    std::copy(frame->begin(), frame->end(), space.begin());
    server.commit(frame->size());
    const Result<std::optional<Incoming>> in = server.receive();
    ASSERT_TRUE(in);
    ASSERT_TRUE(in->has_value());
    EXPECT_EQ((*in)->header.message_id, h.message_id);
  }
  EXPECT_EQ(nonces.size(), 200u);
  EXPECT_EQ(SecureChannel(config_for(Protection::kSigned)).encryption_nonces(), nullptr);
}

TEST(SmbEngine, CompoundChainSignedOrEncrypted) {
  for (Protection p : {Protection::kSigned, Protection::kEncrypted}) {
    const SessionConfig cfg = config_for(p);
    io::MemoryPipe pipe(1 << 20);
    ClientEngine client(cfg);
    SecureChannel server(server_config(cfg));
    std::vector<std::uint64_t> ids;
    for (int i = 0; i < 3; ++i) {
      const auto s = client.send_request(Request{.command = Command::kRead}, 49);
      ASSERT_TRUE(s);
      ids.push_back(s->message_id);
    }
    // The server answers all three in one compound response (§3.3.4.1.3).
    ChainBuilder chain(server.outgoing_message());
    for (std::size_t i = 0; i < 3; ++i) {
      Smb2Header h;
      h.flags = kFlagServerToRedir | (i > 0 ? kFlagRelatedOperations : 0);
      h.message_id = ids[i];
      h.session_id = cfg.session_id;
      h.command = Command::kRead;
      const auto body = chain.append(h, 10 + i);
      ASSERT_TRUE(body);
      std::fill(body->begin(), body->end(), static_cast<std::uint8_t>(i));
    }
    const auto frame = server.send_chain(chain.size());
    ASSERT_TRUE(frame);
    pipe.server().write(*frame);
    drain(pipe.client(), client);
    for (std::size_t i = 0; i < 3; ++i) {
      const Result<std::optional<Response>> r = client.poll();
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->has_value());
      EXPECT_EQ((*r)->message_id, ids[i]);
      // Members before the last carry their 8-byte alignment padding.
      EXPECT_GE((*r)->body.size(), 10 + i);
      EXPECT_EQ((*r)->body[0], i);
    }
    EXPECT_EQ(client.in_flight(), 0u);
  }
}

TEST(SmbFraming, PumpHandlesPartialAndBatchedReads) {
  std::mt19937_64 rng(3);
  Bytes stream;
  std::vector<Bytes> messages;
  for (std::size_t len : {64u, 1u, 200u, 5000u, 64u}) {
    Bytes m(len);
    for (auto& b : m) {
      b = static_cast<std::uint8_t>(rng());
    }
    Bytes prefix(4);
    ASSERT_TRUE(encode_frame_prefix(len, prefix));
    stream.insert(stream.end(), prefix.begin(), prefix.end());
    stream.insert(stream.end(), m.begin(), m.end());
    messages.push_back(m);
  }
  for (std::size_t chunk : {1u, 3u, 7u, 1000u, 100000u}) {
    MessagePump pump(8192);
    std::size_t pos = 0;
    std::size_t next = 0;
    while (next < messages.size()) {
      const std::span<std::uint8_t> space = pump.read_space();
      const std::size_t n = std::min({chunk, space.size(), stream.size() - pos});
      std::copy_n(stream.begin() + static_cast<long>(pos), n, space.begin());
      pos += n;
      pump.commit(n);
      for (;;) {
        const auto m = pump.next();
        ASSERT_TRUE(m);
        if (!m->has_value()) {
          break;
        }
        ASSERT_LT(next, messages.size());
        EXPECT_EQ(Bytes((*m)->begin(), (*m)->end()), messages[next]) << "chunk " << chunk;
        ++next;
      }
    }
    EXPECT_EQ(pump.buffered(), 0u);
  }
}

TEST(SmbFraming, BadPrefixBreaksTheStream) {
  MessagePump pump(100);
  const Bytes bad = {1, 0, 0, 4, 0xFE, 'S', 'M', 'B'};
  std::copy(bad.begin(), bad.end(), pump.read_space().begin());
  pump.commit(bad.size());
  EXPECT_EQ(pump.next().error(), Error::kMalformed);
  EXPECT_EQ(pump.next().error(), Error::kBadState);
  MessagePump small(100);
  const Bytes too_long = {0, 0, 0, 101};
  std::copy(too_long.begin(), too_long.end(), small.read_space().begin());
  small.commit(4);
  EXPECT_EQ(small.next().error(), Error::kMalformed);
  Bytes prefix(4);
  EXPECT_EQ(encode_frame_prefix(kMaxFrameLength + 1, prefix).error(), Error::kInvalidArgument);
  EXPECT_EQ(decode_frame_prefix(Bytes{0, 1, 2, 3}).value(), 0x010203u);
}

TEST(SmbEngine, EncryptedRoundTripOverLoopbackTcp) {
  const SessionConfig cfg = config_for(Protection::kEncrypted);
  io::TcpListener listener;
  std::thread server_thread([&] {
    io::TcpStream s = listener.accept();
    SecureChannel server(server_config(cfg));
    for (int handled = 0; handled < 3;) {
      const Result<std::size_t> n = s.read(server.read_space());
      if (!n || *n == 0) {
        return;
      }
      server.commit(*n);
      for (;;) {
        const auto in = server.receive();
        if (!in || !in->has_value()) {
          break;
        }
        Smb2Header h = (*in)->header;
        h.flags = kFlagServerToRedir;
        h.credits = 1;
        std::fill_n(server.outgoing_body().begin(), 65536, std::uint8_t{0xAB});
        const auto frame = server.send(h, 65536);
        if (!frame || !s.write_all(*frame)) {
          return;
        }
        ++handled;
      }
    }
  });
  io::TcpStream stream = io::TcpStream::connect_loopback(listener.port());
  ClientEngine client(cfg);
  for (int i = 0; i < 3; ++i) {
    const auto sent = client.send_request(Request{.command = Command::kRead}, 49);
    ASSERT_TRUE(sent);
    ASSERT_TRUE(stream.write_all(sent->frame));
    std::optional<Response> response;
    while (!response) {
      const Result<std::size_t> n = stream.read(client.read_space());
      ASSERT_TRUE(n);
      ASSERT_GT(*n, 0u);
      client.commit(*n);
      const auto r = client.poll();
      ASSERT_TRUE(r);
      response = *r;
    }
    EXPECT_EQ(response->message_id, sent->message_id);
    EXPECT_EQ(response->body.size(), 65536u);
    EXPECT_EQ(response->body[65535], 0xAB);
  }
  server_thread.join();
}

}  // namespace
}  // namespace wireseal::smb
