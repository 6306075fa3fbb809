// The multi-buffer HMAC plans (crypto/hmac_lanes.h) and the sixteen-lane SHA kernels, white box:
// every plan this CPU can run is tested here whatever the start-up choice was, so a machine
// that picks the sixteen lanes still proves the pairs and the one-at-a-time plan, and the other
// way round. References are OpenSSL's HMAC() and the single-lane kernel.
#include "crypto/hmac_lanes.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cpu_features.h"
#include "crypto/backend/native.h"
#include "support/hex.h"
#include "support/random_below.h"
#if defined(__x86_64__)
#include "crypto/backend/x86/sha_avx512.h"
#endif

namespace wireseal::crypto::detail {
namespace {

using ::wireseal::test::below;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kSeed = 0x1a4e'2026'1205ULL;
constexpr std::uint32_t kSha1Iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
constexpr std::uint32_t kSha256Iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

using ::wireseal::test::random_bytes;

struct HashCase {
  HashAlgorithm hash;
  const char* name;
  std::size_t words;
  const std::uint32_t* iv;
  const EVP_MD* (*md)();
};
const HashCase kHashes[] = {{HashAlgorithm::kSha1, "sha1", 5, kSha1Iv, EVP_sha1},
                            {HashAlgorithm::kSha256, "sha256", 8, kSha256Iv, EVP_sha256}};

// x16_kernel is the sixteen-lane kernel for `hash` when this CPU can run it, else null.
ShaKernels::CompressX16 x16_kernel(HashAlgorithm hash) {
#if defined(__x86_64__)
  if (cpu::features().avx512f && cpu::features().avx512bw) {
    return hash == HashAlgorithm::kSha1 ? sha1_compress_avx512_x16 : sha256_compress_avx512_x16;
  }
#endif
  (void)hash;
  return nullptr;
}

// plans lists every batch plan this CPU can run for `hash`, named.
std::vector<std::pair<std::string, HmacKernels>> plans(HashAlgorithm hash) {
  const HmacKernels table = hmac_kernels(native_sha_kernels(), hash);
  std::vector<std::pair<std::string, HmacKernels>> out;
  if (table.compress == nullptr) {
    return out;
  }
  out.push_back({"one", {table.compress, table.compress_x2, nullptr, HmacLanes::kOneByOne}});
  out.push_back({"x2", {table.compress, table.compress_x2, nullptr, HmacLanes::kPairs}});
  if (ShaKernels::CompressX16 x16 = x16_kernel(hash)) {
    out.push_back({"x16", {table.compress, table.compress_x2, x16, HmacLanes::kSixteen}});
  }
  return out;
}

// chain_after_pad is the chaining value after the key's ipad or opad block, as Hmac keeps it.
void chain_after_pad(const HashCase& h, ShaKernels::Compress compress, const Bytes& key,
                     std::uint8_t pad, std::uint32_t* chain) {
  std::uint8_t block[64] = {};
  std::memcpy(block, key.data(), key.size());
  for (std::uint8_t& b : block) {
    b ^= pad;
  }
  std::memcpy(chain, h.iv, 4 * h.words);
  compress(chain, block, 1);
}

Bytes reference_hmac(const HashCase& h, const Bytes& key, const Bytes& message) {
  Bytes mac(EVP_MAX_MD_SIZE);
  unsigned len = 0;
  HMAC(h.md(), key.data(), static_cast<int>(key.size()), message.data(), message.size(), mac.data(),
       &len);
  mac.resize(len);
  return mac;
}

// Batches of 1..40 jobs (the sixteen lanes' groups, the wide threshold and the pairs' remainders
// all land somewhere), every size 0..300 in some batch plus long messages, the parts cut at
// random points and placed at random offsets, every truncation.
TEST(HmacLanes, EveryPlanMatchesOpenSsl) {
  for (const HashCase& h : kHashes) {
    const auto available = plans(h.hash);
    if (available.empty()) {
      GTEST_SKIP() << "no native " << h.name << " kernel on this CPU";
    }
    for (const auto& [plan_name, kernels] : available) {
      std::mt19937_64 rng(kSeed + h.words);
      const Bytes key = random_bytes(rng, 1 + below(rng, 64));
      std::uint32_t inner[8];
      std::uint32_t outer[8];
      chain_after_pad(h, kernels.compress, key, 0x36, inner);
      chain_after_pad(h, kernels.compress, key, 0x5c, outer);
      std::size_t next_size = 0;
      for (int round = 0; round < 150; ++round) {
        const std::size_t num_jobs = 1 + below(rng, 40);
        std::vector<Bytes> messages, storage, outs;
        std::vector<HmacJob> jobs(num_jobs);
        for (std::size_t i = 0; i < num_jobs; ++i) {
          const std::size_t len = next_size <= 300     ? next_size++
                                  : below(rng, 6) == 0 ? 1000 + below(rng, 5000)
                                                       : below(rng, 301);
          messages.push_back(random_bytes(rng, len));
          outs.emplace_back(1 + below(rng, 4 * h.words));
        }
        for (std::size_t i = 0; i < num_jobs; ++i) {
          // Copy the message to a random offset so blocks are read at every alignment.
          const std::size_t offset = below(rng, 64);
          storage.emplace_back(offset + messages[i].size());
          std::copy(messages[i].begin(), messages[i].end(),
                    storage[i].begin() + static_cast<std::ptrdiff_t>(offset));
          const std::span<const std::uint8_t> m(storage[i].data() + offset, messages[i].size());
          const std::size_t a = below(rng, m.size() + 1);
          const std::size_t b = a + below(rng, m.size() - a + 1);
          jobs[i].parts[0] = m.first(a);
          jobs[i].parts[1] = m.subspan(a, b - a);
          jobs[i].parts[2] = m.subspan(b);
          jobs[i].out = outs[i];
        }
        std::vector<HmacJob*> pointers;
        pointers.reserve(num_jobs);
        for (HmacJob& j : jobs) {
          pointers.push_back(&j);
        }
        if (h.hash == HashAlgorithm::kSha1) {
          hmac_sha1_lanes(kernels, inner, outer, pointers.data(), num_jobs);
        } else {
          hmac_sha256_lanes(kernels, inner, outer, pointers.data(), num_jobs);
        }
        for (std::size_t i = 0; i < num_jobs; ++i) {
          const Bytes expected = reference_hmac(h, key, messages[i]);
          ASSERT_EQ(test::to_hex(outs[i]), test::to_hex({expected.data(), outs[i].size()}))
              << h.name << " plan " << plan_name << " round " << round << " job " << i << " of "
              << num_jobs << " len " << messages[i].size();
        }
      }
      EXPECT_GT(next_size, 300u);
    }
  }
}

// The sixteen-lane kernel against the single-lane one: random states, blocks at every
// alignment, and random active masks (inactive lanes must come back unchanged).
TEST(HmacLanes, SixteenLaneKernelEqualsSingleLane) {
  for (const HashCase& h : kHashes) {
    const ShaKernels::CompressX16 x16 = x16_kernel(h.hash);
    const HmacKernels table = hmac_kernels(native_sha_kernels(), h.hash);
    if (x16 == nullptr || table.compress == nullptr) {
      GTEST_SKIP() << "no sixteen-lane " << h.name << " kernel on this CPU";
    }
    std::mt19937_64 rng(kSeed + 16 + h.words);
    for (int round = 0; round < 500; ++round) {
      const Bytes data = random_bytes(rng, 16 * 64 + 64);
      const std::uint8_t* blocks[16];
      std::vector<std::uint32_t> state(16 * h.words);
      for (std::uint32_t& w : state) {
        w = static_cast<std::uint32_t>(rng());
      }
      std::vector<std::uint32_t> expected = state;
      const auto active = static_cast<std::uint32_t>(round == 0 ? 0xFFFF : rng() & 0xFFFF);
      for (std::size_t lane = 0; lane < 16; ++lane) {
        blocks[lane] = data.data() + below(rng, data.size() - 64 + 1);
        if ((active >> lane & 1) == 0) {
          continue;
        }
        std::uint32_t one[8];
        for (std::size_t w = 0; w < h.words; ++w) {
          one[w] = state[16 * w + lane];
        }
        table.compress(one, blocks[lane], 1);
        for (std::size_t w = 0; w < h.words; ++w) {
          expected[16 * w + lane] = one[w];
        }
      }
      x16(state.data(), blocks, active);
      ASSERT_EQ(state, expected) << h.name << " round " << round << " active " << active;
    }
  }
}

// The start-up choice: the table's name says which plan runs (wireseal bench and
// kernel_report() print it), the wide kernels are set exactly when the plan uses them, and
// WIRESEAL_HMAC_LANES overrides the choice.
TEST(HmacLanes, StartUpChoiceIsNamedAndOverridable) {
  const ShaKernels& table = native_sha_kernels();
  if (table.sha1 == nullptr) {
    GTEST_SKIP() << "no native SHA kernels on this CPU";
  }
  ASSERT_NE(table.lanes_name, nullptr);
  const bool sixteen = table.lanes == HmacLanes::kSixteen;
  EXPECT_EQ(sixteen, table.sha1_x16 != nullptr);
  EXPECT_EQ(sixteen, table.sha256_x16 != nullptr);
  const char* forced = std::getenv("WIRESEAL_HMAC_LANES");
  const std::string want = forced == nullptr ? "" : forced;
  if (want == "one") {
    EXPECT_EQ(table.lanes, HmacLanes::kOneByOne) << table.lanes_name;
  } else if (want == "x2") {
    EXPECT_EQ(table.lanes, HmacLanes::kPairs) << table.lanes_name;
  } else if (want == "x16" && x16_kernel(HashAlgorithm::kSha1) != nullptr) {
    EXPECT_TRUE(sixteen) << table.lanes_name;
  } else if (want.empty() && cpu::features().vendor == cpu::Vendor::kAmd) {
    EXPECT_EQ(table.lanes, HmacLanes::kPairs) << table.lanes_name;
  }
}

}  // namespace
}  // namespace wireseal::crypto::detail
