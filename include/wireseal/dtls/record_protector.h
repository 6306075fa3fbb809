#pragma once
// DTLS 1.2 record protection, one object per direction and epoch.
//
// RecordSealer turns plaintext into a protected record; RecordOpener checks and decrypts one.
// Both are keyed once from the direction's keys (DirectionKeys, from a KeyBlock) and then work
// on caller buffers with no allocation and no copy of the payload:
//
//   AEAD (GCM, CCM):    header | explicit nonce (epoch|seq, 8) | ciphertext | tag
//   ChaCha20-Poly1305:  header | ciphertext | tag
//   CBC, MAC-then-enc:  header | IV (16) | E(plaintext | MAC | padding)
//   CBC, enc-then-MAC:  header | IV (16) | E(plaintext | padding) | MAC      (RFC 7366)
//   NULL:               header | plaintext | MAC
//
// With a connection ID (RFC 9146) the header carries the CID and the encrypted part is the
// DTLSInnerPlaintext: content | real type | zero padding.
//
// Sealing writes the whole record into `out`; if the plaintext already sits at
// out[payload_offset()] it is protected in place. Opening decrypts in place and returns a view
// of the plaintext inside the caller's record. Bad records never reveal which check failed
// (tag, MAC, padding: all kAuthFailed), and CBC padding/MAC checks run in constant time.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/dtls/replay_window.h"
#include "wireseal/random.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

// ConnectionId is a CID of 0..255 bytes kept by value.
class ConnectionId {
 public:
  ConnectionId() noexcept = default;
  // ConnectionId copies `bytes` (at most 255; longer throws std::invalid_argument).
  explicit ConnectionId(std::span<const std::uint8_t> bytes);
  std::span<const std::uint8_t> bytes() const noexcept { return {bytes_.data(), len_}; }
  std::size_t size() const noexcept { return len_; }
  bool empty() const noexcept { return len_ == 0; }

 private:
  std::array<std::uint8_t, kMaxCidLength> bytes_{};
  std::size_t len_ = 0;
};

struct RecordOptions {
  std::uint16_t version = kDtls12Version;
  bool encrypt_then_mac = false;  // RFC 7366, CBC ciphers only (negotiated by the handshake)
  ConnectionId cid;               // CID carried in this direction's records (RFC 9146)
  std::size_t cid_padding = 0;    // zero bytes added to every CID inner plaintext (sealer)
  // CBC IVs (sealer). Empty (the default): each sealer draws IVs from its own AES-128-CTR
  // generator keyed once from the system DRBG — unpredictable, and ~10 ns instead of the
  // ~1 µs of a locked RAND_bytes call per record. Tests inject a deterministic source.
  RandomSource random{};
  std::size_t replay_window = ReplayWindow::kDefaultSize;  // opener
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
// throws). CBC records take a fresh unpredictable IV each.
class RecordSealer {
 public:
  // RecordSealer keys the block's cipher for sealing `direction`'s records of `epoch`, from
  // sequence 0. The direction is claimed: a second RecordSealer for it from the same block
  // throws std::invalid_argument, as does misuse of the options.
  RecordSealer(KeyBlock& block, Direction direction, std::uint16_t epoch,
               RecordOptions options = {});
  // RecordSealer over key material that did not come from a KeyBlock (a key log, a test tool
  // re-creating a peer's records), starting at `first_sequence`. The caller then carries the
  // rule the KeyBlock enforces: never two sealers, or overlapping sequence ranges, for the
  // same keys and epoch. Misuse (key sizes) throws std::invalid_argument.
  RecordSealer(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
               RecordOptions options = {}, std::uint64_t first_sequence = 0);
  ~RecordSealer();
  RecordSealer(RecordSealer&&) noexcept;
  RecordSealer& operator=(RecordSealer&&) noexcept;

  RecordCipher cipher() const noexcept;
  std::uint16_t epoch() const noexcept { return epoch_; }
  // next_sequence is the sequence number the next record gets.
  std::uint64_t next_sequence() const noexcept { return next_sequence_; }

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
  // at once, CBC suites 8 CBC chains and 2-lane SHA-NI HMACs.
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
  RecordOptions options_;
  std::uint16_t epoch_;
  std::uint64_t next_sequence_;
  bool aead_without_cid_ = false;  // seal() takes the straight-line seal_aead() path
};

// OpenedRecord describes a record that authenticated.
struct OpenedRecord {
  ContentType type;  // the real content type (inner type for CID records)
  std::uint16_t epoch;
  std::uint64_t sequence;
  std::span<std::uint8_t> plaintext;  // inside the caller's buffer
  std::size_t record_size;            // bytes of the input this record occupied
};

class RecordOpener {
 public:
  // RecordOpener keys `cipher` for opening records of `epoch`. `options.cid` is the CID this
  // side expects in incoming records (its length is how CID records are parsed).
  RecordOpener(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
               RecordOptions options = {});
  ~RecordOpener();
  RecordOpener(RecordOpener&&) noexcept;
  RecordOpener& operator=(RecordOpener&&) noexcept;

  RecordCipher cipher() const noexcept;
  std::uint16_t epoch() const noexcept { return epoch_; }
  const ReplayWindow& replay_window() const noexcept { return window_; }

  // open parses the record at the start of `bytes` (trailing bytes, such as further records
  // of the datagram, are left alone), checks epoch and replay window, authenticates and
  // decrypts in place. Errors: kMalformed (unparseable or impossible lengths, wrong CID),
  // kBadState (another epoch), kReplay, kAuthFailed (tag, MAC or padding). On kAuthFailed the
  // record's payload bytes are zeroed.
  Result<OpenedRecord> open(std::span<std::uint8_t> bytes) noexcept;

 private:
  std::unique_ptr<detail::RecordCrypto> crypto_;
  RecordOptions options_;
  std::uint16_t epoch_;
  ReplayWindow window_;
};

}  // namespace wireseal::dtls
