// Transcript (wireseal/dtls/handshake/transcript.h): each message hashed with an unfragmented
// 12-byte header, both PRF hashes until select(), the hash forked without ending the
// transcript. (The interop test recomputes OpenSSL's Finished messages with it.)
#include "wireseal/dtls/handshake/transcript.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "wireseal/crypto/hash.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes digest(crypto::HashAlgorithm h, const Bytes& data) {
  Bytes out(crypto::digest_length(h));
  EXPECT_TRUE(crypto::Hash::digest(h, data, out));
  return out;
}

TEST(DtlsTranscript, HashesUnfragmentedHeadersWithEitherPrfHash) {
  const Bytes hello = {1, 2, 3, 4, 5};
  const Bytes done;
  // msg_type, length(3), message_seq(2), fragment_offset 0 (3), fragment_length = length (3).
  Bytes expected_input = {1, 0, 0, 5, 0, 1, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5};
  const Bytes done_header = {14, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0};
  expected_input.insert(expected_input.end(), done_header.begin(), done_header.end());
  for (crypto::HashAlgorithm h : {crypto::HashAlgorithm::kSha256, crypto::HashAlgorithm::kSha384}) {
    Transcript t;
    t.add(1, 1, hello);
    std::array<std::uint8_t, 48> out{};
    EXPECT_EQ(t.hash(out).error(), Error::kBadState);  // which hash is not known yet
    ASSERT_TRUE(t.select(h));
    t.add(14, 2, done);
    ASSERT_TRUE(t.hash(out));
    EXPECT_EQ(Bytes(out.begin(), out.begin() + static_cast<long>(t.hash_length())),
              digest(h, expected_input));
    // hash() forks: the transcript goes on.
    t.add(14, 2, done);
    Bytes twice = expected_input;
    twice.insert(twice.end(), done_header.begin(), done_header.end());
    ASSERT_TRUE(t.hash(out));
    EXPECT_EQ(Bytes(out.begin(), out.begin() + static_cast<long>(t.hash_length())),
              digest(h, twice));
  }
  Transcript t;
  EXPECT_EQ(t.select(crypto::HashAlgorithm::kSha1).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace wireseal::dtls
