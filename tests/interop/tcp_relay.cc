// TcpRelay: see tcp_relay.h.
#include "tcp_relay.h"

#include <array>
#include <chrono>
#include <span>
#include <vector>

namespace wireseal::interop {
namespace {

constexpr auto kPollEvery = std::chrono::milliseconds(100);

// pump copies `from` to `to` until `from` closes, an error, or `stop`. `inspect` sees each
// chunk before it is forwarded and may change it.
template <class Inspect>
void pump(io::TcpStream& from, io::TcpStream& to, const std::atomic<bool>& stop,
          Inspect&& inspect) {
  std::vector<std::uint8_t> buffer(1 << 16);
  while (!stop.load()) {
    const Result<std::size_t> n = from.read(buffer);
    if (!n && n.error() == Error::kTimedOut) {
      continue;
    }
    if (!n || *n == 0) {
      return;
    }
    const std::span<std::uint8_t> chunk = std::span(buffer).first(*n);
    inspect(chunk);
    if (!to.write_all(chunk)) {
      return;
    }
  }
}

// FrameWatcher follows the 4-byte SMB frame prefixes of a stream and flips byte 100 of the
// first frame longer than `over`.
struct FrameWatcher {
  std::size_t over;
  std::atomic<bool>* corrupted;
  std::array<std::uint8_t, 4> prefix{};
  std::size_t prefix_have = 0;
  std::size_t frame_left = 0;  // bytes of the current frame still to come
  std::size_t frame_len = 0;

  void operator()(std::span<std::uint8_t> chunk) {
    for (std::size_t i = 0; i < chunk.size();) {
      if (frame_left == 0) {
        prefix[prefix_have++] = chunk[i++];
        if (prefix_have == 4) {
          frame_len = (std::size_t{prefix[1]} << 16) | (std::size_t{prefix[2]} << 8) | prefix[3];
          frame_left = frame_len;
          prefix_have = 0;
        }
        continue;
      }
      const std::size_t at = frame_len - frame_left;  // offset of chunk[i] in the frame
      const std::size_t take = std::min(frame_left, chunk.size() - i);
      if (over != 0 && !corrupted->load() && frame_len > over && at <= 100 && 100 < at + take) {
        chunk[i + (100 - at)] ^= 0x01;
        corrupted->store(true);
      }
      frame_left -= take;
      i += take;
    }
  }
};

}  // namespace

TcpRelay::TcpRelay(std::uint16_t server_port, std::size_t corrupt_frames_over)
    : listener_(0), server_port_(server_port), corrupt_over_(corrupt_frames_over) {
  thread_ = std::thread([this] { run(); });
}

TcpRelay::~TcpRelay() {
  stop_.store(true);
  // Unblock accept() if no client ever came.
  try {
    io::TcpStream::connect_loopback(port());
  } catch (const std::exception&) {
  }
  thread_.join();
}

void TcpRelay::run() {
  io::TcpStream client = listener_.accept();
  if (stop_.load()) {
    return;
  }
  io::TcpStream server = io::TcpStream::connect_loopback(server_port_);
  client.set_timeout(kPollEvery);
  server.set_timeout(kPollEvery);
  std::thread upstream([&] { pump(client, server, stop_, [](std::span<std::uint8_t>) {}); });
  pump(server, client, stop_, FrameWatcher{corrupt_over_, &corrupted_});
  upstream.join();
}

}  // namespace wireseal::interop
