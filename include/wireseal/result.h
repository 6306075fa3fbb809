#pragma once
// Result<T>: the error-as-value type of every packet path in wireseal.
//
// It is the subset of C++23 std::expected that we use (has_value, operator bool, value, error,
// operator*, operator->), so it can become an alias for std::expected once both supported
// compilers ship <expected>. Packet paths never throw; they return one of these.

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace wireseal {

// Error is the compact reason a packet-path operation failed. Each value has protocol meaning;
// callers count drops by reason rather than parsing strings. error_origin() says whose fault
// each one is.
enum class Error : std::uint8_t {
  kBufferTooSmall = 1,  // an output span cannot hold the result; nothing was written
  kAliasing,            // input and output overlap without being identical
  kInvalidArgument,     // a length or parameter outside what the algorithm allows
  kMalformed,           // input bytes do not parse
  kAuthFailed,          // tag, MAC or padding check failed (never says which)
  kReplay,              // already seen (a sender: that index was already used)
  kSequenceExhausted,   // sealing would reuse a sequence number / nonce
  kKeyLimit,            // usage limit of the key reached: re-key
  kUnsupported,         // algorithm or feature not available in this build / on this CPU
  kBadState,            // operation not valid in the object's current state
  kWrongContext,        // the input belongs to a context this object does not hold: another
                        // DTLS epoch, another SMB SessionId, an SSRC with no stream (and none
                        // may be created)
  kTableFull,           // a fixed-capacity table (SRTP streams) has no room for another entry
  kOutOfMemory,         // set-up (a create() factory) could not allocate
  kTimedOut,            // the peer did not answer within the time allowed (a handshake)
  kPeerAlert,           // the peer ended the association with a fatal alert
  kPeerRefused,         // the peer answered with an error status (an SMB NTSTATUS)
  kClosed,              // the peer closed the connection
  kReplayOld,           // older than the replay window: nobody can say whether it was seen
};

// ErrorOrigin says who has to act on an error. kPeer: the input bytes were bad (malformed,
// forged, replayed, or meant for another context) — drop the packet, count it, carry on.
// kCaller: this call or this object's state was wrong (buffers, arguments, exhausted keys or
// sequence space, a full table) — the program must change what it does.
enum class ErrorOrigin : std::uint8_t { kCaller, kPeer };

constexpr ErrorOrigin error_origin(Error error) noexcept {
  switch (error) {
    case Error::kMalformed:
    case Error::kAuthFailed:
    case Error::kReplay:
    case Error::kReplayOld:
    case Error::kWrongContext:
    case Error::kTimedOut:
    case Error::kPeerAlert:
    case Error::kPeerRefused:
    case Error::kClosed:
      return ErrorOrigin::kPeer;
    default:
      return ErrorOrigin::kCaller;
  }
}

// to_string returns a short, static, human-readable name for `error`.
const char* to_string(Error error) noexcept;

namespace detail {

// ResultTag is the word beside a trivially copyable T: an unsigned integer of T's own size
// when T is a 2-, 4- or 8-byte scalar-like type (size equal to alignment), so that the pair
// has no padding, else a byte. 0 means "holds a value"; anything else is the Error.
template <std::size_t Size, std::size_t Align>
struct ResultTagFor {
  using type = std::uint8_t;
};
template <>
struct ResultTagFor<2, 2> {
  using type = std::uint16_t;
};
template <>
struct ResultTagFor<4, 4> {
  using type = std::uint32_t;
};
template <>
struct ResultTagFor<8, 8> {
  using type = std::uint64_t;
};
template <class T>
using ResultTag = typename ResultTagFor<sizeof(T), alignof(T)>::type;

// ResultStorage holds the T or the Error. For a trivially copyable T that can be default
// constructed it is a plain pair {T, tag} with no user-declared copy, move or destructor:
// Result<T> is then trivially copyable like its T and a Result<std::size_t> is returned in
// RAX:RDX. Both halves are whole words because of how GCC returns a small aggregate: it
// assembles each register-sized half on the stack and reloads it in one load. A union of T and
// Error, or a one-byte flag beside the T, made that reload span several narrower stores — a
// store-forwarding stall on every call, which cost SRTP's 100-byte protect ~10 %
// (docs/DESIGN.md, Decisions). An error leaves value_ value-initialized, never indeterminate.
template <class T>
inline constexpr bool kPlainResult =
    std::conjunction_v<std::is_trivially_copyable<T>, std::is_default_constructible<T>>;

template <class T, bool = kPlainResult<T>>
class ResultStorage {
 protected:
  explicit ResultStorage(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : value_(value) {}
  explicit ResultStorage(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)
      : value_(std::move(value)) {}
  explicit ResultStorage(Error error) noexcept : value_{}, tag_(static_cast<ResultTag<T>>(error)) {}

  bool holds_value() const noexcept { return tag_ == 0; }
  Error stored_error() const noexcept { return static_cast<Error>(tag_); }

  T value_;

 private:
  ResultTag<T> tag_ = 0;  // Error values start at 1
};

// The general case copies, moves and destroys the T only when it holds one.
template <class T>
class ResultStorage<T, false> {
 protected:
  explicit ResultStorage(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : has_value_(true) {
    ::new (&value_) T(value);
  }
  explicit ResultStorage(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_value_(true) {
    ::new (&value_) T(std::move(value));
  }
  explicit ResultStorage(Error error) noexcept : error_(error), has_value_(false) {}

  ResultStorage(const ResultStorage& other) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&value_) T(other.value_);
    } else {
      error_ = other.error_;
    }
  }
  ResultStorage(ResultStorage&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  ResultStorage& operator=(const ResultStorage& other) {
    if (this != &other) {
      destroy();
      if (other.has_value_) {
        ::new (&value_) T(other.value_);
      } else {
        error_ = other.error_;
      }
      has_value_ = other.has_value_;
    }
    return *this;
  }
  ResultStorage& operator=(ResultStorage&& other) noexcept(
      std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      destroy();
      if (other.has_value_) {
        ::new (&value_) T(std::move(other.value_));
      } else {
        error_ = other.error_;
      }
      has_value_ = other.has_value_;
    }
    return *this;
  }
  ~ResultStorage() { destroy(); }

  bool holds_value() const noexcept { return has_value_; }
  Error stored_error() const noexcept { return error_; }

  union {
    T value_;
    Error error_;
  };
  bool has_value_;

 private:
  void destroy() noexcept {
    if (has_value_) {
      value_.~T();
    }
  }
};

}  // namespace detail

// Result<T> holds either a T or an Error; it is trivially copyable when T is (and T can be
// default constructed, as every value type of the packet paths can).
template <class T>
class [[nodiscard]] Result : private detail::ResultStorage<T> {
  using Storage = detail::ResultStorage<T>;

 public:
  using value_type = T;

  Result(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)  // NOLINT: implicit
      : Storage(value) {}
  Result(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT: implicit
      : Storage(std::move(value)) {}
  Result(Error error) noexcept : Storage(error) {}  // NOLINT: implicit

  bool has_value() const noexcept { return this->holds_value(); }
  explicit operator bool() const noexcept { return this->holds_value(); }

  // value / operator* require has_value(); error requires !has_value().
  T& value() & noexcept { return this->value_; }
  const T& value() const& noexcept { return this->value_; }
  T&& value() && noexcept { return std::move(this->value_); }
  T& operator*() & noexcept { return this->value_; }
  const T& operator*() const& noexcept { return this->value_; }
  T&& operator*() && noexcept { return std::move(this->value_); }
  T* operator->() noexcept { return &this->value_; }
  const T* operator->() const noexcept { return &this->value_; }
  Error error() const noexcept { return this->stored_error(); }
};

// Result<void> is success or an Error; `Status` is its everyday name.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() noexcept = default;
  Result(Error error) noexcept : error_(error) {}  // NOLINT: implicit

  bool has_value() const noexcept { return error_ == Error{}; }
  explicit operator bool() const noexcept { return has_value(); }
  Error error() const noexcept { return error_; }

 private:
  // One byte, 0 (no Error has that value) for success: a Status comes back in AL.
  Error error_{};
};

using Status = Result<void>;

// DropCounters count the inputs an opener (DTLS RecordOpener, SRTP Session, SMB SecureChannel)
// rejected, by reason, for monitoring (RFC 6347 §4.1.2.7 asks DTLS to drop bad records
// silently; counting them is how an operator still sees an attack or a misrouted flow).
struct DropCounters {
  std::uint64_t malformed = 0;      // kMalformed, and caller-side errors of an open call
  std::uint64_t auth = 0;           // kAuthFailed: bad tag, MAC, padding or MKI
  std::uint64_t replay = 0;         // kReplay, kReplayOld
  std::uint64_t wrong_context = 0;  // kWrongContext (epoch, SessionId, SSRC), kTableFull

  // count adds one drop for `error`.
  constexpr void count(Error error) noexcept {
    switch (error) {
      case Error::kAuthFailed:
        ++auth;
        break;
      case Error::kReplay:
      case Error::kReplayOld:
        ++replay;
        break;
      case Error::kWrongContext:
      case Error::kTableFull:
        ++wrong_context;
        break;
      default:
        ++malformed;
        break;
    }
  }
  constexpr std::uint64_t total() const noexcept {
    return malformed + auth + replay + wrong_context;
  }
};

}  // namespace wireseal
