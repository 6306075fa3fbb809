// HMAC from precomputed inner/outer states over OpenSSL's low-level SHA contexts
// (hash_state.h): a saved state is copied by value onto the stack for each message, so there
// are zero allocations, and OpenSSL's or wireseal's SHA-NI compression functions do the work.
#include "wireseal/crypto/hmac.h"

#include <algorithm>
#include <cstring>

#include "backend/interfaces.h"
#include "backend/native.h"
#include "common/bytes.h"
#include "common/ct.h"
#include "hash_state.h"
#include "hmac_lanes.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::crypto {
namespace {

using detail::as;
using detail::hash_final;
using detail::hash_init;
using detail::hash_update;

// Chain is the chaining value of SHA-1 or SHA-2 as 64-bit words (SHA-1 and SHA-256 use the
// low 32 bits of the first 5 or 8).
struct Chain {
  std::uint64_t w[8] = {};
};

std::size_t chain_words(HashAlgorithm hash) noexcept {
  return hash == HashAlgorithm::kSha1 ? 5 : 8;
}

Chain chain_of(HashAlgorithm hash, const HashState& s) noexcept {
  Chain c;
  switch (hash) {
    case HashAlgorithm::kSha1: {
      const SHA_CTX* x = as<SHA_CTX>(s);
      const std::uint32_t h[5] = {x->h0, x->h1, x->h2, x->h3, x->h4};
      std::copy(h, h + 5, c.w);
      break;
    }
    case HashAlgorithm::kSha224:
    case HashAlgorithm::kSha256:
      std::copy(as<SHA256_CTX>(s)->h, as<SHA256_CTX>(s)->h + 8, c.w);
      break;
    case HashAlgorithm::kSha384:
    case HashAlgorithm::kSha512:
      std::copy(as<SHA512_CTX>(s)->h, as<SHA512_CTX>(s)->h + 8, c.w);
      break;
  }
  return c;
}

}  // namespace

Primitive hmac_primitive(HashAlgorithm hash) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      return Primitive::kHmacSha1;
    case HashAlgorithm::kSha224:
      return Primitive::kHmacSha224;
    case HashAlgorithm::kSha256:
      return Primitive::kHmacSha256;
    case HashAlgorithm::kSha384:
      return Primitive::kHmacSha384;
    case HashAlgorithm::kSha512:
      return Primitive::kHmacSha512;
  }
  return Primitive::kHmacSha512;
}

namespace detail {
bool hmac_uses_native_sha() noexcept {
  return resolve(Primitive::kHmacSha1, Backend::kAuto) == Backend::kNative;
}
}  // namespace detail

// kAuto is always available, so resolving it never throws.
Hmac::Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key) noexcept
    : Hmac(hash, key, Resolved{resolve(hmac_primitive(hash), Backend::kAuto)}) {}

Hmac::Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key, Backend backend)
    : Hmac(hash, key, Resolved{resolve(hmac_primitive(hash), backend)}) {}

Hmac::Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key, Resolved backend) noexcept
    : hash_(hash), backend_(backend.backend) {
  const std::size_t block = block_length(hash);
  std::uint8_t padded[128] = {};
  if (key.size() > block) {
    HashState s;
    hash_init(hash, s);
    hash_update(hash, s, key.data(), key.size());
    hash_final(hash, s, padded);
    wireseal::detail::secure_wipe(&s, sizeof(s));
  } else if (!key.empty()) {
    std::memcpy(padded, key.data(), key.size());
  }
  std::uint8_t pad[128];
  for (std::size_t i = 0; i < block; ++i) {
    pad[i] = static_cast<std::uint8_t>(padded[i] ^ 0x36);
  }
  hash_init(hash, inner_);
  hash_update(hash, inner_, pad, block);
  for (std::size_t i = 0; i < block; ++i) {
    pad[i] = static_cast<std::uint8_t>(padded[i] ^ 0x5c);
  }
  hash_init(hash, outer_);
  hash_update(hash, outer_, pad, block);
  wireseal::detail::secure_wipe(padded, sizeof(padded));
  wireseal::detail::secure_wipe(pad, sizeof(pad));
  // The saved SHA contexts after the ipad/opad block hold exactly the chaining values that the
  // native kernels start from. resolve() made kNative available, i.e. the table holds this
  // hash's kernels (SHA-1 and SHA-256 only).
  if (backend_ == Backend::kNative) {
    compress_ = detail::hmac_kernels(detail::native_sha_kernels(), hash).compress;
    Chain in = chain_of(hash, inner_);
    Chain out = chain_of(hash, outer_);
    for (std::size_t i = 0; i < chain_words(hash); ++i) {
      inner_chain_[i] = static_cast<std::uint32_t>(in.w[i]);
      outer_chain_[i] = static_cast<std::uint32_t>(out.w[i]);
    }
    wireseal::detail::secure_wipe(&in, sizeof(in));
    wireseal::detail::secure_wipe(&out, sizeof(out));
  }
}

Hmac::~Hmac() {
  wireseal::detail::secure_wipe(&inner_, sizeof(inner_));
  wireseal::detail::secure_wipe(&outer_, sizeof(outer_));
  wireseal::detail::secure_wipe(inner_chain_, sizeof(inner_chain_));
  wireseal::detail::secure_wipe(outer_chain_, sizeof(outer_chain_));
  // The kernel pointers are not secret, but clearing them leaves nothing of a destroyed Hmac
  // but its two enum bytes, which is what the wipe test checks a stale object against.
  wireseal::detail::secure_wipe(&compress_, sizeof(compress_));
}

Hmac::Stream::Stream(const Hmac& hmac) noexcept : hmac_(&hmac), inner_(hmac.inner_) {}

void Hmac::Stream::update(std::span<const std::uint8_t> data) noexcept {
  if (!data.empty()) {
    hash_update(hmac_->hash_, inner_, data.data(), data.size());
  }
}

Status Hmac::Stream::finish(std::span<std::uint8_t> out) noexcept {
  const HashAlgorithm hash = hmac_->hash_;
  const std::size_t digest_len = digest_length(hash);
  if (out.empty() || out.size() > digest_len) {
    return Error::kInvalidArgument;
  }
  std::uint8_t digest[kMaxDigestLength];
  hash_final(hash, inner_, digest);
  HashState outer = hmac_->outer_;
  hash_update(hash, outer, digest, digest_len);
  hash_final(hash, outer, digest);
  std::memcpy(out.data(), digest, out.size());
  wireseal::detail::wipe_small(digest, sizeof(digest));
  return {};
}

Status Hmac::compute(std::span<const std::uint8_t> message,
                     std::span<std::uint8_t> out) const noexcept {
  if (compress_ != nullptr) {
    if (out.empty() || out.size() > digest_len()) {
      return Error::kInvalidArgument;
    }
    if (message.size() <= detail::kHmacShortMax) {
      if (hash_ == HashAlgorithm::kSha1) {
        detail::hmac_sha1_short(compress_, inner_chain_, outer_chain_, message, out);
      } else {
        detail::hmac_sha256_short(compress_, inner_chain_, outer_chain_, message, out);
      }
      return {};
    }
    HmacJob job{{message, {}, {}}, out, {}};
    HmacJob* one = &job;
    compute_lanes(&one, 1);
    return {};
  }
  Stream s = begin();
  s.update(message);
  return s.finish(out);
}

void Hmac::compute_lanes(HmacJob* const* jobs, std::size_t num_jobs) const noexcept {
  const detail::HmacKernels kernels = detail::hmac_kernels(detail::native_sha_kernels(), hash_);
  if (hash_ == HashAlgorithm::kSha1) {
    detail::hmac_sha1_lanes(kernels, inner_chain_, outer_chain_, jobs, num_jobs);
  } else {
    detail::hmac_sha256_lanes(kernels, inner_chain_, outer_chain_, jobs, num_jobs);
  }
}

void Hmac::compute_batch(std::span<HmacJob> jobs) const noexcept {
  const std::size_t digest = digest_len();
  HmacJob* lanes[16];
  std::size_t count = 0;
  for (HmacJob& job : jobs) {
    if (job.out.empty() || job.out.size() > digest) {
      job.status = Error::kInvalidArgument;
      continue;
    }
    job.status = {};
    if (compress_ == nullptr) {
      Stream s = begin();
      for (const auto& part : job.parts) {
        s.update(part);
      }
      (void)s.finish(job.out);
      continue;
    }
    lanes[count++] = &job;
    if (count == 16) {
      compute_lanes(lanes, count);
      count = 0;
    }
  }
  if (count != 0) {
    compute_lanes(lanes, count);
  }
}

namespace {

// sha1_compress_openssl and sha256_compress_openssl are OpenSSL's compression functions in the
// native kernels' form (32-bit chaining words), for CPUs without a native kernel: every
// 64-byte-block hash then runs through one interface, so the constant-time MAC's masked loop
// is the same code whichever compression runs under it (and it is what the valgrind check,
// which hides SHA-NI, runs).
void sha1_compress_openssl(std::uint32_t* h, const std::uint8_t* blocks, std::size_t n) noexcept {
  SHA_CTX x{};
  x.h0 = h[0];
  x.h1 = h[1];
  x.h2 = h[2];
  x.h3 = h[3];
  x.h4 = h[4];
  for (std::size_t i = 0; i < n; ++i) {
    SHA1_Transform(&x, blocks + 64 * i);
  }
  const std::uint32_t out[5] = {x.h0, x.h1, x.h2, x.h3, x.h4};
  std::copy(out, out + 5, h);
  wireseal::detail::wipe_small(&x, sizeof(x));
}

void sha256_compress_openssl(std::uint32_t* h, const std::uint8_t* blocks, std::size_t n) noexcept {
  SHA256_CTX x{};
  std::copy(h, h + 8, x.h);
  for (std::size_t i = 0; i < n; ++i) {
    SHA256_Transform(&x, blocks + 64 * i);
  }
  std::copy(x.h, x.h + 8, h);
  wireseal::detail::wipe_small(&x, sizeof(x));
}

// compress_64 is the compression of a 64-byte-block hash (SHA-1, SHA-224, SHA-256) in that
// form: the native kernel when there is one, else OpenSSL's.
detail::ShaKernels::Compress compress_64(HashAlgorithm hash,
                                         detail::ShaKernels::Compress native) noexcept {
  if (native != nullptr) {
    return native;
  }
  return hash == HashAlgorithm::kSha1 ? sha1_compress_openssl : sha256_compress_openssl;
}

// compress runs `n` whole blocks through the compression function of `hash`: the native
// kernel `native` (SHA-1 or SHA-256, from the kernel table) when set, else OpenSSL's (both
// branch-free in the data).
void compress(HashAlgorithm hash, detail::ShaKernels::Compress native, Chain& c,
              const std::uint8_t* blocks, std::size_t n) noexcept {
  if (n == 0) {
    return;
  }
  if (block_length(hash) == 128) {
    SHA512_CTX x{};
    std::copy(c.w, c.w + 8, x.h);
    for (std::size_t i = 0; i < n; ++i) {
      SHA512_Transform(&x, blocks + 128 * i);
    }
    std::copy(x.h, x.h + 8, c.w);
    return;
  }
  const std::size_t words = chain_words(hash);
  std::uint32_t h[8];
  for (std::size_t w = 0; w < words; ++w) {
    h[w] = static_cast<std::uint32_t>(c.w[w]);
  }
  compress_64(hash, native)(h, blocks, n);
  std::copy(h, h + words, c.w);
}

// digest_of writes the big-endian chaining value to `out`, which holds kMaxDigestLength bytes:
// 32 bytes for the 64-byte-block hashes, 64 for SHA-384/512, the digest being the first
// digest_length(hash) of them (SHA-224 and SHA-384 truncate, and SHA-1's value is five words
// and zeros). Whole words straight into `out`: copying a digest of a run-time length was a
// library call, twice a record.
void digest_of(HashAlgorithm hash, const Chain& c, std::uint8_t* out) noexcept {
  if (block_length(hash) == 128) {
    for (std::size_t w = 0; w < 8; ++w) {
      store_be64(out + 8 * w, c.w[w]);
    }
  } else {
    for (std::size_t w = 0; w < 8; ++w) {
      store_be32(out + 4 * w, static_cast<std::uint32_t>(c.w[w]));
    }
  }
}

// gather copies bytes [base, base + n) of header || data into out, zeros past the end.
void gather(std::span<const std::uint8_t> header, std::span<const std::uint8_t> data,
            std::size_t base, std::size_t n, std::uint8_t* out) noexcept {
  std::memset(out, 0, n);
  const std::size_t end = base + n;
  if (base < header.size()) {
    const std::size_t stop = std::min(end, header.size());
    std::memcpy(out, header.data() + base, stop - base);
  }
  const std::size_t lo = std::max(base, header.size());
  const std::size_t hi = std::min(end, header.size() + data.size());
  if (lo < hi) {
    std::memcpy(out + (lo - base), data.data() + (lo - header.size()), hi - lo);
  }
}

// mask_message_end keeps byte j of `buf` when j + 1 < end, makes it 0x80 when j + 1 == end and
// zero after: end (secret, at most block + 1) is where the message stops in this block, plus
// one. The masks are common/ct.h's narrowest forms that hold block + 1, so the loop vectorises
// to whole vector steps (16 bytes a 128-bit step for 64-byte blocks, eight for 128-byte ones);
// byte by byte, and even in 32-bit lanes, it was most of the constant-time MAC's cost over
// the 256-byte padding window.
template <std::size_t Block>
[[gnu::always_inline]] inline void mask_message_end(std::uint8_t* buf, std::uint32_t end) noexcept {
  using wireseal::detail::ct_mask_eq_u16;
  using wireseal::detail::ct_mask_eq_u8;
  using wireseal::detail::ct_mask_lt_u16;
  using wireseal::detail::ct_mask_lt_u8;
  for (std::size_t j = 0; j < Block; ++j) {
    std::uint8_t in_message;
    std::uint8_t at_end;
    if constexpr (Block < 127) {
      const auto position = static_cast<std::uint8_t>(j + 1);
      const auto e = static_cast<std::uint8_t>(end);
      in_message = ct_mask_lt_u8(position, e);
      at_end = ct_mask_eq_u8(position, e);
    } else {
      const auto position = static_cast<std::uint16_t>(j + 1);
      const auto e = static_cast<std::uint16_t>(end);
      in_message = static_cast<std::uint8_t>(ct_mask_lt_u16(position, e));
      at_end = static_cast<std::uint8_t>(ct_mask_eq_u16(position, e));
    }
    buf[j] = static_cast<std::uint8_t>((buf[j] & in_message) | (0x80 & at_end));
  }
}

// PaddedInner is compute_secret_length's inner message after the key's ipad block:
//
//     header || data[0, secret_len) || 0x80 || zeros || bit length (8 or 16 bytes)
//     |<------------ m = header.size() + secret_len ---------->|
//
// with the secret m, the secret index of its final block, and the bit length's last eight
// bytes (the higher ones of SHA-384/512's 16-byte field are zero).
struct PaddedInner {
  std::span<const std::uint8_t> header;
  std::span<const std::uint8_t> data;
  std::size_t m;            // secret
  std::size_t final_block;  // secret
  std::uint8_t length_bytes[8];
};

// prepare_block fills buf with block `index` of the padded inner message from public positions,
// masked: message bytes before the message's end, 0x80 at it, zeros after, and the length in
// the last bytes of the final block. Returns 0xff for the final block, else 0.
// (Inline, so that it is compiled for the vector clone that calls it.)
template <std::size_t Block>
[[gnu::always_inline]] inline std::uint8_t prepare_block(const PaddedInner& p, std::size_t index,
                                                         std::uint8_t* buf) noexcept {
  using wireseal::detail::ct_mask_eq;
  using wireseal::detail::ct_mask_lt;
  using wireseal::detail::ct_select;
  const std::size_t base = index * Block;
  const std::size_t header_len = p.header.size();
  if (base >= header_len && base - header_len + Block <= p.data.size()) {
    std::memcpy(buf, p.data.data() + (base - header_len), Block);  // most blocks: one copy
  } else {
    gather(p.header, p.data, base, Block, buf);
  }
  // end = m - base clamped to [0, Block + 1] and shifted by one, so that it is never
  // negative: byte j is message when j + 1 < end, the 0x80 byte when j + 1 == end.
  const std::size_t before = ct_mask_lt(p.m, base);
  const std::size_t past = ct_mask_lt(base + Block, p.m + 1);
  const auto end =
      static_cast<std::uint32_t>(ct_select(before, 0, ct_select(past, Block + 1, p.m - base + 1)));
  mask_message_end<Block>(buf, end);
  const auto is_final =
      static_cast<std::uint8_t>(ct_mask_eq(wireseal::detail::value_barrier(index), p.final_block));
  for (std::size_t j = 0; j < 8; ++j) {
    buf[Block - 8 + j] =
        static_cast<std::uint8_t>(buf[Block - 8 + j] | (p.length_bytes[j] & is_final));
  }
  return is_final;
}

// BlockKernels compress 64-byte blocks for one hash (SHA-1, SHA-224, SHA-256): `keep`, when
// set, compresses several blocks and keeps the state after a masked one without leaving the
// kernel.
struct BlockKernels {
  detail::ShaKernels::Compress compress;
  detail::ShaKernels::CompressKeep keep;  // or null
  std::size_t words;                      // of the chaining value: 5 or 8
};

// hash_masked_blocks runs blocks [first, last] of the padded inner message (64-byte blocks)
// through `k` from chaining value h and ORs the chaining value after the final block
// into `kept` (zero on entry). The chain stays in its 32-bit words: converting to and from
// Chain around every block stalled on store forwarding. Blocks are built ahead, up to eight
// at a time, and with a `keep` kernel hashed in one call whose state stays in registers
// (block by block, each call's state round trip cost about a fifth of the compression). One
// call per record, so that the AVX2 clone's vector masks cost one dispatch.
WS_CT_VECTOR_CLONES
void hash_masked_blocks(const BlockKernels& k, const PaddedInner& p, std::size_t first,
                        std::size_t last, std::uint32_t* h, std::uint32_t* kept) noexcept {
  constexpr std::size_t kAhead = 8;
  alignas(16) std::uint8_t blocks[kAhead * 64];
  std::uint32_t keep[kAhead];
  std::size_t built = 0;  // how much of `blocks` to wipe
  for (std::size_t i = first; i <= last;) {
    const std::size_t n = std::min(kAhead, last - i + 1);
    for (std::size_t b = 0; b < n; ++b) {
      keep[b] = 0u - (prepare_block<64>(p, i + b, blocks + 64 * b) & 1u);
    }
    if (k.keep != nullptr) {
      k.keep(h, blocks, n, keep, kept);
    } else {
      for (std::size_t b = 0; b < n; ++b) {
        k.compress(h, blocks + 64 * b, 1);
        for (std::size_t w = 0; w < k.words; ++w) {
          kept[w] |= h[w] & keep[b];
        }
      }
    }
    built = std::max(built, n);
    i += n;
  }
  wireseal::detail::wipe_small(blocks, 64 * built);
}

// outer_digest finishes HMAC from the inner hash's final chaining value: the outer hash of
// opad-block || inner digest. With a native kernel that is one compression of a block built
// here (the inner digest, then finish_outer_block); else OpenSSL's.
void outer_digest(HashAlgorithm hash, detail::ShaKernels::Compress native, const HashState& outer,
                  const Chain& outer_chain, const Chain& inner_final,
                  std::uint8_t* digest) noexcept {
  const std::size_t len = digest_length(hash);
  digest_of(hash, inner_final, digest);
  if (native == nullptr) {
    HashState o = outer;
    hash_update(hash, o, digest, len);
    hash_final(hash, o, digest);
    return;
  }
  alignas(16) std::uint8_t block[64];
  std::memcpy(block, digest, 32);  // the whole value; finish_outer_block writes from len on
  detail::finish_outer_block(block, len);
  Chain c = outer_chain;
  compress(hash, native, c, block, 1);
  digest_of(hash, c, digest);
  wireseal::detail::wipe_small(block, sizeof(block));
  wireseal::detail::wipe_small(&c, sizeof(c));
}

}  // namespace

// Blocks wholly before header.size() + min_len hold message bytes whatever secret_len is:
// they are hashed as they are. Every later block up to the last one the longest message
// could need is built with masks (message byte, 0x80, zero, or length byte; see PaddedInner)
// and hashed too; the chaining value after the block that really is final is kept by mask.
void Hmac::compute_secret_length(std::span<const std::uint8_t> header,
                                 std::span<const std::uint8_t> data, std::size_t secret_len,
                                 std::size_t min_len, std::span<std::uint8_t> out) const noexcept {
  const std::size_t block = block_length(hash_);
  const std::size_t length_field = block == 128 ? 16 : 8;
  const std::size_t header_len = header.size();
  const std::size_t total = header_len + data.size();  // public: the longest message
  const auto blocks_for = [&](std::size_t len) { return (len + length_field + block) / block; };
  PaddedInner p{header, data, header_len + secret_len, 0, {}};
  p.final_block = blocks_for(p.m) - 1;
  const std::size_t first_variable = (header_len + min_len) / block;
  const std::size_t last_possible = blocks_for(total) - 1;

  Chain chain = chain_of(hash_, inner_);
  std::uint8_t buf[128];
  // The fixed prefix: blocks that touch the header are gathered, the rest hashed in place.
  std::size_t i = 0;
  for (; i < first_variable && i * block < header_len; ++i) {
    gather(header, data, i * block, block, buf);
    compress(hash_, compress_, chain, buf, 1);
  }
  if (i < first_variable) {
    compress(hash_, compress_, chain, data.data() + (i * block - header_len), first_variable - i);
    i = first_variable;
  }

  // The bit length of the inner message, ipad block included, big-endian in the last bytes.
  const std::uint64_t bits = (std::uint64_t{block} + p.m) * 8;
  for (std::size_t j = 0; j < 8; ++j) {
    p.length_bytes[j] = static_cast<std::uint8_t>(bits >> (56 - 8 * j));
  }
  Chain final_chain;
  const std::size_t words = chain_words(hash_);
  if (block == 64) {
    const detail::ShaKernels& table = detail::native_sha_kernels();
    const bool sha1 = hash_ == HashAlgorithm::kSha1;
    const detail::ShaKernels::CompressKeep keep = compress_ == nullptr ? nullptr
                                                  : sha1               ? table.sha1_keep
                                                                       : table.sha256_keep;
    const BlockKernels kernels{compress_64(hash_, compress_), keep, words};
    std::uint32_t h[8];
    std::uint32_t kept[8] = {};
    for (std::size_t w = 0; w < words; ++w) {
      h[w] = static_cast<std::uint32_t>(chain.w[w]);
    }
    hash_masked_blocks(kernels, p, i, last_possible, h, kept);
    for (std::size_t w = 0; w < words; ++w) {
      final_chain.w[w] = kept[w];
    }
    wireseal::detail::wipe_small(h, sizeof(h));
    wireseal::detail::wipe_small(kept, sizeof(kept));
  } else {
    for (; i <= last_possible; ++i) {  // SHA-384 / SHA-512: 128-byte blocks, OpenSSL's
      const std::uint8_t is_final = prepare_block<128>(p, i, buf);
      compress(hash_, compress_, chain, buf, 1);
      const std::uint64_t keep = std::uint64_t{0} - (is_final & 1u);
      for (std::size_t w = 0; w < words; ++w) {
        final_chain.w[w] |= chain.w[w] & keep;
      }
    }
  }

  std::uint8_t digest[kMaxDigestLength];
  outer_digest(hash_, compress_, outer_, chain_of(hash_, outer_), final_chain, digest);
  std::memcpy(out.data(), digest, digest_len());
  wireseal::detail::wipe_small(digest, sizeof(digest));
  wireseal::detail::wipe_small(buf, sizeof(buf));
  wireseal::detail::wipe_small(&chain, sizeof(chain));
  wireseal::detail::wipe_small(&final_chain, sizeof(final_chain));
}

bool Hmac::verify(std::span<const std::uint8_t> message,
                  std::span<const std::uint8_t> tag) const noexcept {
  if (tag.empty() || tag.size() > digest_len()) {
    return false;
  }
  std::uint8_t mac[kMaxDigestLength];
  if (!compute(message, std::span<std::uint8_t>(mac, tag.size()))) {
    return false;
  }
  return wireseal::detail::tag_matches(std::span<const std::uint8_t>(mac, tag.size()), tag);
}

}  // namespace wireseal::crypto
