#pragma once
// Result<T>: the error-as-value type of every packet path in wireseal.
//
// It is the subset of C++23 std::expected that we use (has_value, operator bool, value, error,
// operator*, operator->), so it can become an alias for std::expected once both supported
// compilers ship <expected>. Packet paths never throw; they return one of these.

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
  kReplay,              // already seen or too old for the replay window
  kSequenceExhausted,   // sealing would reuse a sequence number / nonce
  kKeyLimit,            // usage limit of the key reached: re-key
  kUnsupported,         // algorithm or feature not available in this build / on this CPU
  kBadState,            // operation not valid in the object's current state
  kWrongContext,        // the input belongs to a context this object does not hold: another
                        // DTLS epoch, another SMB SessionId, an SSRC with no stream (and none
                        // may be created)
  kTableFull,           // a fixed-capacity table (SRTP streams) has no room for another entry
  kOutOfMemory,         // set-up (a create() factory) could not allocate
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
    case Error::kWrongContext:
      return ErrorOrigin::kPeer;
    default:
      return ErrorOrigin::kCaller;
  }
}

// to_string returns a short, static, human-readable name for `error`.
const char* to_string(Error error) noexcept;

namespace detail {

// ResultStorage holds the T or the Error. For trivially copyable T it declares no copy, move
// or destructor: the implicit ones are trivial, so Result<T> is trivially copyable like its T,
// and a Result<std::size_t> is returned in registers (docs/DESIGN.md, Decisions).
template <class T, bool = std::is_trivially_copyable_v<T>>
class ResultStorage {
 protected:
  explicit ResultStorage(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : value_(value), has_value_(true) {}
  explicit ResultStorage(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)
      : value_(std::move(value)), has_value_(true) {}
  explicit ResultStorage(Error error) noexcept : error_(error), has_value_(false) {}

  union {
    T value_;
    Error error_;
  };
  bool has_value_;
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

// Result<T> holds either a T or an Error; it is trivially copyable exactly when T is.
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

  bool has_value() const noexcept { return this->has_value_; }
  explicit operator bool() const noexcept { return this->has_value_; }

  // value / operator* require has_value(); error requires !has_value().
  T& value() & noexcept { return this->value_; }
  const T& value() const& noexcept { return this->value_; }
  T&& value() && noexcept { return std::move(this->value_); }
  T& operator*() & noexcept { return this->value_; }
  const T& operator*() const& noexcept { return this->value_; }
  T&& operator*() && noexcept { return std::move(this->value_); }
  T* operator->() noexcept { return &this->value_; }
  const T* operator->() const noexcept { return &this->value_; }
  Error error() const noexcept { return this->error_; }
};

// Result<void> is success or an Error; `Status` is its everyday name.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() noexcept = default;
  Result(Error error) noexcept : error_(error), has_value_(false) {}  // NOLINT: implicit

  bool has_value() const noexcept { return has_value_; }
  explicit operator bool() const noexcept { return has_value_; }
  Error error() const noexcept { return error_; }

 private:
  Error error_{};
  bool has_value_ = true;
};

using Status = Result<void>;

// DropCounters count the inputs an opener (DTLS RecordOpener, SRTP Session, SMB SecureChannel)
// rejected, by reason, for monitoring (RFC 6347 §4.1.2.7 asks DTLS to drop bad records
// silently; counting them is how an operator still sees an attack or a misrouted flow).
struct DropCounters {
  std::uint64_t malformed = 0;      // kMalformed, and caller-side errors of an open call
  std::uint64_t auth = 0;           // kAuthFailed: bad tag, MAC, padding or MKI
  std::uint64_t replay = 0;         // kReplay
  std::uint64_t wrong_context = 0;  // kWrongContext (epoch, SessionId, SSRC), kTableFull

  // count adds one drop for `error`.
  constexpr void count(Error error) noexcept {
    switch (error) {
      case Error::kAuthFailed:
        ++auth;
        break;
      case Error::kReplay:
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
