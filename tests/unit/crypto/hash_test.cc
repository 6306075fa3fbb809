// crypto::Hash against NIST's CAVP SHA ShortMsg and LongMsg vectors (FIPS 180-4, from Debian's
// python3-cryptography-vectors), fed whole and in pieces, and its error contract.
#include "wireseal/crypto/hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/hex.h"
#include "support/vector_file.h"

namespace wireseal::test {
namespace {

using crypto::Hash;
using crypto::HashAlgorithm;

struct HashFile {
  HashAlgorithm hash;
  const char* dir;
  const char* prefix;
};

constexpr HashFile kFiles[] = {
    {HashAlgorithm::kSha1, "SHA1", "SHA1"},     {HashAlgorithm::kSha224, "SHA2", "SHA224"},
    {HashAlgorithm::kSha256, "SHA2", "SHA256"}, {HashAlgorithm::kSha384, "SHA2", "SHA384"},
    {HashAlgorithm::kSha512, "SHA2", "SHA512"},
};

class HashVectors : public ::testing::TestWithParam<HashFile> {};

// digest_in_pieces hashes `msg` split at every `step` bytes.
std::vector<std::uint8_t> digest_in_pieces(HashAlgorithm hash, const std::vector<std::uint8_t>& msg,
                                           std::size_t step) {
  Hash h(hash);
  for (std::size_t at = 0; at < msg.size(); at += step) {
    h.update(std::span(msg).subspan(at, std::min(step, msg.size() - at)));
  }
  std::vector<std::uint8_t> out(h.digest_length());
  EXPECT_TRUE(h.finish(out));
  return out;
}

TEST_P(HashVectors, ShortAndLongMessages) {
  const HashFile f = GetParam();
  std::size_t count = 0;
  for (const char* kind : {"ShortMsg", "LongMsg"}) {
    const auto path = cavp_dir() / "hashes" / f.dir / (std::string(f.prefix) + kind + ".rsp");
    for (const VectorRecord& r : read_vector_file(path)) {
      const std::size_t bits = std::stoul(r.get("Len"));
      std::vector<std::uint8_t> msg = r.hex("Msg");
      msg.resize(bits / 8);  // Len = 0 is written as Msg = 00
      const std::vector<std::uint8_t> want = r.hex("MD");
      std::vector<std::uint8_t> got(want.size());
      ASSERT_TRUE(Hash::digest(f.hash, msg, got)) << path << ':' << r.line;
      EXPECT_EQ(to_hex(got), to_hex(want)) << path << ':' << r.line;
      for (const std::size_t step : {1u, 7u, 64u, 129u}) {
        EXPECT_EQ(to_hex(digest_in_pieces(f.hash, msg, step)), to_hex(want))
            << path << ':' << r.line << " in pieces of " << step;
      }
      ++count;
    }
  }
  EXPECT_GT(count, 100u);
}

INSTANTIATE_TEST_SUITE_P(Sha, HashVectors, ::testing::ValuesIn(kFiles),
                         [](const auto& p) { return std::string(p.param.prefix); });

TEST(Hash, FinishRefusesAShortOutputAndASecondFinish) {
  Hash h(HashAlgorithm::kSha256);
  h.update(std::vector<std::uint8_t>{'a', 'b', 'c'});
  std::vector<std::uint8_t> out(31);
  EXPECT_EQ(h.finish(out).error(), Error::kBufferTooSmall);
  out.resize(32);
  ASSERT_TRUE(h.finish(out));
  EXPECT_EQ(to_hex(out), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(h.finish(out).error(), Error::kBadState);
}

TEST(Hash, ACopyForksTheRunningHash) {
  Hash a(HashAlgorithm::kSha512);
  a.update(std::vector<std::uint8_t>{'a', 'b'});
  Hash b = a;
  a.update(std::vector<std::uint8_t>{'c'});
  std::vector<std::uint8_t> abc(64), ab(64), want_ab(64);
  ASSERT_TRUE(a.finish(abc));
  ASSERT_TRUE(b.finish(ab));
  ASSERT_TRUE(Hash::digest(HashAlgorithm::kSha512, std::vector<std::uint8_t>{'a', 'b'}, want_ab));
  EXPECT_EQ(ab, want_ab);
  EXPECT_EQ(to_hex(abc).substr(0, 16), "ddaf35a193617aba");  // FIPS 180-2 SHA-512("abc")
}

}  // namespace
}  // namespace wireseal::test
