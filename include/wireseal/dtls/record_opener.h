#pragma once
// RecordOpener: DTLS 1.2 record protection for one direction and epoch, receiving side — the
// reverse of RecordSealer (record_sealer.h, which draws the record layouts).
//
// Opening parses one record, checks its epoch and the replay window, authenticates and
// decrypts, and returns a view of the plaintext: in place inside the caller's record, or in a
// disjoint output buffer. Bad records never reveal which check failed (tag, MAC, padding: all
// kAuthFailed), and CBC padding/MAC checks run in constant time. Every rejected record is
// counted by reason in drop_counters(): RFC 6347 §4.1.2.7 has a DTLS endpoint drop such
// records silently, and the counters are how the drops stay visible.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/dtls/replay_window.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

// RecordOpenerOptions configure an opener (negotiated by the handshake except the window
// size and `backend`).
struct RecordOpenerOptions {
  bool encrypt_then_mac = false;  // RFC 7366, CBC ciphers only
  ConnectionId cid{};  // CID this side expects in incoming records (its length parses them)
  std::size_t replay_window = ReplayWindow::kDefaultSize;
  crypto::Backend backend = crypto::Backend::kAuto;
};

namespace detail {
class RecordCrypto;
}

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
  // RecordOpener keys `cipher` for opening records of `epoch`. Misuse (key sizes, options
  // that do not fit the cipher) throws std::invalid_argument.
  RecordOpener(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
               RecordOpenerOptions options = {});
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<RecordOpener> create(RecordCipher cipher, const DirectionKeys& keys,
                                     std::uint16_t epoch,
                                     RecordOpenerOptions options = {}) noexcept;
  ~RecordOpener();
  RecordOpener(RecordOpener&&) noexcept;
  RecordOpener& operator=(RecordOpener&&) noexcept;

  RecordCipher cipher() const noexcept;
  std::uint16_t epoch() const noexcept { return epoch_; }
  const ReplayWindow& replay_window() const noexcept { return window_; }
  const DropCounters& drop_counters() const noexcept { return drops_; }

  // open parses the record at the start of `bytes` (trailing bytes, such as further records
  // of the datagram, are left alone), checks epoch and replay window, authenticates and
  // decrypts in place. Errors: kMalformed (unparseable or impossible lengths, a CID record
  // where none is expected or the reverse), kWrongContext (another epoch, another CID),
  // kReplay, kAuthFailed (tag, MAC or padding). On kAuthFailed the record's payload bytes are
  // zeroed.
  Result<OpenedRecord> open(std::span<std::uint8_t> bytes) noexcept;
  // open out of place: the record at the start of `bytes` is opened into `out` (disjoint from
  // `bytes`, or starting at the same address: then it is the in-place open), which must hold
  // the record (OpenedRecord::record_size bytes, kBufferTooSmall otherwise). `bytes` is not
  // modified; the plaintext view lies inside `out`. On failure the record bytes written to
  // `out` are zeroed.
  Result<OpenedRecord> open(std::span<const std::uint8_t> bytes,
                            std::span<std::uint8_t> out) noexcept;

 private:
  Result<OpenedRecord> open_record(std::span<std::uint8_t> bytes) noexcept;
  // open_aead / open_cbc / open_null authenticate and decrypt the fragment of `r` (at
  // `fragment`, writable) and set `inner` to the plaintext.
  Status open_aead(const RecordView& r, std::uint8_t* fragment,
                   std::span<std::uint8_t>& inner) noexcept;
  Status open_cbc(const RecordView& r, std::uint8_t* fragment,
                  std::span<std::uint8_t>& inner) noexcept;
  Status open_null(const RecordView& r, std::uint8_t* fragment,
                   std::span<std::uint8_t>& inner) noexcept;

  std::unique_ptr<detail::RecordCrypto> crypto_;
  RecordOpenerOptions options_;
  std::uint16_t epoch_;
  ReplayWindow window_;
  DropCounters drops_;
};

}  // namespace wireseal::dtls
