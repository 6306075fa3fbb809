// Multi-buffer HMAC: messages advance block by block in lockstep through the native
// compression kernels, then their outer hashes run together. The table's plan says how many:
// up to sixteen on the sixteen-lane kernels (x86 AVX-512), up to four two at a time on the
// interleaved ones (SHA-NI on AMD, ARMv8-CE), or one at a time. SHA-1 and SHA-256 share
// everything but the kernels, which the Hmac took from the table at construction, and the state
// size.
#include "hmac_lanes.h"

#include <algorithm>
#include <cstring>

#include "common/bytes.h"

namespace wireseal::crypto::detail {
namespace {

constexpr std::size_t kBlock = 64;

// BlockFeeder yields the SHA-1 blocks of parts[0] || parts[1] || parts[2] followed by the
// padding, for a hash whose first block (ipad) was already absorbed. Whole blocks inside one
// part are returned in place; blocks that straddle parts or hold the padding are assembled.
class BlockFeeder {
 public:
  BlockFeeder() noexcept = default;
  explicit BlockFeeder(const HmacJob& job) noexcept {
    std::size_t total = 0;
    for (const auto& p : job.parts) {
      parts_[num_parts_++] = p;
      total += p.size();
    }
    bit_length_ = static_cast<std::uint64_t>(kBlock + total) * 8;
    remaining_blocks_ = (total + 9 + kBlock - 1) / kBlock;
  }

  std::size_t remaining_blocks() const noexcept { return remaining_blocks_; }

  // whole_blocks returns the run of whole blocks that lie inside the current part (never the
  // padding, which only assembled blocks carry) and how many there are, and consumes them.
  const std::uint8_t* whole_blocks(std::size_t* count) noexcept {
    skip_empty();
    *count = 0;
    if (part_ >= num_parts_) {
      return nullptr;
    }
    const std::size_t k = (parts_[part_].size() - offset_) / kBlock;
    const std::uint8_t* p = parts_[part_].data() + offset_;
    offset_ += k * kBlock;
    remaining_blocks_ -= k;
    *count = k;
    return p;
  }

  // next returns the next block (valid until the following call).
  const std::uint8_t* next() noexcept {
    --remaining_blocks_;
    skip_empty();
    if (part_ < num_parts_ && parts_[part_].size() - offset_ >= kBlock) {
      const std::uint8_t* p = parts_[part_].data() + offset_;
      offset_ += kBlock;
      return p;
    }
    std::size_t filled = 0;
    while (filled < kBlock && part_ < num_parts_) {
      const std::size_t take = std::min(kBlock - filled, parts_[part_].size() - offset_);
      std::memcpy(buffer_ + filled, parts_[part_].data() + offset_, take);
      filled += take;
      offset_ += take;
      skip_empty();
    }
    if (filled < kBlock) {
      if (!pad_started_) {
        buffer_[filled++] = 0x80;
        pad_started_ = true;
      }
      std::memset(buffer_ + filled, 0, kBlock - filled);
      if (remaining_blocks_ == 0) {
        store_be64(buffer_ + kBlock - 8, bit_length_);
      }
    }
    return buffer_;
  }

 private:
  void skip_empty() noexcept {
    while (part_ < num_parts_ && offset_ == parts_[part_].size()) {
      ++part_;
      offset_ = 0;
    }
  }

  std::span<const std::uint8_t> parts_[3];
  std::size_t num_parts_ = 0;
  std::size_t part_ = 0;
  std::size_t offset_ = 0;
  std::uint64_t bit_length_ = 0;
  std::size_t remaining_blocks_ = 0;
  bool pad_started_ = false;
  alignas(16) std::uint8_t buffer_[kBlock];
};

// The chaining value's size in 32-bit words, per hash.
struct Sha1 {
  static constexpr std::size_t kWords = 5;
  static constexpr std::size_t kWideMinLanes = 7;  // see run_lanes
};

struct Sha256 {
  static constexpr std::size_t kWords = 8;
  static constexpr std::size_t kWideMinLanes = 14;
};

// outer_block builds the single block of the outer hash: digest || padding || length.
template <class Hash>
void outer_block(const std::uint32_t* digest, std::uint8_t* block) noexcept {
  for (std::size_t i = 0; i < Hash::kWords; ++i) {
    store_be32(block + 4 * i, digest[i]);
  }
  finish_outer_block(block, 4 * Hash::kWords);
}

// compress_group compresses one block for each of `n` (1..4) lanes, two lanes at a time: two
// interleaved SHA-NI chains hide most of SHA1RNDS4's latency, while four need more than the
// sixteen XMM registers and spill (measured: 4 lanes ~1.1x, 2 lanes ~1.9x over one).
void compress_group(const HmacKernels& k, std::uint32_t* const* states,
                    const std::uint8_t* const* blocks, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    k.compress_x2(states + i, blocks + i);
  }
  if (i < n) {
    k.compress(states[i], blocks[i], 1);
  }
}

// finish_lanes runs the n inner states' outer hashes and writes each job's MAC.
template <class Hash>
void finish_lanes(const HmacKernels& k, const std::uint32_t* outer,
                  std::uint32_t (*state)[Hash::kWords], HmacJob* const* jobs,
                  std::size_t n) noexcept {
  constexpr std::size_t kWords = Hash::kWords;
  constexpr std::size_t kLanes = 4;
  alignas(16) std::uint8_t outer_blocks[kLanes][kBlock];
  std::uint32_t* states[kLanes] = {};
  const std::uint8_t* blocks[kLanes] = {};
  for (std::size_t i = 0; i < n; ++i) {
    outer_block<Hash>(state[i], outer_blocks[i]);
    std::memcpy(state[i], outer, sizeof(state[i]));
    states[i] = state[i];
    blocks[i] = outer_blocks[i];
  }
  compress_group(k, states, blocks, n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t mac[4 * kWords];
    for (std::size_t w = 0; w < kWords; ++w) {
      store_be32(mac + 4 * w, state[i][w]);
    }
    std::memcpy(jobs[i]->out.data(), mac, jobs[i]->out.size());
  }
}

// one_message hashes one job: runs of whole blocks straight from its parts (one call each, to
// the hook if there is one), then the assembled boundary and padding blocks.
template <class Hash>
void one_message(const HmacKernels& k, const std::uint32_t* inner, const std::uint32_t* outer,
                 HmacJob& job, BlockRunHook hook = {}) noexcept {
  std::uint32_t state[1][Hash::kWords];
  std::memcpy(state[0], inner, sizeof(state[0]));
  BlockFeeder f(job);
  while (f.remaining_blocks() != 0) {
    std::size_t count = 0;
    const std::uint8_t* run = f.whole_blocks(&count);
    if (count != 0 && hook.run != nullptr) {
      hook.run(hook.context, state[0], run, count);
    } else if (count != 0) {
      k.compress(state[0], run, count);
    } else {
      k.compress(state[0], f.next(), 1);
    }
  }
  HmacJob* one = &job;
  finish_lanes<Hash>(k, outer, state, &one, 1);
}

// run_group hashes up to four jobs block by block in lockstep.
template <class Hash>
void run_group(const HmacKernels& k, const std::uint32_t* inner, const std::uint32_t* outer,
               HmacJob* const* jobs, std::size_t n) noexcept {
  if (n == 1) {
    one_message<Hash>(k, inner, outer, *jobs[0]);
    return;
  }
  constexpr std::size_t kWords = Hash::kWords;
  constexpr std::size_t kLanes = 4;
  BlockFeeder feeders[kLanes] = {BlockFeeder(*jobs[0]), BlockFeeder(*jobs[1]),
                                 BlockFeeder(*jobs[std::min<std::size_t>(2, n - 1)]),
                                 BlockFeeder(*jobs[std::min<std::size_t>(3, n - 1)])};
  std::uint32_t state[kLanes][kWords];
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(state[i], inner, sizeof(state[i]));
  }
  for (;;) {
    std::uint32_t* states[kLanes] = {};
    const std::uint8_t* blocks[kLanes] = {};
    std::size_t active = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (feeders[i].remaining_blocks() != 0) {
        states[active] = state[i];
        blocks[active] = feeders[i].next();
        ++active;
      }
    }
    if (active == 0) {
      break;
    }
    compress_group(k, states, blocks, active);
  }
  finish_lanes<Hash>(k, outer, state, jobs, n);
}

// run_lanes gives the sixteen-lane kernels a group only when it fills enough lanes to beat the
// single-lane kernel run message by message: a wide call costs the same for one message as for
// sixteen. Measured on Zen 5 (AVX-512 and SHA-NI): a sixteen-lane block took 14 ns for SHA-1
// and 31 ns for SHA-256 per lane, a SHA-NI block 35 and 38 ns, so break-even is at about 6.4
// and 13 messages. Smaller groups run one at a time.
// WideCursor walks one lane's message: through its current run of whole in-place blocks by
// pointer, asking the feeder only at a run's end (per-block feeder calls for sixteen lanes
// measured a sixth of the hashing).
struct WideCursor {
  BlockFeeder feeder;
  const std::uint8_t* run = nullptr;
  std::size_t run_left = 0;

  // next returns the next block, or null once the message (padding included) is done.
  const std::uint8_t* next() noexcept {
    if (run_left == 0) {
      if (feeder.remaining_blocks() == 0) {
        return nullptr;
      }
      run = feeder.whole_blocks(&run_left);
      if (run_left == 0) {
        return feeder.next();
      }
    }
    const std::uint8_t* block = run;
    run += kBlock;
    --run_left;
    return block;
  }
};

// run_wide hashes n (1..16) messages in the sixteen lanes. The state is word-major, as the
// kernel takes it; a lane whose message has ended reads a zero block and is left unchanged.
template <class Hash>
void run_wide(const HmacKernels& k, const std::uint32_t* inner, const std::uint32_t* outer,
              HmacJob* const* jobs, std::size_t n) noexcept {
  constexpr std::size_t kWords = Hash::kWords;
  constexpr std::size_t kLanes = 16;
  alignas(64) static constexpr std::uint8_t kIdle[kBlock] = {};
  alignas(64) std::uint32_t state[kWords * kLanes];
  for (std::size_t w = 0; w < kWords; ++w) {
    std::fill_n(state + kLanes * w, kLanes, inner[w]);
  }
  const std::uint8_t* blocks[kLanes];
  std::fill_n(blocks, kLanes, kIdle);
  WideCursor cursors[kLanes];
  for (std::size_t i = 0; i < n; ++i) {
    cursors[i].feeder = BlockFeeder(*jobs[i]);
  }
  for (;;) {
    std::uint32_t active = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t* block = cursors[i].next();
      blocks[i] = block != nullptr ? block : kIdle;
      active |= static_cast<std::uint32_t>(block != nullptr) << i;
    }
    if (active == 0) {
      break;
    }
    k.compress_x16(state, blocks, active);
  }
  alignas(64) std::uint8_t outer_blocks[kLanes][kBlock];
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t digest[kWords];
    for (std::size_t w = 0; w < kWords; ++w) {
      digest[w] = state[kLanes * w + i];
    }
    outer_block<Hash>(digest, outer_blocks[i]);
    blocks[i] = outer_blocks[i];
  }
  for (std::size_t w = 0; w < kWords; ++w) {
    std::fill_n(state + kLanes * w, kLanes, outer[w]);
  }
  k.compress_x16(state, blocks, (1U << n) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t mac[4 * kWords];
    for (std::size_t w = 0; w < kWords; ++w) {
      store_be32(mac + 4 * w, state[kLanes * w + i]);
    }
    std::memcpy(jobs[i]->out.data(), mac, jobs[i]->out.size());
  }
}

// run_lanes spreads the jobs over the kernels by the table's plan.
template <class Hash>
void run_lanes(const HmacKernels& k, const std::uint32_t* inner, const std::uint32_t* outer,
               HmacJob* const* jobs, std::size_t num_jobs) noexcept {
  std::size_t i = 0;
  if (k.lanes == HmacLanes::kSixteen) {
    for (; num_jobs - i >= Hash::kWideMinLanes; i += std::min<std::size_t>(16, num_jobs - i)) {
      run_wide<Hash>(k, inner, outer, jobs + i, std::min<std::size_t>(16, num_jobs - i));
    }
  }
  const std::size_t group = k.lanes == HmacLanes::kPairs ? 4 : 1;
  for (; i < num_jobs; i += group) {
    run_group<Hash>(k, inner, outer, jobs + i, std::min(group, num_jobs - i));
  }
}

// short_message: one inner block (message, 0x80, zeros, bit length) and one outer block.
template <class Hash>
void short_message(ShaKernels::Compress compress, const std::uint32_t* inner,
                   const std::uint32_t* outer, std::span<const std::uint8_t> message,
                   std::span<std::uint8_t> out) noexcept {
  constexpr std::size_t kWords = Hash::kWords;
  alignas(16) std::uint8_t block[kBlock];
  if (!message.empty()) {
    std::memcpy(block, message.data(), message.size());
  }
  block[message.size()] = 0x80;
  std::memset(block + message.size() + 1, 0, kBlock - 8 - message.size() - 1);
  store_be64(block + kBlock - 8, (kBlock + message.size()) * 8);
  std::uint32_t state[kWords];
  std::memcpy(state, inner, sizeof(state));
  compress(state, block, 1);
  outer_block<Hash>(state, block);
  std::memcpy(state, outer, sizeof(state));
  compress(state, block, 1);
  std::uint8_t mac[4 * kWords];
  for (std::size_t w = 0; w < kWords; ++w) {
    store_be32(mac + 4 * w, state[w]);
  }
  std::memcpy(out.data(), mac, out.size());
}

}  // namespace

void hmac_sha1_short(ShaKernels::Compress sha1, const std::uint32_t inner[5],
                     const std::uint32_t outer[5], std::span<const std::uint8_t> message,
                     std::span<std::uint8_t> out) noexcept {
  short_message<Sha1>(sha1, inner, outer, message, out);
}

void hmac_sha256_short(ShaKernels::Compress sha256, const std::uint32_t inner[8],
                       const std::uint32_t outer[8], std::span<const std::uint8_t> message,
                       std::span<std::uint8_t> out) noexcept {
  short_message<Sha256>(sha256, inner, outer, message, out);
}

HmacKernels hmac_kernels(const ShaKernels& table, HashAlgorithm hash) noexcept {
  if (hash == HashAlgorithm::kSha1) {
    return {table.sha1, table.sha1_x2, table.sha1_x16, table.lanes};
  }
  return {table.sha256, table.sha256_x2, table.sha256_x16, table.lanes};
}

void hmac_sha1_lanes(const HmacKernels& sha1, const std::uint32_t inner[5],
                     const std::uint32_t outer[5], HmacJob* const* jobs,
                     std::size_t num_jobs) noexcept {
  run_lanes<Sha1>(sha1, inner, outer, jobs, num_jobs);
}

void hmac_sha256_lanes(const HmacKernels& sha256, const std::uint32_t inner[8],
                       const std::uint32_t outer[8], HmacJob* const* jobs,
                       std::size_t num_jobs) noexcept {
  run_lanes<Sha256>(sha256, inner, outer, jobs, num_jobs);
}

void hmac_sha1_one(const HmacKernels& sha1, const std::uint32_t inner[5],
                   const std::uint32_t outer[5], HmacJob& job, BlockRunHook hook) noexcept {
  one_message<Sha1>(sha1, inner, outer, job, hook);
}

void hmac_sha256_one(const HmacKernels& sha256, const std::uint32_t inner[8],
                     const std::uint32_t outer[8], HmacJob& job, BlockRunHook hook) noexcept {
  one_message<Sha256>(sha256, inner, outer, job, hook);
}

void finish_outer_block(std::uint8_t block[64], std::size_t digest_len) noexcept {
  block[digest_len] = 0x80;
  std::memset(block + digest_len + 1, 0, kBlock - digest_len - 1 - 8);
  store_be64(block + kBlock - 8, (kBlock + digest_len) * 8);
}

}  // namespace wireseal::crypto::detail
