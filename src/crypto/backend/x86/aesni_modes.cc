// Native AES-CTR, AES-CBC and AES-CMAC with AES-NI.
//
// CTR and CBC-decrypt keep eight blocks in flight, enough to cover AESENC's latency on current
// cores; CBC-encrypt and CMAC are serial by definition and run one block at a time.
#include <cstring>
#include <stdexcept>
#include <utility>

#include "backend/native.h"
#include "backend/portable/counter128.h"
#include "backend/x86/aesni.h"
#include "backend/x86/aesni_objects.h"
#include "backend/x86/cbc_sha_ni.h"
#include "backend/x86/vaes512_cbc.h"
#include "backend/x86/vaes_cbc.h"
#include "backend/x86/vaes_ctr.h"

namespace wireseal::crypto::detail {
namespace {

using namespace aesni;

// next returns the counter's current block and steps it.
__m128i next(Counter128& ctr) noexcept {
  const __m128i b = _mm_set_epi64x(static_cast<long long>(__builtin_bswap64(ctr.lo)),
                                   static_cast<long long>(__builtin_bswap64(ctr.hi)));
  ctr.step();
  return b;
}

template <int R>
void ctr_xor(const KeySchedule& ks, const std::uint8_t* counter_block, const std::uint8_t* in,
             std::uint8_t* out, std::size_t len, bool use_vaes) noexcept {
  Counter128 ctr(counter_block);
  const std::uint64_t blocks = (len + 15) / 16;
  if (use_vaes && len >= 128 && ctr.lo <= ~std::uint64_t{0} - blocks) {
    const std::size_t done = ctr_blocks_vaes(ks.rk, ks.rounds, counter_block, in, out, len);
    ctr.advance(done / 16);
    in += done;
    out += done;
    len -= done;
  }
  const RoundKeys<R> rk(ks.rk);
  constexpr int kLanes = 8;
  while (len >= 16 * kLanes) {
    __m128i b[kLanes];
    for (__m128i& x : b) {
      x = next(ctr);
    }
    encrypt_n<R, kLanes>(rk, b);
    for (int i = 0; i < kLanes; ++i) {
      store(out + 16 * i, _mm_xor_si128(b[i], load(in + 16 * i)));
    }
    in += 16 * kLanes;
    out += 16 * kLanes;
    len -= 16 * kLanes;
  }
  // The last 1..8 blocks (the final one possibly partial) go through the rounds together.
  if (len > 0) {
    __m128i b[kLanes];
    const std::size_t num_blocks = (len + 15) / 16;
    for (std::size_t i = 0; i < num_blocks; ++i) {
      b[i] = next(ctr);
    }
    encrypt_many(rk, b, num_blocks);
    std::size_t i = 0;
    for (; len >= 16; ++i, len -= 16, in += 16, out += 16) {
      store(out, _mm_xor_si128(b[i], load(in)));
    }
    if (len > 0) {
      xor_partial(in, out, len, b[i]);
    }
  }
}

// CBC encryption is one serial chain. The chain's XOR with the next plaintext block (and with
// round key 0) is folded into the previous block's AESENCLAST round key, which leaves nothing
// but AES rounds on the critical path; the ciphertext is recovered off the path.
template <int R>
void cbc_encrypt_blocks(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                        std::uint8_t* out, std::size_t len) noexcept {
  const RoundKeys<R> rk(ks.rk);
  const std::size_t n = len / 16;
  if (n == 0) {
    return;
  }
  __m128i x = _mm_xor_si128(load(iv), _mm_xor_si128(load(in), rk.k[0]));
  for (std::size_t i = 0; i < n; ++i) {
    for (int r = 1; r < R; ++r) {
      x = _mm_aesenc_si128(x, rk.k[r]);
    }
    if (i + 1 < n) {
      // Load the next block before this block's ciphertext is stored: in == out is allowed.
      const __m128i fold = _mm_xor_si128(load(in + 16 * (i + 1)), rk.k[0]);
      x = _mm_aesenclast_si128(x, _mm_xor_si128(rk.k[R], fold));
      store(out + 16 * i, _mm_xor_si128(x, fold));
    } else {
      store(out + 16 * i, _mm_aesenclast_si128(x, rk.k[R]));
    }
  }
}

// All loads of a group happen before its stores, so in == out is safe.
template <int R>
void cbc_decrypt_blocks(const DecryptSchedule& ks, const std::uint8_t* iv, const std::uint8_t* src,
                        std::uint8_t* dst, std::size_t len) noexcept {
  const RoundKeys<R> rk(ks.rk);
  __m128i prev = load(iv);
  constexpr int kLanes = 8;
  while (len >= 16 * kLanes) {
    __m128i c[kLanes];
    __m128i p[kLanes];
    for (int i = 0; i < kLanes; ++i) {
      c[i] = load(src + 16 * i);
      p[i] = c[i];
    }
    decrypt_n<R, kLanes>(rk, p);
    store(dst, _mm_xor_si128(p[0], prev));
    for (int i = 1; i < kLanes; ++i) {
      store(dst + 16 * i, _mm_xor_si128(p[i], c[i - 1]));
    }
    prev = c[kLanes - 1];
    src += 16 * kLanes;
    dst += 16 * kLanes;
    len -= 16 * kLanes;
  }
  while (len >= 16) {
    const __m128i c = load(src);
    __m128i p = c;
    decrypt_n<R, 1>(rk, &p);
    store(dst, _mm_xor_si128(p, prev));
    prev = c;
    src += 16;
    dst += 16;
    len -= 16;
  }
}

// cbc_encrypt_steps advances M messages by `steps` blocks: M independent CBC chains share
// each round, so the serial latency of one chain is paid once for all of them.
template <int R, std::size_t M>
void cbc_encrypt_steps(const RoundKeys<R>& rk, const std::uint8_t* const* in,
                       std::uint8_t* const* out, __m128i* chain, std::size_t offset,
                       std::size_t steps) noexcept {
  for (std::size_t s = 0; s < steps; ++s, offset += 16) {
    __m128i x[M];
    for (std::size_t j = 0; j < M; ++j) {
      x[j] = _mm_xor_si128(chain[j], _mm_xor_si128(load(in[j] + offset), rk.k[0]));
    }
    for (int r = 1; r < R; ++r) {
      for (std::size_t j = 0; j < M; ++j) {
        x[j] = _mm_aesenc_si128(x[j], rk.k[r]);
      }
    }
    for (std::size_t j = 0; j < M; ++j) {
      chain[j] = _mm_aesenclast_si128(x[j], rk.k[R]);
      store(out[j] + offset, chain[j]);
    }
  }
}

// cbc_encrypt_many encrypts up to 8 jobs in lockstep: while every remaining job has blocks
// left, all of them advance together; finished jobs drop out.
template <int R>
void cbc_encrypt_many(const KeySchedule& ks, CbcJob* const* jobs, std::size_t num_jobs) noexcept {
  const RoundKeys<R> rk(ks.rk);
  std::size_t order[AesModeImpl::kMaxLanes];
  for (std::size_t i = 0; i < num_jobs; ++i) {
    order[i] = i;
  }
  // Shortest first, so the active set is always a suffix of `order` (insertion sort: at most 8
  // jobs, and std::sort trips GCC's -Warray-bounds under -fsanitize on a fixed array).
  for (std::size_t i = 1; i < num_jobs; ++i) {
    for (std::size_t k = i; k > 0 && jobs[order[k]]->in.size() < jobs[order[k - 1]]->in.size();
         --k) {
      std::swap(order[k], order[k - 1]);
    }
  }
  const std::uint8_t* in[AesModeImpl::kMaxLanes];
  std::uint8_t* out[AesModeImpl::kMaxLanes];
  __m128i chain[AesModeImpl::kMaxLanes];
  for (std::size_t i = 0; i < num_jobs; ++i) {
    const CbcJob& job = *jobs[order[i]];
    in[i] = job.in.data();
    out[i] = job.out.data();
    chain[i] = load(job.iv.data());
  }
  std::size_t done = 0;  // bytes every active job has processed
  for (std::size_t first = 0; first < num_jobs;) {
    const std::size_t len = jobs[order[first]]->in.size();
    const std::size_t steps = (len - done) / 16;
    const std::size_t m = num_jobs - first;
    with_count<AesModeImpl::kMaxLanes>(m, [&](auto lanes) {
      cbc_encrypt_steps<R, decltype(lanes)::value>(rk, in + first, out + first, chain + first, done,
                                                   steps);
    });
    done = len;
    while (first < num_jobs && jobs[order[first]]->in.size() == len) {
      ++first;
    }
  }
}

class NativeAesMode final : public AesModeImpl {
 public:
  NativeAesMode(AesMode mode, Bytes key) {
    enc_.init(key.data(), key.size());
    if (mode == AesMode::kCbc) {
      dec_.derive(enc_);
    }
  }
  ~NativeAesMode() override {
    enc_.wipe();
    dec_.wipe();
  }

  void ctr(const std::uint8_t* counter_block, Bytes in, MutableBytes out) noexcept override {
    with_rounds(enc_.rounds, [&](auto r) {
      ctr_xor<decltype(r)::value>(enc_, counter_block, in.data(), out.data(), in.size(), use_vaes_);
    });
  }

  void cbc_encrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    with_rounds(enc_.rounds, [&](auto r) {
      cbc_encrypt_blocks<decltype(r)::value>(enc_, iv, in.data(), out.data(), in.size());
    });
  }

  void cbc_encrypt_lanes(CbcJob* const* jobs, std::size_t num_jobs) noexcept override {
    with_rounds(enc_.rounds,
                [&](auto r) { cbc_encrypt_many<decltype(r)::value>(enc_, jobs, num_jobs); });
  }

  bool cbc_encrypt_hashing(std::uint8_t* chain, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t steps, HashAlgorithm hash, std::uint32_t* state,
                           const std::uint8_t* blocks) noexcept override {
    if (!use_sha_ni_) {
      return false;
    }
    if (hash == HashAlgorithm::kSha1) {
      cbc_encrypt_sha1_ni(enc_.rk, enc_.rounds, chain, in, out, state, blocks, steps);
      return true;
    }
    if (hash == HashAlgorithm::kSha256) {
      cbc_encrypt_sha256_ni(enc_.rk, enc_.rounds, chain, in, out, state, blocks, steps);
      return true;
    }
    return false;
  }

  void cbc_decrypt(const std::uint8_t* iv, Bytes in, MutableBytes out) noexcept override {
    // Below one 32-block group the 512-bit kernel's set-up (its round keys broadcast to
    // ZMM registers) costs more than it saves: 16 B 10 -> 14 ns, 64 B 13.5 -> 15.
    if (use_vaes512_ && in.size() >= 512) {
      cbc_decrypt_vaes512(dec_.rk, dec_.rounds, iv, in.data(), out.data(), in.size());
      return;
    }
    std::size_t done = 0;
    alignas(16) std::uint8_t chain[16];
    if (use_vaes_ && in.size() >= 256) {
      done = cbc_decrypt_vaes(dec_.rk, dec_.rounds, iv, in.data(), out.data(), in.size(), chain);
      iv = chain;
    }
    if (done < in.size()) {
      with_rounds(dec_.rounds, [&](auto r) {
        cbc_decrypt_blocks<decltype(r)::value>(dec_, iv, in.data() + done, out.data() + done,
                                               in.size() - done);
      });
    }
  }

 private:
  KeySchedule enc_;
  DecryptSchedule dec_{};
  bool use_vaes_ = native_uses_vaes();
  bool use_vaes512_ = cbc_decrypt_uses_vaes512();
  bool use_sha_ni_ = native_cbc_stitches_sha();
};

// dbl doubles a block in GF(2^128) for the CMAC subkeys (counter128.h).
__m128i dbl(__m128i block) noexcept {
  alignas(16) std::uint8_t b[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(b), block);
  cmac_double(b);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(b));
}

class NativeCmac final : public CmacImpl {
 public:
  explicit NativeCmac(Bytes key) {
    ks_.init(key.data(), key.size());
    const __m128i l = with_rounds(ks_.rounds, [&](auto r) {
      return encrypt_block(RoundKeys<decltype(r)::value>(ks_.rk), _mm_setzero_si128());
    });
    k1_ = dbl(l);
    k2_ = dbl(k1_);
  }
  ~NativeCmac() override {
    ks_.wipe();
    // The subkeys are key material too; a plain store to a dying object may be elided.
    ::wireseal::detail::secure_wipe(&k1_, sizeof(k1_));
    ::wireseal::detail::secure_wipe(&k2_, sizeof(k2_));
  }

  void compute(Bytes message, std::uint8_t* mac16) noexcept override {
    with_rounds(ks_.rounds, [&](auto r) { compute_rounds<decltype(r)::value>(message, mac16); });
  }

 private:
  // compute_rounds runs the CBC-MAC with the next block folded into each AESENCLAST (see
  // cbc_encrypt_blocks): the last block, complete or not, carries its subkey.
  template <int R>
  void compute_rounds(Bytes message, std::uint8_t* mac16) const noexcept {
    const RoundKeys<R> rk(ks_.rk);
    const std::uint8_t* p = message.data();
    const std::size_t len = message.size();
    const std::size_t n = len == 0 ? 1 : (len + 15) / 16;  // blocks, the last one special
    __m128i last;
    const std::size_t last_len = len - 16 * (n - 1);
    if (last_len == 16) {
      last = _mm_xor_si128(load(p + 16 * (n - 1)), k1_);
    } else {
      alignas(16) std::uint8_t block[16] = {};
      if (last_len > 0) {
        std::memcpy(block, p + 16 * (n - 1), last_len);
      }
      block[last_len] = 0x80;
      last = _mm_xor_si128(_mm_load_si128(reinterpret_cast<const __m128i*>(block)), k2_);
    }
    auto block_at = [&](std::size_t i) { return i + 1 < n ? load(p + 16 * i) : last; };
    __m128i x = _mm_xor_si128(block_at(0), rk.k[0]);
    for (std::size_t i = 0; i < n; ++i) {
      for (int r = 1; r < R; ++r) {
        x = _mm_aesenc_si128(x, rk.k[r]);
      }
      if (i + 1 < n) {
        x = _mm_aesenclast_si128(x,
                                 _mm_xor_si128(rk.k[R], _mm_xor_si128(block_at(i + 1), rk.k[0])));
      } else {
        x = _mm_aesenclast_si128(x, rk.k[R]);
      }
    }
    store(mac16, x);
  }

  KeySchedule ks_;
  __m128i k1_;
  __m128i k2_;
};

}  // namespace

std::unique_ptr<AesModeImpl> make_aesni_mode(AesMode mode, Bytes key) {
  return std::make_unique<NativeAesMode>(mode, key);
}

std::unique_ptr<CmacImpl> make_aesni_cmac(Bytes key) { return std::make_unique<NativeCmac>(key); }

}  // namespace wireseal::crypto::detail
