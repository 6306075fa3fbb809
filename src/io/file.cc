// Whole-file reads and writes for captures and key logs: the only file access in wireseal.
#include <cstdio>
#include <memory>

#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

Result<std::vector<std::uint8_t>> load_file(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    return Error::kInvalidArgument;
  }
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[64 * 1024];
  // Read in chunks rather than seeking for the size, so pipes and /dev/fd paths work too.
  for (;;) {
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, f.get());
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (n < sizeof chunk) {
      break;
    }
  }
  if (std::ferror(f.get()) != 0) {
    return Error::kInvalidArgument;
  }
  return bytes;
}

Status save_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) {
    return Error::kInvalidArgument;
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) {
    return Error::kInvalidArgument;
  }
  if (std::fclose(f.release()) != 0) {
    return Error::kInvalidArgument;
  }
  return {};
}

}  // namespace wireseal::io
