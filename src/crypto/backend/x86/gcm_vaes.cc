// The multi-message VAES + VPCLMULQDQ AES-GCM kernel (see gcm_vaes.h).
//
// GHASH arithmetic. Blocks are byte-reversed on load, so bit i of a 128-bit value is the
// coefficient of x^(127 - i). A carry-less product of two such values then has bit k as the
// coefficient of x^(254 - k); storing the powers of H multiplied by x^-1 shifts that to
// x^(255 - k), so the upper 128 bits of the 256-bit product are the degrees 0..127 in the
// input's order and the lower 128 bits the degrees 128..255, which reduce() folds back with
// two multiplications by the constant of x^128 = x^7 + x^2 + x + 1 (its bits 63, 62 and 57,
// the high half of reduce()'s gf_poly). A message of n blocks X_1..X_n hashes to
// X_1 H^n + X_2 H^(n-1) + ... + X_n H: every product is independent and they are summed
// unreduced (lo, mid and hi parts of the schoolbook product), then reduced once.
#include "backend/x86/gcm_vaes.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backend/portable/count_dispatch.h"
#include "backend/x86/aesni.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

// The per-message GHASH steps are forced inline so that a message's sums stay in registers
// (out of line, GCC kept them on the stack, and each step waited on a store to forward).
#define WS_GCM_INLINE [[gnu::always_inline]] inline

constexpr std::size_t kBlock = 16;
constexpr std::size_t kVector = 64;  // four blocks

// The keystream of a call: first E(J0) of every message, four to a register (for the tags),
// then each message's text keystream from whole registers, so that every read of it is a
// whole aligned register just stored (partial reads of a wide store would stall instead of
// forwarding). gcm_vaes_fits bounds a message's text to kGcmVaesMaxBlocks - 1 blocks.
constexpr std::size_t kJ0Vectors = (kGcmVaesMaxMessages + 3) / 4;
constexpr std::size_t kKeystreamVectors = kJ0Vectors + kGcmVaesMaxMessages * kGcmVaesMaxBlocks / 4;

std::size_t text_vectors(std::size_t len) noexcept { return (len + kVector - 1) / kVector; }

__m128i byte_reverse_128(__m128i v) noexcept {
  return _mm_shuffle_epi8(v, _mm_set_epi32(0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f));
}

__m512i byte_reverse_512(__m512i v) noexcept {
  const __m512i order = _mm512_set4_epi32(0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f);
  return _mm512_maskz_shuffle_epi8(~__mmask64{0}, v, order);
}

// bytes_mask selects the first min(n, 64) bytes of a register.
__mmask64 bytes_mask(std::size_t n) noexcept {
  return n >= kVector ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

// ---- GHASH

// Sum512 is an unreduced sum of products, four per register: lo and hi are the products of
// the low and high 64-bit halves, mid the two cross products.
struct Sum512 {
  __m512i lo = _mm512_setzero_si512();
  __m512i mid = _mm512_setzero_si512();
  __m512i hi = _mm512_setzero_si512();
};

struct Sum128 {
  __m128i lo = _mm_setzero_si128();
  __m128i mid = _mm_setzero_si128();
  __m128i hi = _mm_setzero_si128();
};

WS_GCM_INLINE void multiply_add(Sum512& s, __m512i x, __m512i h) noexcept {
  s.lo = _mm512_xor_si512(s.lo, _mm512_clmulepi64_epi128(x, h, 0x00));
  s.hi = _mm512_xor_si512(s.hi, _mm512_clmulepi64_epi128(x, h, 0x11));
  s.mid = _mm512_ternarylogic_epi64(s.mid, _mm512_clmulepi64_epi128(x, h, 0x01),
                                    _mm512_clmulepi64_epi128(x, h, 0x10), 0x96);
}

void multiply_add(Sum128& s, __m128i x, __m128i h) noexcept {
  s.lo = _mm_xor_si128(s.lo, _mm_clmulepi64_si128(x, h, 0x00));
  s.hi = _mm_xor_si128(s.hi, _mm_clmulepi64_si128(x, h, 0x11));
  s.mid = _mm_xor_si128(
      s.mid, _mm_xor_si128(_mm_clmulepi64_si128(x, h, 0x01), _mm_clmulepi64_si128(x, h, 0x10)));
}

// reduce turns lo + mid x^64 + hi x^128 into the field element: each step multiplies the
// lowest 64 bits by the reduction constant and adds them, swapped, 64 bits higher.
__m128i reduce(Sum128 s) noexcept {
  const __m128i gf_poly = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ULL), 1);
  __m128i t = _mm_clmulepi64_si128(gf_poly, s.lo, 0x01);
  s.mid = _mm_xor_si128(s.mid, _mm_xor_si128(t, _mm_shuffle_epi32(s.lo, 0x4e)));
  t = _mm_clmulepi64_si128(gf_poly, s.mid, 0x01);
  return _mm_xor_si128(s.hi, _mm_xor_si128(t, _mm_shuffle_epi32(s.mid, 0x4e)));
}

__m128i multiply(__m128i a, __m128i b) noexcept {
  Sum128 s;
  multiply_add(s, a, b);
  return reduce(s);
}

__m128i load_power(const GcmVaesKey& key, std::size_t exponent) noexcept {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(key.powers[kGcmVaesMaxBlocks - exponent]));
}

// absorb_block adds the `len` (1..16) bytes at `p`, zero-padded, under the power at `power`,
// in lane 0 of `s`: on 128-bit registers, which measured 1-2 ns a message faster than the same
// product on a 512-bit register with three empty lanes (Zen 5).
WS_GCM_INLINE void absorb_block(Sum512& s, const std::uint8_t* power, const std::uint8_t* p,
                                std::size_t len) noexcept {
  const auto used = static_cast<__mmask16>((1u << len) - 1);
  const __m128i x = byte_reverse_128(_mm_maskz_loadu_epi8(used, p));
  const __m128i h = _mm_load_si128(reinterpret_cast<const __m128i*>(power));
  s.lo = _mm512_xor_si512(s.lo, _mm512_zextsi128_si512(_mm_clmulepi64_si128(x, h, 0x00)));
  s.hi = _mm512_xor_si512(s.hi, _mm512_zextsi128_si512(_mm_clmulepi64_si128(x, h, 0x11)));
  const __m128i mid =
      _mm_xor_si128(_mm_clmulepi64_si128(x, h, 0x01), _mm_clmulepi64_si128(x, h, 0x10));
  s.mid = _mm512_xor_si512(s.mid, _mm512_zextsi128_si512(mid));
}

// absorb adds the `len` bytes at `p`, zero-padded to whole blocks, the first block under
// H^exponent and each next one under the next lower power; returns the exponent after them.
// The last register's missing blocks load as zeros (masked load: nothing past `len` is read).
// Associated data of one block (an SRTP header, a DTLS pseudo-header) takes absorb_block.
WS_GCM_INLINE std::size_t absorb(Sum512& s, const GcmVaesKey& key, const std::uint8_t* p,
                                 std::size_t len, std::size_t exponent) noexcept {
  const std::uint8_t* powers = key.powers[kGcmVaesMaxBlocks - exponent];
  if (len != 0 && len <= kBlock) {
    absorb_block(s, powers, p, len);
    return exponent - 1;
  }
  for (std::size_t off = 0; off < len; off += kVector) {
    const __m512i x = byte_reverse_512(_mm512_maskz_loadu_epi8(bytes_mask(len - off), p + off));
    multiply_add(s, x, _mm512_loadu_si512(powers + off));
  }
  return exponent - (len + kBlock - 1) / kBlock;
}

// ---- AES-CTR

template <int R>
struct WideRoundKeys {
  __m512i k[static_cast<std::size_t>(R + 1)];
  explicit WideRoundKeys(const GcmVaesKey& key) noexcept {
    for (std::size_t i = 0; i <= R; ++i) {
      k[i] = _mm512_maskz_broadcast_i32x4(
          0xffff, _mm_load_si128(reinterpret_cast<const __m128i*>(key.round_keys[i])));
    }
  }
};

// encrypt_vectors encrypts N registers of counter blocks at p in place, their rounds together.
template <int R, std::size_t N>
void encrypt_vectors(const WideRoundKeys<R>& rk, std::uint8_t* p) noexcept {
  __m512i b[N];
  for (std::size_t i = 0; i < N; ++i) {
    b[i] = _mm512_xor_si512(_mm512_load_si512(p + kVector * i), rk.k[0]);
  }
  for (std::size_t r = 1; r < R; ++r) {
    for (std::size_t i = 0; i < N; ++i) {
      b[i] = _mm512_aesenc_epi128(b[i], rk.k[r]);
    }
  }
  for (std::size_t i = 0; i < N; ++i) {
    _mm512_store_si512(p + kVector * i, _mm512_aesenclast_epi128(b[i], rk.k[R]));
  }
}

// j0_block reads nonce || 1 with two loads rather than copying the nonce into a block: a
// 16-byte load of bytes just stored in two pieces would wait for the stores to retire.
__m128i j0_block(const std::uint8_t* nonce) noexcept {
  std::uint32_t last_word;
  std::memcpy(&last_word, nonce + 8, 4);
  const __m128i j0 = _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(nonce)),
                                      static_cast<int>(last_word), 2);
  return _mm_insert_epi32(j0, 1 << 24, 3);
}

// write_j0s writes J0 of messages [first, first + n) (n <= 4) as one register at p.
void write_j0s(const GcmVaesMessage* messages, std::size_t n, std::uint8_t* p) noexcept {
  alignas(64) __m128i blocks[4] = {};
  for (std::size_t l = 0; l < n; ++l) {
    blocks[l] = j0_block(messages[l].nonce);
  }
  __m512i v = _mm512_maskz_broadcast_i32x4(0xffff, blocks[0]);
  v = _mm512_inserti32x4(v, blocks[1], 1);
  v = _mm512_inserti32x4(v, blocks[2], 2);
  v = _mm512_inserti32x4(v, blocks[3], 3);
  _mm512_store_si512(p, v);
}

// write_text_counters writes `vectors` registers of the counter blocks nonce || 2,
// nonce || 3, ... (the 32-bit counter stays below 2^8, so only its last byte changes).
void write_text_counters(const std::uint8_t* nonce, std::uint8_t* p, std::size_t vectors) noexcept {
  const __m128i j0 = j0_block(nonce);  // counter 1
  const __m512i four = _mm512_set4_epi32(4 << 24, 0, 0, 0);
  __m512i counters = _mm512_add_epi32(
      _mm512_maskz_broadcast_i32x4(0xffff, j0),
      _mm512_set_epi32(4 << 24, 0, 0, 0, 3 << 24, 0, 0, 0, 2 << 24, 0, 0, 0, 1 << 24, 0, 0, 0));
  for (std::size_t v = 0; v < vectors; ++v) {
    _mm512_store_si512(p + kVector * v, counters);
    counters = _mm512_add_epi32(counters, four);
  }
}

// crypt_and_absorb XORs `len` bytes of `in` with the keystream at `ks` into `out` and adds the
// ciphertext to the hash (`out`'s bytes when sealing, `in`'s when opening) from the registers
// themselves: reading back bytes just written by a masked store would stall on forwarding.
template <bool Sealing>
WS_GCM_INLINE void crypt_and_absorb(Sum512& s, const std::uint8_t* powers, const std::uint8_t* ks,
                                    const std::uint8_t* in, std::uint8_t* out,
                                    std::size_t len) noexcept {
  for (std::size_t off = 0; off < len; off += kVector) {
    const __mmask64 m = bytes_mask(len - off);
    const __m512i x = _mm512_maskz_loadu_epi8(m, in + off);
    // The keystream past `len` is masked off: the hash must see the ciphertext zero-padded.
    const __m512i y = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(x, _mm512_load_si512(ks + off)));
    _mm512_mask_storeu_epi8(out + off, m, y);
    multiply_add(s, byte_reverse_512(Sealing ? y : x), _mm512_loadu_si512(powers + off));
  }
}

// wipe_keystream zeroes the keystream with vector stores (it is secret) and keeps the
// compiler from dropping them.
void wipe_keystream(std::uint8_t* p, std::size_t vectors) noexcept {
  for (std::size_t v = 0; v < vectors; ++v) {
    _mm512_store_si512(p + kVector * v, _mm512_setzero_si512());
  }
  asm volatile("" : : "r"(p) : "memory");
}

// The tags are finished four messages at a time, one message per 128-bit lane. The reduction
// is linear, so the four messages' unreduced four-lane sums are folded into one four-message
// sum (fold_four), their length blocks (under H^1) added to it, and the whole reduced once;
// the byte order and the E(J0) mask are then applied to the four tags at once, and E(J0) of
// messages 4g..4g+3 is keystream register g already. (Reducing each message's sum before
// folding, as before, cost a reduction per message: 2-6 % of a short message.)

// reduce_512 is reduce() on four independent lanes.
WS_GCM_INLINE __m512i reduce_512(Sum512 s) noexcept {
  const __m512i gf_poly = _mm512_set4_epi64(static_cast<long long>(0xc200000000000000ULL), 1,
                                            static_cast<long long>(0xc200000000000000ULL), 1);
  __m512i t = _mm512_clmulepi64_epi128(gf_poly, s.lo, 0x01);
  s.mid = _mm512_ternarylogic_epi64(s.mid, t,
                                    _mm512_maskz_shuffle_epi32(0xffff, s.lo, _MM_PERM_BADC), 0x96);
  t = _mm512_clmulepi64_epi128(gf_poly, s.mid, 0x01);
  return _mm512_ternarylogic_epi64(s.hi, t,
                                   _mm512_maskz_shuffle_epi32(0xffff, s.mid, _MM_PERM_BADC), 0x96);
}

// fold_four returns a register whose lane j is the sum of the four lanes of the j-th argument:
// each message's unreduced four-lane sums become one lane of a four-message sum, which then
// takes a single reduction (the reduction is linear).
WS_GCM_INLINE __m512i fold_four(__m512i a, __m512i b, __m512i c, __m512i d) noexcept {
  // (a0 + a2, a1 + a3, b0 + b2, b1 + b3), and the same for c and d.
  const __m512i ab = _mm512_xor_si512(_mm512_maskz_shuffle_i64x2(0xff, a, b, 0x44),
                                      _mm512_maskz_shuffle_i64x2(0xff, a, b, 0xee));
  const __m512i cd = _mm512_xor_si512(_mm512_maskz_shuffle_i64x2(0xff, c, d, 0x44),
                                      _mm512_maskz_shuffle_i64x2(0xff, c, d, 0xee));
  return _mm512_xor_si512(_mm512_maskz_shuffle_i64x2(0xff, ab, cd, 0x88),
                          _mm512_maskz_shuffle_i64x2(0xff, ab, cd, 0xdd));
}

// length_block is a message's last GHASH block: the bit lengths of its associated data and
// text, in the kernel's byte-reversed order.
WS_GCM_INLINE __m128i length_block(const GcmVaesMessage& m) noexcept {
  const std::uint64_t aad_bits = m.aad_len * 8;
  const std::uint64_t text_bits = m.len * 8;
  return _mm_set_epi64x(static_cast<long long>(aad_bits), static_cast<long long>(text_bits));
}

// store_tags writes lane j of `tags` to messages[j].tag for j < n.
WS_GCM_INLINE void store_tags(__m512i tags, GcmVaesMessage* messages, std::size_t n) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(messages[0].tag),
                   _mm512_maskz_extracti32x4_epi32(0xf, tags, 0));
  if (n > 1) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(messages[1].tag),
                     _mm512_maskz_extracti32x4_epi32(0xf, tags, 1));
  }
  if (n > 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(messages[2].tag),
                     _mm512_maskz_extracti32x4_epi32(0xf, tags, 2));
  }
  if (n > 3) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(messages[3].tag),
                     _mm512_maskz_extracti32x4_epi32(0xf, tags, 3));
  }
}

// verdicts compares lane j of `tags` with the first tag_len bytes at messages[j].received_tag
// for j < n; bit j of the result is set when they are equal. Branch-free on the tags.
WS_GCM_INLINE std::uint32_t verdicts(__m512i tags, const GcmVaesMessage* messages, std::size_t n,
                                     std::size_t tag_len) noexcept {
  const auto used = static_cast<__mmask16>((1u << tag_len) - 1);
  __m512i received = _mm512_setzero_si512();
  for (std::size_t j = 0; j < n; ++j) {
    const __m128i t = _mm_maskz_loadu_epi8(used, messages[j].received_tag);
    received = _mm512_mask_broadcast_i32x4(received, static_cast<__mmask16>(0xfu << (4 * j)), t);
  }
  const __mmask64 used_bytes = used * 0x0001000100010001ULL;  // tag_len bytes of each lane
  const __m512i diff = _mm512_maskz_xor_epi64(0xff, tags, received);
  const __mmask64 differs = _mm512_mask_test_epi8_mask(used_bytes, diff, diff);
  std::uint32_t ok = 0;
  for (std::size_t j = 0; j < n; ++j) {
    ok |= std::uint32_t{(differs >> (16 * j) & 0xffff) == 0} << j;
  }
  return ok;
}

// hash_message_into adds message m's associated data and text to `s` (decrypting or
// encrypting the text with the keystream at `ks` on the way) and puts its length block in
// lane j of `lengths`.
template <bool Sealing>
WS_GCM_INLINE void hash_message_into(Sum512& s, __m512i& lengths, std::size_t j,
                                     const GcmVaesKey& key, GcmVaesMessage& m,
                                     const std::uint8_t* ks) noexcept {
  const std::size_t exponent =
      absorb(s, key, m.aad, m.aad_len, gcm_vaes_ghash_blocks(m.aad_len, m.len));
  crypt_and_absorb<Sealing>(s, key.powers[kGcmVaesMaxBlocks - exponent], ks, m.in, m.out, m.len);
  lengths = _mm512_mask_broadcast_i32x4(lengths, static_cast<__mmask16>(0xfu << (4 * j)),
                                        length_block(m));
}

// hash_group computes the tags of messages[0, n) (n <= 4), whose keystream starts at
// registers first_vector[0, n) and whose E(J0)s are the register at `e_j0s`: sealing stores
// them, opening returns their verdicts (see gcm_vaes_open).
template <bool Sealing>
WS_GCM_INLINE std::uint32_t hash_group(const GcmVaesKey& key, GcmVaesMessage* messages,
                                       std::size_t n, const std::uint8_t* keystream,
                                       const std::size_t* first_vector, const std::uint8_t* e_j0s,
                                       std::size_t tag_len) noexcept {
  __m512i lengths = _mm512_setzero_si512();
  auto hash_message = [&](Sum512& s, std::size_t j) {
    hash_message_into<Sealing>(s, lengths, j, key, messages[j],
                               keystream + kVector * first_vector[j]);
  };
  // One sum per message, named rather than an array so that they stay in registers.
  Sum512 s0;
  Sum512 s1;
  Sum512 s2;
  Sum512 s3;
  hash_message(s0, 0);
  if (n > 1) {
    hash_message(s1, 1);
  }
  if (n > 2) {
    hash_message(s2, 2);
  }
  if (n > 3) {
    hash_message(s3, 3);
  }
  Sum512 g{fold_four(s0.lo, s1.lo, s2.lo, s3.lo), fold_four(s0.mid, s1.mid, s2.mid, s3.mid),
           fold_four(s0.hi, s1.hi, s2.hi, s3.hi)};
  multiply_add(g, lengths, _mm512_maskz_broadcast_i32x4(0xffff, load_power(key, 1)));
  const __m512i tags = _mm512_xor_si512(byte_reverse_512(reduce_512(g)), _mm512_load_si512(e_j0s));
  if constexpr (Sealing) {
    store_tags(tags, messages, n);
    return 0;
  } else {
    return verdicts(tags, messages, n, tag_len);
  }
}

// run seals or opens the messages; opening returns the verdicts.
template <int R, bool Sealing>
std::uint32_t run(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count,
                  std::size_t tag_len) noexcept {
  alignas(64) std::uint8_t keystream[kKeystreamVectors * kVector];
  std::size_t first_vector[kGcmVaesMaxMessages];
  std::size_t vectors = 0;
  for (std::size_t i = 0; i < count; i += 4) {
    write_j0s(messages + i, std::min<std::size_t>(4, count - i), keystream + kVector * vectors++);
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = text_vectors(messages[i].len);
    write_text_counters(messages[i].nonce, keystream + kVector * vectors, n);
    first_vector[i] = vectors;
    vectors += n;
  }

  const WideRoundKeys<R> rk(key);
  std::size_t v = 0;
  for (; v + 4 <= vectors; v += 4) {
    encrypt_vectors<R, 4>(rk, keystream + kVector * v);
  }
  with_count<3>(vectors - v, [&](auto n) {
    encrypt_vectors<R, decltype(n)::value>(rk, keystream + kVector * v);
  });

  std::uint32_t ok = 0;
  for (std::size_t i = 0; i < count; i += 4) {
    ok |= hash_group<Sealing>(key, messages + i, std::min<std::size_t>(4, count - i), keystream,
                              first_vector + i, keystream + kBlock * i, tag_len)
          << i;
  }
  wipe_keystream(keystream, vectors);
  return ok;
}

template <bool Sealing>
std::uint32_t run_rounds(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count,
                         std::size_t tag_len) noexcept {
  return with_rounds(key.rounds, [&](auto r) {
    return run<decltype(r)::value, Sealing>(key, messages, count, tag_len);
  });
}

}  // namespace

void gcm_vaes_init(GcmVaesKey& key, const std::uint8_t* aes_key, std::size_t key_len) {
  aesni::KeySchedule schedule;
  schedule.init(aes_key, key_len);
  key.rounds = schedule.rounds;
  for (int i = 0; i <= schedule.rounds; ++i) {
    _mm_store_si128(reinterpret_cast<__m128i*>(key.round_keys[i]), schedule.rk[i]);
  }
  // H = E_K(0), reflected, times x^-1: a left shift, with x^-1 = x^127 + x^6 + x + 1 (bits 0,
  // 121, 126 and 127) added when the x^0 bit shifts out.
  const __m128i h_block = with_rounds(schedule.rounds, [&](auto r) {
    return aesni::encrypt_block(aesni::RoundKeys<decltype(r)::value>(schedule.rk),
                                _mm_setzero_si128());
  });
  schedule.wipe();
  alignas(16) std::uint64_t h[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(h), byte_reverse_128(h_block));
  const std::uint64_t carry = 0 - (h[1] >> 63);
  h[1] = (h[1] << 1 | h[0] >> 63) ^ (carry & 0xc200000000000000ULL);
  h[0] = h[0] << 1 ^ (carry & 1);
  const __m128i h1 = _mm_load_si128(reinterpret_cast<const __m128i*>(h));
  ::wireseal::detail::secure_wipe(h, sizeof(h));

  __m128i power = h1;
  for (std::size_t e = 1; e <= kGcmVaesMaxBlocks; ++e) {
    _mm_store_si128(reinterpret_cast<__m128i*>(key.powers[kGcmVaesMaxBlocks - e]), power);
    power = multiply(power, h1);
  }
  std::memset(key.powers[kGcmVaesMaxBlocks], 0, 3 * kBlock);
}

void gcm_vaes_seal(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count) noexcept {
  run_rounds</*Sealing=*/true>(key, messages, count, /*tag_len=*/16);
}

std::uint32_t gcm_vaes_open(const GcmVaesKey& key, GcmVaesMessage* messages, std::size_t count,
                            std::size_t tag_len) noexcept {
  return run_rounds</*Sealing=*/false>(key, messages, count, tag_len);
}

}  // namespace wireseal::crypto::detail
