#pragma once
// The 64-byte SMB2 packet header (MS-SMB2 §2.2.1), only the fields that signing, encryption and
// the session engine need, and the compound-chain (NextCommand) walk of §3.2.4.1.4 / §3.3.4.1.3.
//
// All integers are little-endian on the wire. Parsing never copies: it reads the 64 bytes into
// an Smb2Header value; message bodies stay in the caller's buffer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::smb {

// kHeaderSize is the size of every SMB2 header (StructureSize is always 64).
inline constexpr std::size_t kHeaderSize = 64;
// kSignatureOffset / kSignatureSize locate the Signature field inside the header.
inline constexpr std::size_t kSignatureOffset = 48;
inline constexpr std::size_t kSignatureSize = 16;

// Header flags (MS-SMB2 §2.2.1.2).
inline constexpr std::uint32_t kFlagServerToRedir = 0x00000001;  // a response
inline constexpr std::uint32_t kFlagAsyncCommand = 0x00000002;
inline constexpr std::uint32_t kFlagRelatedOperations = 0x00000004;
inline constexpr std::uint32_t kFlagSigned = 0x00000008;
inline constexpr std::uint32_t kFlagDfsOperations = 0x10000000;
inline constexpr std::uint32_t kFlagReplayOperation = 0x20000000;

// Command codes (MS-SMB2 §2.2.1.2).
enum class Command : std::uint16_t {
  kNegotiate = 0x0000,
  kSessionSetup = 0x0001,
  kLogoff = 0x0002,
  kTreeConnect = 0x0003,
  kTreeDisconnect = 0x0004,
  kCreate = 0x0005,
  kClose = 0x0006,
  kFlush = 0x0007,
  kRead = 0x0008,
  kWrite = 0x0009,
  kLock = 0x000A,
  kIoctl = 0x000B,
  kCancel = 0x000C,
  kEcho = 0x000D,
  kQueryDirectory = 0x000E,
  kChangeNotify = 0x000F,
  kQueryInfo = 0x0010,
  kSetInfo = 0x0011,
  kOplockBreak = 0x0012,
};

// NT status values the engine itself looks at.
inline constexpr std::uint32_t kStatusSuccess = 0x00000000;
inline constexpr std::uint32_t kStatusPending = 0x00000103;

// Smb2Header is the decoded header. For synchronous messages `tree_id` and `process_id`
// (the reserved field at offset 32) are meaningful; with kFlagAsyncCommand, `async_id` is.
struct Smb2Header {
  std::uint16_t credit_charge = 0;
  std::uint32_t status = 0;  // ChannelSequence/Reserved in 3.x requests: read as 4 raw bytes
  Command command = Command::kNegotiate;
  std::uint16_t credits = 0;  // CreditRequest in requests, CreditResponse in responses
  std::uint32_t flags = 0;
  std::uint32_t next_command = 0;
  std::uint64_t message_id = 0;
  std::uint32_t process_id = 0;  // sync only
  std::uint32_t tree_id = 0;     // sync only
  std::uint64_t async_id = 0;    // async only
  std::uint64_t session_id = 0;
  std::array<std::uint8_t, kSignatureSize> signature{};

  bool is_response() const noexcept { return (flags & kFlagServerToRedir) != 0; }
  bool is_async() const noexcept { return (flags & kFlagAsyncCommand) != 0; }
  bool is_signed() const noexcept { return (flags & kFlagSigned) != 0; }
};

// FileId is the 16-byte handle of an open file (MS-SMB2 §2.2.14.1).
struct FileId {
  std::uint64_t persistent = 0;
  std::uint64_t volatile_id = 0;
  friend bool operator==(const FileId&, const FileId&) = default;
};

// encode_header writes `header` into out[0, 64) (ProtocolId 0xFE 'S' 'M' 'B', StructureSize
// 64). Returns kBufferTooSmall (writing nothing) when out holds fewer than 64 bytes.
Status encode_header(const Smb2Header& header, std::span<std::uint8_t> out) noexcept;

// decode_header reads the first 64 bytes of `message`. Returns kMalformed when fewer than 64
// bytes are given, the ProtocolId is not 0xFE 'S' 'M' 'B' or StructureSize is not 64.
Result<Smb2Header> decode_header(std::span<const std::uint8_t> message) noexcept;

// is_smb2_message is true when `bytes` starts with the SMB2 ProtocolId (0xFE 'S' 'M' 'B').
bool is_smb2_message(std::span<const std::uint8_t> bytes) noexcept;

// ChainCursor walks a compound chain (MS-SMB2 §3.2.4.1.4): each message's NextCommand is the
// offset of the next header from its own start (8-byte aligned), 0 for the last one. The
// messages are views into the chain the cursor was built over; nothing is copied.
class ChainCursor {
 public:
  ChainCursor() noexcept = default;
  explicit ChainCursor(std::span<std::uint8_t> chain) noexcept : rest_(chain) {}

  // done is true when every message has been returned.
  bool done() const noexcept { return rest_.empty(); }

  // next returns the next message (header included, up to NextCommand or the end of the
  // chain). kMalformed when a header does not parse, NextCommand is not a multiple of 8, is
  // smaller than 64 or points past the chain; the cursor is then exhausted.
  Result<std::span<std::uint8_t>> next() noexcept;

 private:
  std::span<std::uint8_t> rest_;
};

// ChainBuilder lays out a compound chain in a caller buffer: each append reserves room for a
// header plus `body_len` bytes, 8-byte aligned after the previous message, and patches the
// previous header's NextCommand. Headers are encoded by append; bodies are written by the
// caller into the returned span.
class ChainBuilder {
 public:
  explicit ChainBuilder(std::span<std::uint8_t> buffer) noexcept : buffer_(buffer) {}

  // append encodes `header` (its next_command is overwritten with 0) at the next 8-byte
  // aligned offset and returns the body span (body_len bytes after the header). Returns
  // kBufferTooSmall when the message does not fit; the chain is unchanged then.
  Result<std::span<std::uint8_t>> append(const Smb2Header& header, std::size_t body_len) noexcept;

  // size is the chain length so far (the end of the last message, without trailing padding).
  std::size_t size() const noexcept { return end_; }
  std::span<std::uint8_t> chain() noexcept { return buffer_.first(end_); }

 private:
  std::span<std::uint8_t> buffer_;
  std::size_t last_ = 0;
  std::size_t end_ = 0;
  bool empty_ = true;
};

}  // namespace wireseal::smb
