#pragma once
// Aead: an AEAD key, scheduled once, sealing and opening any number of messages.
//
// The tag is detached: each protocol puts it somewhere else (after a DTLS record, before the
// SRTCP index, inside the SMB transform header), so the core never assumes it follows the
// ciphertext. Ciphertext has the length of the plaintext.
//
// Buffers: `out` must hold at least in.size() bytes; exactly in.size() are written. `in` and
// `out` may be identical (in place) or disjoint; partial overlap returns Error::kAliasing. The
// tag span must not overlap `out`. Nothing here allocates after construction.
//
// Failure: open() compares the tag in constant time and, on failure, zeroes the in.size()
// bytes of `out` so no unauthenticated plaintext escapes.
//
// Threads: an Aead is not safe for concurrent seal/open (backends keep per-key scratch state);
// give each thread its own object.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

enum class AeadAlgorithm : std::uint8_t {
  kAes128Gcm,  // NIST SP 800-38D, 12-byte nonce, tag 16 (or 12..16)
  kAes192Gcm,  // no protocol here uses AES-192 AEADs; kept so NIST's sets run whole
  kAes256Gcm,
  kAes128Ccm,  // NIST SP 800-38C / RFC 3610, nonce 7..13 bytes, tag 4..16 even
  kAes192Ccm,
  kAes256Ccm,
  kChaCha20Poly1305,  // RFC 8439, 12-byte nonce, 16-byte tag
};

// AeadInfo is one row of the AEAD table (aead.cc): sizes and usage limits, in the style of
// the protocols' descriptors (dtls::RecordCipherInfo, srtp::ProfileInfo, smb::CipherInfo).
// The limits are the published per-key bounds for messages up to 2^16 bytes at an attacker
// advantage of 2^-57 (RFC 9001 §6.6, Appendix B): `confidentiality_limit` messages sealed,
// `integrity_limit` forgeries tried (failed opens). A protocol that can re-key should before
// either; each protocol's descriptor says what it enforces.
struct AeadInfo {
  AeadAlgorithm algorithm;
  const char* name;                     // "AES-128-GCM", ...
  Primitive primitive;                  // backend family (is_available / resolve)
  std::size_t key_len;                  // 16, 24 or 32
  std::size_t nonce_len;                // the default (AeadOptions); CCM allows 7..13
  std::size_t tag_len;                  // the default and longest
  std::uint64_t confidentiality_limit;  // messages per key
  std::uint64_t integrity_limit;        // failed opens per key
};

// info returns the table row of `algorithm` (a static object, valid forever).
const AeadInfo& info(AeadAlgorithm algorithm) noexcept;

// to_string names `algorithm` (info(algorithm).name).
const char* to_string(AeadAlgorithm algorithm) noexcept;

// primitive_of returns the backend family of `algorithm` (info(algorithm).primitive).
Primitive primitive_of(AeadAlgorithm algorithm) noexcept;

struct AeadOptions {
  std::size_t tag_len = 16;    // GCM: 12..16; CCM: 4, 6, ..., 16; ChaCha20-Poly1305: 16
  std::size_t nonce_len = 12;  // GCM and ChaCha20-Poly1305: 12; CCM: 7..13
  Backend backend = Backend::kAuto;
};

// SealJob / OpenJob describe one message of a batch call. `status` is written by the call.
struct SealJob {
  std::span<const std::uint8_t> nonce;
  std::span<const std::uint8_t> aad;
  std::span<const std::uint8_t> in;
  std::span<std::uint8_t> out;
  std::span<std::uint8_t> tag;
  Status status;
};
struct OpenJob {
  std::span<const std::uint8_t> nonce;
  std::span<const std::uint8_t> aad;
  std::span<const std::uint8_t> in;
  std::span<std::uint8_t> out;
  std::span<const std::uint8_t> tag;
  Status status;
};

namespace detail {
class AeadImpl;
}

class Aead {
 public:
  // Aead schedules `key` for `algorithm`. Set-up misuse (wrong key size, unsupported tag or
  // nonce length, a backend this build or CPU lacks) throws std::invalid_argument.
  Aead(AeadAlgorithm algorithm, std::span<const std::uint8_t> key, AeadOptions options = {});
  ~Aead();
  Aead(Aead&&) noexcept;
  Aead& operator=(Aead&&) noexcept;
  Aead(const Aead&) = delete;
  Aead& operator=(const Aead&) = delete;

  AeadAlgorithm algorithm() const noexcept { return algorithm_; }
  std::size_t tag_len() const noexcept { return tag_len_; }
  std::size_t nonce_len() const noexcept { return nonce_len_; }
  // backend is the implementation actually chosen (never kAuto).
  Backend backend() const noexcept { return backend_; }

  // seal encrypts `in` into `out` under `nonce` (nonce_len() bytes) and `aad`, and writes
  // tag_len() bytes into `tag` (which must hold at least that many).
  Status seal(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
              std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
              std::span<std::uint8_t> tag) noexcept;

  // open authenticates `in` and `aad` against `tag` (exactly tag_len() bytes) and decrypts
  // into `out`. Returns kAuthFailed (and zeroes out[0, in.size())) if the tag is wrong.
  Status open(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
              std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
              std::span<const std::uint8_t> tag) noexcept;

  // seal_batch / open_batch process independent messages, each job getting its own status.
  // Backends may interleave jobs (the native CCM kernel runs up to 8 CBC-MAC chains at once);
  // results are identical to calling seal/open per job. A job's `out` and `tag` spans are
  // trimmed to the bytes written.
  void seal_batch(std::span<SealJob> jobs) noexcept;
  void open_batch(std::span<OpenJob> jobs) noexcept;

  // batch_interleaves tells whether seal_batch/open_batch run a multi-buffer kernel (true for
  // the native AES-CCM backend). When false they only loop, and callers that must frame each
  // message anyway may as well call seal/open directly.
  bool batch_interleaves() const noexcept;
  // batch_interleave_max is the longest message (in text bytes) the multi-buffer kernel takes:
  // longer batch jobs run one at a time inside the batch (x86 AES-GCM: 256, beyond which
  // ipsec-mb's single-message kernel is as fast); 0 when batches only loop.
  std::size_t batch_interleave_max() const noexcept;

 private:
  Status check_seal(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> in,
                    std::span<std::uint8_t> out, std::span<std::uint8_t> tag) const noexcept;
  Status check_open(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> in,
                    std::span<std::uint8_t> out, std::span<const std::uint8_t> tag) const noexcept;

  std::unique_ptr<detail::AeadImpl> impl_;
  detail::AeadImpl* single_ = nullptr;  // impl_, or the object it hands single messages to
  AeadAlgorithm algorithm_;
  Backend backend_;
  std::size_t tag_len_;
  std::size_t nonce_len_;
  std::size_t max_in_len_;
};

}  // namespace wireseal::crypto
