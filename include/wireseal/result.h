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
// callers count drops by reason rather than parsing strings.
enum class Error : std::uint8_t {
  kBufferTooSmall = 1,  // an output span cannot hold the result; nothing was written
  kAliasing,            // input and output overlap without being identical
  kInvalidArgument,     // a length or parameter outside what the algorithm allows
  kMalformed,           // input bytes do not parse
  kAuthFailed,          // tag, MAC or padding check failed (never says which)
  kReplay,              // already seen or too old for the replay window
  kSequenceExhausted,   // sealing would reuse a sequence number / nonce
  kKeyLimit,            // usage limit of the key reached
  kUnsupported,         // algorithm or feature not available in this build / on this CPU
  kBadState,            // operation not valid in the object's current state
  kUnknownStream,       // no stream/session for this identifier (SSRC, session ID) and none may be
                        // created
};

// to_string returns a short, static, human-readable name for `error`.
const char* to_string(Error error) noexcept;

// Result<T> holds either a T or an Error.
template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)  // NOLINT: implicit
      : has_value_(true) {
    ::new (&value_) T(value);
  }
  Result(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT: implicit
      : has_value_(true) {
    ::new (&value_) T(std::move(value));
  }
  Result(Error error) noexcept : error_(error), has_value_(false) {}  // NOLINT: implicit

  Result(const Result& other) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&value_) T(other.value_);
    } else {
      error_ = other.error_;
    }
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      this->~Result();
      ::new (this) Result(other);
    }
    return *this;
  }
  Result& operator=(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      this->~Result();
      ::new (this) Result(std::move(other));
    }
    return *this;
  }
  ~Result() {
    if (has_value_) {
      value_.~T();
    }
  }

  bool has_value() const noexcept { return has_value_; }
  explicit operator bool() const noexcept { return has_value_; }

  // value / operator* require has_value(); error requires !has_value().
  T& value() & noexcept { return value_; }
  const T& value() const& noexcept { return value_; }
  T&& value() && noexcept { return std::move(value_); }
  T& operator*() & noexcept { return value_; }
  const T& operator*() const& noexcept { return value_; }
  T&& operator*() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  Error error() const noexcept { return error_; }

 private:
  union {
    T value_;
    Error error_;
  };
  bool has_value_;
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

}  // namespace wireseal
