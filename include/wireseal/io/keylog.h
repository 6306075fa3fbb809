#pragma once
// NSS key log files (SSLKEYLOGFILE, `openssl s_server -keylogfile`): the TLS 1.2 / DTLS 1.2
// lines
//
//   CLIENT_RANDOM <64 hex digits: client random> <96 hex digits: master secret>
//
// looked up by client random. Comments (#), blank lines and other labels (the TLS 1.3
// secrets) are ignored; malformed CLIENT_RANDOM lines are skipped and counted, so a log that
// was being written when it was read still yields its complete lines. Secrets are wiped when
// the KeyLog is destroyed.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::io {

class KeyLog {
 public:
  static constexpr std::size_t kRandomSize = 32;
  static constexpr std::size_t kMasterSecretSize = 48;
  using Random = std::array<std::uint8_t, kRandomSize>;
  using MasterSecret = std::array<std::uint8_t, kMasterSecretSize>;

  // Move-only, so that every copy of the secrets is one this class wipes.
  KeyLog() = default;
  KeyLog(const KeyLog&) = delete;
  KeyLog& operator=(const KeyLog&) = delete;
  KeyLog(KeyLog&&) noexcept = default;
  KeyLog& operator=(KeyLog&& other) noexcept;
  ~KeyLog();

  // parse reads key log text.
  static KeyLog parse(std::string_view text);
  // load reads a key log file: kInvalidArgument if it cannot be read.
  static Result<KeyLog> load(const std::string& path);

  // find returns the master secret logged for `client_random`, or nullptr. If the same random
  // appears more than once, the last line wins (as in Wireshark).
  const MasterSecret* find(std::span<const std::uint8_t, kRandomSize> client_random) const noexcept;

  std::size_t size() const noexcept { return entries_.size(); }
  // malformed_lines counts CLIENT_RANDOM lines that did not parse.
  std::size_t malformed_lines() const noexcept { return malformed_; }

 private:
  struct Entry {
    Random client_random;
    MasterSecret master_secret;
  };
  void wipe() noexcept;
  std::vector<Entry> entries_;
  std::size_t malformed_ = 0;
};

}  // namespace wireseal::io
