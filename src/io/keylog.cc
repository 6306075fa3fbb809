#include "wireseal/io/keylog.h"

#include <algorithm>
#include <utility>

#include "common/ct.h"
#include "common/text.h"
#include "wireseal/io/pcap.h"

namespace wireseal::io {
namespace {

// decode_hex fills `out` from exactly 2 * out.size() hex digits.
bool decode_hex(std::string_view hex, std::span<std::uint8_t> out) noexcept {
  if (hex.size() != 2 * out.size()) {
    return false;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = wireseal::detail::hex_digit(hex[2 * i]);
    const int lo = wireseal::detail::hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return false;
    }
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

// next_field splits off the first whitespace-separated field of `line`.
std::string_view next_field(std::string_view& line) noexcept {
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  const std::size_t end = std::min(line.find_first_of(" \t"), line.size());
  const std::string_view field = line.substr(0, end);
  line.remove_prefix(end);
  return field;
}

}  // namespace

KeyLog::~KeyLog() { wipe(); }

KeyLog& KeyLog::operator=(KeyLog&& other) noexcept {
  if (this != &other) {
    wipe();
    entries_ = std::move(other.entries_);
    malformed_ = other.malformed_;
  }
  return *this;
}

void KeyLog::wipe() noexcept {
  if (!entries_.empty()) {
    wireseal::detail::secure_wipe(entries_.data(), entries_.size() * sizeof(Entry));
  }
}

KeyLog KeyLog::parse(std::string_view text) {
  KeyLog log;
  // Reserve up front: growing would free copies of the secrets without wiping them.
  log.entries_.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  while (!text.empty()) {
    const std::size_t eol = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(std::min(eol + 1, text.size()));
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (next_field(line) != "CLIENT_RANDOM") {
      continue;  // comment, blank line, or a label this reader does not need
    }
    Entry e;
    const std::string_view random_hex = next_field(line);
    const std::string_view secret_hex = next_field(line);
    if (!decode_hex(random_hex, e.client_random) || !decode_hex(secret_hex, e.master_secret) ||
        !next_field(line).empty()) {
      ++log.malformed_;
      continue;
    }
    log.entries_.push_back(e);
    wireseal::detail::secure_wipe(&e, sizeof e);
  }
  return log;
}

Result<KeyLog> KeyLog::load(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = load_file(path);
  if (!bytes) {
    return bytes.error();
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  KeyLog log = parse(text);
  wireseal::detail::secure_wipe(bytes->data(), bytes->size());
  return log;
}

const KeyLog::MasterSecret* KeyLog::find(
    std::span<const std::uint8_t, kRandomSize> client_random) const noexcept {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (std::equal(client_random.begin(), client_random.end(), it->client_random.begin())) {
      return &it->master_secret;
    }
  }
  return nullptr;
}

}  // namespace wireseal::io
