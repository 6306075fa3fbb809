#pragma once
// RecordSealer: DTLS 1.2 record protection for one direction and epoch, sending side.
//
// Keyed once from the direction's keys (DirectionKeys, from a KeyBlock); after that it works
// on caller buffers with no allocation and no copy of the payload:
//
//   AEAD (GCM, CCM):    header | explicit nonce (epoch|seq, 8) | ciphertext | tag
//   ChaCha20-Poly1305:  header | ciphertext | tag
//   CBC, MAC-then-enc:  header | IV (16) | E(plaintext | MAC | padding)
//   CBC, enc-then-MAC:  header | IV (16) | E(plaintext | padding) | MAC      (RFC 7366)
//   NULL:               header | plaintext | MAC
//
// With a connection ID (RFC 9146) the header carries the CID and the encrypted part is the
// DTLSInnerPlaintext: content | real type | zero padding. RecordOpener (record_opener.h)
// reverses it.
//
// Buffers, as everywhere in wireseal: in place when the plaintext already sits where the
// protected form puts it (out[payload_offset()]), otherwise from a disjoint input; any other
// overlap is kAliasing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/random.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

// RecordSealerOptions configure a sealer (all negotiated by the handshake except `random`
// and `backend`).
struct RecordSealerOptions {
  std::uint16_t version = kDtls12Version;
  bool encrypt_then_mac = false;  // RFC 7366, CBC ciphers only
  ConnectionId cid{};             // CID carried in this direction's records (RFC 9146)
  std::size_t cid_padding = 0;    // zero bytes added to every CID inner plaintext
  // CBC IVs. Empty (the default): each sealer draws IVs from its own AES-128-CTR generator
  // keyed once from the system DRBG — unpredictable, and ~10 ns instead of the ~1 µs of a
  // locked RAND_bytes call per record. Tests inject a deterministic source.
  RandomSource random{};
  crypto::Backend backend = crypto::Backend::kAuto;
};

namespace detail {
class RecordCrypto;
}

// Nonces: an AEAD record's nonce is derived from epoch || sequence (RFC 5288 salt || explicit
// nonce for GCM/CCM, RFC 7905 IV XOR for ChaCha20-Poly1305), and a sealer's sequence only
// counts up, is consumed before the record is sealed, and refuses to pass 2^48 - 1. A nonce
// therefore repeats only if two sealers seal with the same keys and epoch; the KeyBlock
// constructor rules that out by claiming the direction's keys (a second sealer for it
// fails). CBC records take a fresh unpredictable IV each.
class RecordSealer {
 public:
  // RecordSealer keys the block's cipher for sealing `direction`'s records of `epoch`, from
  // sequence 0. The direction is claimed: a second RecordSealer for it from the same block
  // throws std::invalid_argument, as does misuse of the options.
  RecordSealer(KeyBlock& block, Direction direction, std::uint16_t epoch,
               RecordSealerOptions options = {});
  // RecordSealer over key material that did not come from a KeyBlock (a key log, a test tool
  // re-creating a peer's records), starting at `first_sequence`. The caller then carries the
  // rule the KeyBlock enforces: never two sealers, or overlapping sequence ranges, for the
  // same keys and epoch. Misuse (key sizes) throws std::invalid_argument.
  RecordSealer(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
               RecordSealerOptions options = {}, std::uint64_t first_sequence = 0);
  // create is the constructor that never throws: kInvalidArgument for what it would throw
  // on, kOutOfMemory when set-up cannot allocate.
  static Result<RecordSealer> create(KeyBlock& block, Direction direction, std::uint16_t epoch,
                                     RecordSealerOptions options = {}) noexcept;
  static Result<RecordSealer> create(RecordCipher cipher, const DirectionKeys& keys,
                                     std::uint16_t epoch, RecordSealerOptions options = {},
                                     std::uint64_t first_sequence = 0) noexcept;
  ~RecordSealer();
  RecordSealer(RecordSealer&&) noexcept;
  RecordSealer& operator=(RecordSealer&&) noexcept;

  RecordCipher cipher() const noexcept;
  std::uint16_t epoch() const noexcept { return epoch_; }
  // next_sequence is the sequence number the next record gets.
  std::uint64_t next_sequence() const noexcept { return next_sequence_; }

  // --- sizes (exact; none allocates)
  // payload_offset is where a plaintext placed in the output buffer is sealed in place.
  std::size_t payload_offset() const noexcept;
  // sealed_size is the exact record length for a plaintext of `plaintext_len` bytes.
  std::size_t sealed_size(std::size_t plaintext_len) const noexcept;
  // overhead is the largest sealed_size(n) - n over all n.
  std::size_t overhead() const noexcept;
  // max_plaintext_size is the largest plaintext whose record fits in `record_len` bytes (0 also
  // when not even an empty record fits: compare with sealed_size(0)).
  std::size_t max_plaintext_size(std::size_t record_len) const noexcept;

  // seal writes one record of `type` carrying `plaintext` into out[0, sealed_size(n)) and
  // returns its length. `plaintext` may be out[payload_offset(), +n) (in place) or disjoint
  // from `out`. Errors: kBufferTooSmall, kAliasing, kInvalidArgument (plaintext over 2^14;
  // a fragment over kMaxFragmentLength with the CID padding; type tls12_cid, or 0 with a CID:
  // neither could be opened as sealed), kSequenceExhausted (the 48-bit sequence would wrap:
  // rekey with a new epoch).
  Result<std::size_t> seal(ContentType type, std::span<const std::uint8_t> plaintext,
                           std::span<std::uint8_t> out) noexcept;
  // seal in place: the plaintext is buffer[payload_offset(), +plaintext_len); the record is
  // written over buffer[0, sealed_size(plaintext_len)). Same errors.
  Result<std::size_t> seal(ContentType type, std::span<std::uint8_t> buffer,
                           std::size_t plaintext_len) noexcept;

  // Job is one record of seal_batch; `status` and `record_len` are written by it.
  struct Job {
    ContentType type;
    std::span<const std::uint8_t> plaintext;
    std::span<std::uint8_t> out;
    Status status;
    std::size_t record_len = 0;
  };
  // seal_batch seals the jobs in order (consecutive sequence numbers for the successful ones),
  // exactly as calling seal() per job would, but hands the cryptography to the crypto core in
  // groups of 8 so that multi-buffer kernels interleave records: AES-CCM runs 8 CBC-MAC chains
  // at once, CBC suites 8 CBC chains and 2-lane SHA-NI HMACs, AES-GCM (x86 with AVX-512 and
  // VAES) 8 records of up to 256 bytes. Records the AEAD's batch kernel would not take are
  // sealed alone in their turn.
  void seal_batch(std::span<Job> jobs) noexcept;

 private:
  struct Framed;
  Status frame(ContentType type, std::span<const std::uint8_t> plaintext,
               std::span<std::uint8_t> out, Framed& framed) noexcept;
  void seal_framed(Framed& framed) noexcept;
  void seal_group_aead(Framed* framed, Job* const* jobs, std::size_t count) noexcept;
  void seal_group_mac(Framed* framed, Job* const* jobs, std::size_t count) noexcept;
  void fresh_iv(std::uint8_t* iv) noexcept;
  Result<std::size_t> seal_aead(ContentType type, std::span<const std::uint8_t> plaintext,
                                std::span<std::uint8_t> out) noexcept;

  std::unique_ptr<detail::RecordCrypto> crypto_;
  RecordSealerOptions options_;
  std::uint16_t epoch_;
  std::uint64_t next_sequence_;
  bool aead_without_cid_ = false;  // seal() takes the straight-line seal_aead() path
};

}  // namespace wireseal::dtls
