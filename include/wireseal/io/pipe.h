#pragma once
// MemoryPipe: an in-memory, bidirectional byte stream between two endpoints in one thread,
// the transport of round-trip tests and benchmarks (the role net.Pipe plays for go-smb2).
//
// Each direction is a ring buffer allocated once at construction; writes copy into it and
// reads copy out, with no allocation afterwards. Non-blocking: write accepts what fits, read
// returns what is there (0 when empty). Not thread-safe: one thread drives both ends.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace wireseal::io {

// ByteRing is one direction of a MemoryPipe.
class ByteRing {
 public:
  // ByteRing allocates `capacity` bytes (at least 1).
  explicit ByteRing(std::size_t capacity);

  // write copies as much of `data` as fits and returns the count.
  std::size_t write(std::span<const std::uint8_t> data) noexcept;
  // read copies up to out.size() buffered bytes into `out` and returns the count.
  std::size_t read(std::span<std::uint8_t> out) noexcept;

  std::size_t readable() const noexcept { return size_; }
  std::size_t writable() const noexcept { return buffer_.size() - size_; }

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t head_ = 0;  // next byte to read
  std::size_t size_ = 0;
};

class MemoryPipe {
 public:
  // Endpoint is one side: it writes into one ring and reads from the other.
  class Endpoint {
   public:
    std::size_t write(std::span<const std::uint8_t> data) noexcept { return out_->write(data); }
    std::size_t read(std::span<std::uint8_t> out) noexcept { return in_->read(out); }
    std::size_t readable() const noexcept { return in_->readable(); }

   private:
    friend class MemoryPipe;
    Endpoint(ByteRing* in, ByteRing* out) noexcept : in_(in), out_(out) {}
    ByteRing* in_;
    ByteRing* out_;
  };

  // MemoryPipe allocates `capacity` bytes per direction.
  explicit MemoryPipe(std::size_t capacity);
  MemoryPipe(const MemoryPipe&) = delete;
  MemoryPipe& operator=(const MemoryPipe&) = delete;

  Endpoint& client() noexcept { return client_; }
  Endpoint& server() noexcept { return server_; }

 private:
  ByteRing to_server_;
  ByteRing to_client_;
  Endpoint client_;
  Endpoint server_;
};

}  // namespace wireseal::io
