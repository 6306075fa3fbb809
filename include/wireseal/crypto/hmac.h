#pragma once
// Hmac: HMAC (RFC 2104) from precomputed inner and outer hash states.
//
// The key is absorbed once at construction: ipad and opad blocks are hashed into two saved
// states, so each MAC costs only the message blocks plus two finalisations, with no allocation
// (OpenSSL's EVP_MAC re-derives or copies heap contexts per message; this does not).
//
// An Hmac is immutable after construction, so one object may be used from many threads.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/crypto/hash.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

namespace detail {
struct CbcHmacAccess;
}

// HmacJob is one message of Hmac::compute_batch: the MAC of parts[0] || parts[1] || parts[2]
// (any may be empty; e.g. SRTP's packet and ROC, or TLS's pseudo-header and payload) truncated
// to out.size() bytes. `status` is written by the call.
struct HmacJob {
  std::span<const std::uint8_t> parts[3];
  std::span<std::uint8_t> out;
  Status status;
};

// hmac_primitive returns the backend family of HMAC with `hash` (for is_available / resolve).
Primitive hmac_primitive(HashAlgorithm hash) noexcept;

class Hmac {
 public:
  // Hmac absorbs `key` (any length; keys longer than a block are hashed first, per RFC 2104)
  // on the backend Backend::kAuto picks for hmac_primitive(hash): kNative (wireseal's SHA
  // compression kernels) for SHA-1 and SHA-256 where the CPU has them, else kOpenSsl.
  Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key) noexcept;
  // The same on `backend` (kAuto as above). kOpenSsl hashes with OpenSSL's SHA functions;
  // kNative with the native kernels, only for SHA-1 and SHA-256 on CPUs that have them.
  // Throws std::invalid_argument if `backend` is not available (crypto::resolve).
  Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key, Backend backend);
  ~Hmac();
  Hmac(const Hmac&) noexcept = default;
  Hmac& operator=(const Hmac&) noexcept = default;

  HashAlgorithm hash() const noexcept { return hash_; }
  // backend is the backend in use (never kAuto).
  Backend backend() const noexcept { return backend_; }
  std::size_t digest_len() const noexcept { return digest_length(hash_); }

  // Stream is one MAC computation over a message given in pieces (e.g. SRTP's header,
  // payload and ROC). It lives on the caller's stack and refers to its Hmac, which must
  // outlive it. It hashes with OpenSSL's SHA functions on every backend (their saved contexts
  // buffer partial blocks); compute and compute_batch take the same pieces on the native
  // kernels.
  class Stream {
   public:
    void update(std::span<const std::uint8_t> data) noexcept;
    // finish writes the first out.size() bytes of the MAC (truncation, 1..digest_len()).
    // Returns kInvalidArgument if out is empty or longer than the digest.
    Status finish(std::span<std::uint8_t> out) noexcept;

   private:
    friend class Hmac;
    explicit Stream(const Hmac& hmac) noexcept;
    const Hmac* hmac_;
    HashState inner_;
  };

  // begin starts a Stream from the precomputed inner state.
  Stream begin() const noexcept { return Stream(*this); }

  // compute writes the first out.size() bytes of HMAC(key, message) into `out`.
  Status compute(std::span<const std::uint8_t> message, std::span<std::uint8_t> out) const noexcept;

  // compute_batch computes independent MACs. On the native backend the messages are hashed
  // several at a time (the compression latency of one hides behind the others); otherwise it
  // loops. Results equal compute() per job.
  void compute_batch(std::span<HmacJob> jobs) const noexcept;

  // compute_secret_length writes HMAC(key, header || data[0, secret_len)) into out[0,
  // digest_len()) where secret_len is secret and lies in [min_len, data.size()]: the
  // instructions run and the addresses touched depend only on header.size(), data.size() and
  // min_len, never on secret_len or on any byte's value (the TLS/DTLS MAC-then-encrypt check
  // against Lucky Thirteen). Every compression block that could hold the end of the message
  // is built with masks and hashed, and the real final state is selected by mask.
  // Preconditions (the caller's, not checked at run time on the hot path): min_len <=
  // secret_len <= data.size(), out.size() == digest_len().
  void compute_secret_length(std::span<const std::uint8_t> header,
                             std::span<const std::uint8_t> data, std::size_t secret_len,
                             std::size_t min_len, std::span<std::uint8_t> out) const noexcept;

  // verify recomputes the MAC and compares its first tag.size() bytes with `tag` in constant
  // time. An empty or over-long tag never verifies.
  bool verify(std::span<const std::uint8_t> message,
              std::span<const std::uint8_t> tag) const noexcept;

 private:
  friend class Stream;
  friend struct detail::CbcHmacAccess;  // cbc_hmac.h's stitched kernels
  void compute_lanes(HmacJob* const* jobs, std::size_t num_jobs) const noexcept;

  struct Resolved {
    Backend backend;
  };
  Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key, Resolved backend) noexcept;

  // The native backend's single-lane compression kernel for hash_, taken from the kernel table
  // at construction (the batch kernels are read from the table when a batch runs); null on
  // kOpenSsl, whose compression is OpenSSL's.
  using Compress = void (*)(std::uint32_t*, const std::uint8_t*, std::size_t) noexcept;

  HashAlgorithm hash_;
  Backend backend_;
  Compress compress_ = nullptr;
  std::uint32_t inner_chain_[8] = {};
  std::uint32_t outer_chain_[8] = {};
  HashState inner_;
  HashState outer_;
};

}  // namespace wireseal::crypto
