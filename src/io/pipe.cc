// MemoryPipe: two ring buffers, one per direction.
#include "wireseal/io/pipe.h"

#include <algorithm>
#include <cstring>

namespace wireseal::io {

ByteRing::ByteRing(std::size_t capacity) : buffer_(std::max<std::size_t>(capacity, 1)) {}

std::size_t ByteRing::write(std::span<const std::uint8_t> data) noexcept {
  const std::size_t n = std::min(data.size(), writable());
  const std::size_t tail = (head_ + size_) % buffer_.size();
  const std::size_t first = std::min(n, buffer_.size() - tail);
  std::memcpy(buffer_.data() + tail, data.data(), first);
  std::memcpy(buffer_.data(), data.data() + first, n - first);
  size_ += n;
  return n;
}

std::size_t ByteRing::read(std::span<std::uint8_t> out) noexcept {
  const std::size_t n = std::min(out.size(), size_);
  const std::size_t first = std::min(n, buffer_.size() - head_);
  std::memcpy(out.data(), buffer_.data() + head_, first);
  std::memcpy(out.data() + first, buffer_.data(), n - first);
  head_ = (head_ + n) % buffer_.size();
  size_ -= n;
  if (size_ == 0) {
    head_ = 0;  // keep later copies contiguous
  }
  return n;
}

MemoryPipe::MemoryPipe(std::size_t capacity)
    : to_server_(capacity),
      to_client_(capacity),
      client_(&to_client_, &to_server_),
      server_(&to_server_, &to_client_) {}

}  // namespace wireseal::io
