#pragma once
// Session: SRTP and SRTCP protection (RFC 3711, RFC 6188, RFC 7714) for many streams that
// share one set of master keys, with RFC 6904 header-extension encryption and RFC 9335
// cryptex.
//
// Set-up (the constructor) derives the session keys of every master key once and allocates
// the stream table at its final size. After that no call allocates: streams are created in
// place in a fixed-capacity open-addressing table (found by SSRC in O(1)), either explicitly
// (add_stream) or on the first packet that protects / authenticates.
//
// Packet layouts (RFC 3711 §3.1, §3.4; RFC 7714 §8, §9):
//
//   SRTP, HMAC profiles:  RTP header | payload (encrypted)          | [MKI] | tag (10 or 4)
//   SRTP, AEAD:           RTP header | payload (encrypted) | tag 16 | [MKI]
//   SRTCP, HMAC:          header+SSRC (8) | rest (encrypted) | E|index (4) | [MKI] | tag (10)
//   SRTCP, AEAD:          header+SSRC (8) | rest (encrypted) | tag 16 | E|index (4) | [MKI]
//
// Buffers: protect writes the protected packet into a caller buffer that has room for the
// tag and MKI (protected_rtp_size); in place when the packet already sits at its start,
// otherwise from a disjoint input. Unprotect authenticates, decrypts in place (or into a
// disjoint buffer) and returns a view of the plain packet inside the caller's buffer. Partial
// overlap of input and output returns kAliasing. Nothing unauthenticated is ever returned; on
// failure an output buffer's packet bytes are zeroed when decryption had started.
//
// Errors (wireseal::Error): kMalformed (does not parse), kBufferTooSmall, kAliasing,
// kAuthFailed (tag, unknown MKI), kReplay (index seen; also a sender reusing an index),
// kReplayOld (index behind the replay window), kSequenceExhausted (ROC or SRTCP index would
// wrap: re-key), kKeyLimit (the master key protected all RFC 3711 §9.2 allows, over all its
// streams: re-key), kWrongContext (unknown SSRC when streams are not created automatically),
// kTableFull (a new SSRC finds the stream table full), kInvalidArgument (cryptex on an
// extension it cannot carry).
// Unprotect failures are also counted per reason in drop_counters().
//
// Threads: a Session is not safe for concurrent use; give each thread its own.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/crypto/backend.h"
#include "wireseal/result.h"
#include "wireseal/srtp/profile.h"
#include "wireseal/srtp/replay_window.h"

namespace wireseal::srtp {

inline constexpr std::size_t kMaxMkiLength = 128;  // libsrtp's SRTP_MAX_MKI_LEN
inline constexpr std::size_t kMaxMasterKeys = 255;

// MasterKey is one master key and salt (and its MKI) handed to a Session. The Session copies
// what it needs (derived keys, the MKI bytes); the spans need only live for the constructor.
struct MasterKey {
  std::span<const std::uint8_t> key;   // info(profile).master_key_len bytes
  std::span<const std::uint8_t> salt;  // info(profile).master_salt_len bytes
  std::span<const std::uint8_t> mki;   // SessionConfig::mki_len bytes (empty without MKI)
};

// SenderMarks are a sending stream's high-water marks: protect never uses an SRTP index below
// rtp_next nor an SRTCP index below rtcp_next. They only move forward, survive set_roc, and
// outlive the stream when it is removed (the Session keeps them per SSRC).
struct SenderMarks {
  std::uint64_t rtp_next = 0;   // 1 + the highest SRTP index ever protected (0: none)
  std::uint32_t rtcp_next = 1;  // the next SRTCP index to send (libsrtp sends 1 first)

  bool sent_anything() const noexcept { return rtp_next != 0 || rtcp_next != 1; }
};

// StreamOptions configure one stream (one SSRC).
struct StreamOptions {
  std::uint32_t roc = 0;  // rollover counter the first packet is assumed to carry
  // The SRTCP index the first protect_rtcp uses (0: libsrtp's 1). A stream moved to new keys
  // continues its count this way; under the same keys it never goes below what an earlier
  // stream of this SSRC used.
  std::uint32_t srtcp_index = 0;
  // What this SSRC already used under the same session keys in another Session (one made from
  // one of this Session's master keys, as the libsrtp2 drop-in's keyings of one key are): the
  // stream starts above these marks, as it does above those of a removed stream of its SSRC.
  SenderMarks sent_elsewhere = {};
  std::uint8_t key_index = 0;  // master key (index into SessionConfig::keys) protect uses
  bool cryptex = false;        // RFC 9335: encrypt CSRCs and the whole header extension
  // Identical resends (libsrtp's allow_repeat_tx): protect may take an index this stream
  // protected before, within the window given to Session::reserve_resends, when the packet is
  // byte-identical to the first (a retransmission): the output is then the same bytes as
  // before. Any other packet at a used index is zeroed and refused with kReplay.
  bool allow_resend = false;
  // RFC 6904: IDs (1..255) of header-extension elements to encrypt. Copied into the stream.
  std::span<const std::uint8_t> encrypted_extension_ids = {};
};

// SessionConfig is everything a Session is built from.
struct SessionConfig {
  Profile profile = Profile::kAes128CmHmacSha1_80;
  std::span<const MasterKey> keys;  // 1..kMaxMasterKeys; several only with an MKI
  std::size_t mki_len = 0;          // 0 (no MKI) .. kMaxMkiLength
  std::size_t max_streams = 64;     // hard cap; the table is allocated for it up front
  // Removed sending streams whose SSRC's high-water marks are kept (16 bytes each, allocated
  // up front), so that a stream re-created for that SSRC never reuses an index.
  std::size_t max_retired_senders = 64;
  std::size_t replay_window = kDefaultReplayWindow;  // rounded up to a power of two >= 64
  bool create_streams_on_first_packet = true;        // else only add_stream creates streams
  // Lower per-key usage limits than the profile's (0: the profile's, RFC 3711 §9.2), for a
  // policy that re-keys sooner; a value above the profile's is capped to it.
  std::uint64_t max_srtp_packets_per_key = 0;
  std::uint64_t max_srtcp_packets_per_key = 0;
  StreamOptions stream_defaults;  // options of streams created on first packet
  crypto::Backend backend = crypto::Backend::kAuto;
};

// KeyUsage is how many packets a master key has protected, over all its streams.
struct KeyUsage {
  std::uint64_t srtp_packets = 0;
  std::uint64_t srtcp_packets = 0;
};

// DropCounters (wireseal/result.h) count unprotect failures by reason; an unknown SSRC that
// may not be created, or finds the table full, counts as wrong_context.
using wireseal::DropCounters;

// PacketJob is one packet of a batch call. For protect, the packet is at buffer[0, length)
// and buffer has room for the protected packet; for unprotect, buffer[0, length) holds the
// protected packet. The call sets `status` and, on success, `length` to the output length
// (the plain packet stays at the start of `buffer`).
struct PacketJob {
  std::span<std::uint8_t> buffer;
  std::size_t length = 0;
  Status status;
};

namespace detail {
class SessionState;
}

class Session {
 public:
  // Session derives the session keys of every master key and allocates the stream table.
  // Misuse throws std::invalid_argument: wrong key/salt/MKI lengths, no keys, several keys
  // without an MKI, duplicate MKIs, max_streams of 0 or above 2^24, a window above
  // kMaxReplayWindow, a default key_index out of range.
  explicit Session(const SessionConfig& config);
  // create is the constructor that never throws (kInvalidArgument, kOutOfMemory).
  static Result<Session> create(const SessionConfig& config) noexcept;
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const ProfileInfo& profile() const noexcept;

  // --- sizes (all exact; none allocates)

  // rtp_overhead is the largest protected_rtp_size(p) - p.size(): tag + MKI, plus 4 when
  // cryptex may have to add an empty extension header to a packet with CSRCs (RFC 9335 §5.1).
  std::size_t rtp_overhead() const noexcept;
  // protected_rtp_size is the exact length protect_rtp produces for the RTP packet `rtp`
  // under its stream's (or the defaults') options, or 0 if the header does not parse.
  std::size_t protected_rtp_size(std::span<const std::uint8_t> rtp) const noexcept;
  // max_rtp_size is the largest RTP packet (header + payload) whose protected form always
  // fits in `buffer_len` bytes (0 if none does).
  std::size_t max_rtp_size(std::size_t buffer_len) const noexcept;
  // rtcp_overhead is tag + 4 (E|index) + MKI: protected_rtcp_size(n) = n + rtcp_overhead().
  std::size_t rtcp_overhead() const noexcept;
  std::size_t protected_rtcp_size(std::size_t rtcp_len) const noexcept {
    return rtcp_len + rtcp_overhead();
  }
  std::size_t max_rtcp_size(std::size_t buffer_len) const noexcept {
    return buffer_len > rtcp_overhead() ? buffer_len - rtcp_overhead() : 0;
  }

  // --- SRTP

  // protect_rtp protects the RTP packet at buffer[0, rtp_len) in place and returns the
  // protected length (protected_rtp_size). `buffer` must hold that many bytes, else
  // kBufferTooSmall with nothing written. The stream is created if needed (and allowed).
  Result<std::size_t> protect_rtp(std::span<std::uint8_t> buffer, std::size_t rtp_len) noexcept;
  // protect_rtp writes the protection of `rtp` into `out` (disjoint from `rtp`, or starting at
  // the same address) and returns the length written.
  Result<std::size_t> protect_rtp(std::span<const std::uint8_t> rtp,
                                  std::span<std::uint8_t> out) noexcept;
  // unprotect_rtp authenticates and decrypts the SRTP packet `srtp` in place and returns the
  // plain RTP packet, a prefix of `srtp`. On failure nothing changes except that decrypted
  // bytes (cryptex with AEAD rearranges the header first) are zeroed.
  Result<std::span<std::uint8_t>> unprotect_rtp(std::span<std::uint8_t> srtp) noexcept;
  // unprotect_rtp decrypts `srtp` into `out` (disjoint or same start; at least as large as the
  // plain packet) and returns the plain packet, a prefix of `out`.
  Result<std::span<std::uint8_t>> unprotect_rtp(std::span<const std::uint8_t> srtp,
                                                std::span<std::uint8_t> out) noexcept;

  // --- SRTCP (the stream is the sender SSRC at bytes 4..7 of the first RTCP packet)

  // protect_rtcp protects the compound RTCP packet at buffer[0, rtcp_len) in place, encrypted
  // (E = 1) unless the profile is NULL, with the stream's next SRTCP index.
  Result<std::size_t> protect_rtcp(std::span<std::uint8_t> buffer, std::size_t rtcp_len) noexcept;
  Result<std::size_t> protect_rtcp(std::span<const std::uint8_t> rtcp,
                                   std::span<std::uint8_t> out) noexcept;
  // unprotect_rtcp authenticates and (if E is set) decrypts in place; returns the RTCP packet.
  Result<std::span<std::uint8_t>> unprotect_rtcp(std::span<std::uint8_t> srtcp) noexcept;
  Result<std::span<std::uint8_t>> unprotect_rtcp(std::span<const std::uint8_t> srtcp,
                                                 std::span<std::uint8_t> out) noexcept;

  // --- batches: results identical to calling the single-packet function per job, in order.
  // RTP batches hand the keystream and HMAC-SHA1 work of up to 16 packets to the crypto core
  // at once (interleaved SHA-NI lanes: about half the cost per AES-CM packet), and the GCM
  // work of packets with payloads up to Aead::batch_interleave_max() where the backend has a
  // multi-buffer kernel (x86 with AVX-512 and VAES; other GCM packets take the single path,
  // which is as fast); replay checks still come before authentication and window updates
  // after it (src/srtp/batch.cc). SRTCP batches do the same with SRTCP's explicit indices
  // (src/srtp/rtcp_batch.cc).
  void protect_rtp_batch(std::span<PacketJob> jobs) noexcept;
  void unprotect_rtp_batch(std::span<PacketJob> jobs) noexcept;
  void protect_rtcp_batch(std::span<PacketJob> jobs) noexcept;
  void unprotect_rtcp_batch(std::span<PacketJob> jobs) noexcept;

  // --- streams

  // reserve_resends makes room (set-up: this allocates, 24 bytes per index per stream) for
  // `streams` streams with StreamOptions::allow_resend to resend any of their last `window`
  // indexes (rounded up to a power of two, at most the replay window). A stream takes a ring
  // at its first protect and gives it back when removed; one that finds none free cannot
  // resend. kInvalidArgument for 0 or over 2^24 streams; kBadState if reserved before with
  // less room; kOutOfMemory.
  Status reserve_resends(std::size_t window, std::size_t streams) noexcept;

  // add_stream creates the stream `ssrc` with `options`. kBadState if it exists,
  // kTableFull if the table is full; kInvalidArgument if options.key_index has no key.
  // If an earlier stream of `ssrc` protected packets and was removed, the new one continues
  // above the indexes that one used (and at least at its ROC).
  Status add_stream(std::uint32_t ssrc, const StreamOptions& options) noexcept;
  // remove_stream forgets `ssrc` (kWrongContext if unknown) and reuses its slot. A stream that
  // protected packets leaves its high-water marks behind (the last SRTP index and next SRTCP
  // index it used), so a later stream of the same SSRC cannot repeat its keystream; when
  // max_retired_senders such SSRCs are already kept, removing another sender is refused with
  // kBadState (re-key with a new Session to start afresh).
  Status remove_stream(std::uint32_t ssrc) noexcept;
  bool has_stream(std::uint32_t ssrc) const noexcept;
  // sender_marks are the marks of `ssrc` in this Session: its stream's, else those a removed
  // stream of it left, else the initial marks (nothing sent).
  SenderMarks sender_marks(std::uint32_t ssrc) const noexcept;
  std::size_t stream_count() const noexcept;
  std::size_t max_streams() const noexcept;

  // roc returns the stream's rollover counter: that of the highest index protected or
  // authenticated, or the configured initial ROC before the first packet. kWrongContext if
  // the stream is unknown.
  Result<std::uint32_t> roc(std::uint32_t ssrc) const noexcept;
  // set_roc sets the rollover counter (RFC 4771-style signalling, or a joining receiver): the
  // next packet's index is estimated from ROC || its sequence number, and the RTP replay
  // window restarts. kWrongContext if the stream is unknown. On a stream that has protected
  // packets the ROC cannot go back past what it protected: kBadState if no index under `roc`
  // lies above the highest it protected, and afterwards protect still refuses (kReplay) every
  // index at or below that high-water mark.
  Status set_roc(std::uint32_t ssrc, std::uint32_t roc) noexcept;
  // set_active_key makes protect use master key `key_index` for `ssrc` (MKI key change).
  Status set_active_key(std::uint32_t ssrc, std::size_t key_index) noexcept;
  // key_usage is what master key `key_index` has protected (kInvalidArgument if no such key).
  // Protect refuses with kKeyLimit once a key reaches its limit (ProfileInfo, SessionConfig).
  Result<KeyUsage> key_usage(std::size_t key_index) const noexcept;
  // srtcp_index is the SRTCP index the next protect_rtcp of `ssrc` uses.
  Result<std::uint32_t> srtcp_index(std::uint32_t ssrc) const noexcept;

  const DropCounters& drop_counters() const noexcept;
  // stream_state_size is the bytes of state one stream takes (slot + replay bitmaps + its
  // hash entries), excluding the key material shared by the whole session.
  std::size_t stream_state_size() const noexcept;

 private:
  std::unique_ptr<detail::SessionState> state_;
};

}  // namespace wireseal::srtp
