#pragma once
// Resealer: a UdpRelay transform that replaces every epoch-1 record in flight by wireseal's
// own sealing of the same plaintext (same epoch and sequence; a fresh random IV for CBC). The
// receiving OpenSSL peer then only completes the handshake (Finished) and prints the other
// side's data if it accepts records sealed by wireseal's RecordSealer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "udp_relay.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::interop {

class Resealer {
 public:
  Resealer(std::string client_keylog, std::string server_keylog)
      : keylogs_{std::move(client_keylog), std::move(server_keylog)} {}

  // operator() rewrites one datagram; records it cannot reseal are forwarded unchanged and
  // reported in failures().
  std::vector<std::uint8_t> operator()(bool from_client, const std::vector<std::uint8_t>& datagram);

  // replaced counts the records one side sent that reached the other as wireseal's bytes;
  // differing how many of those differ from OpenSSL's bytes (GCM nonces, CBC IVs).
  std::size_t replaced(bool from_client) const { return replaced_[from_client ? 0 : 1]; }
  std::size_t differing(bool from_client) const { return differing_[from_client ? 0 : 1]; }
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  // key keys the openers and remembers the cipher once the hellos and a key log line exist.
  bool key();
  std::optional<std::vector<std::uint8_t>> reseal(bool from_client,
                                                  std::span<const std::uint8_t> record);

  std::array<std::string, 2> keylogs_;
  std::vector<RelayedDatagram> history_;
  std::optional<dtls::RecordCipher> cipher_;
  std::optional<dtls::KeyBlock> block_;
  bool encrypt_then_mac_ = false;
  std::optional<dtls::RecordOpener> openers_[2];
  std::size_t replaced_[2] = {0, 0};
  std::size_t differing_[2] = {0, 0};
  std::vector<std::string> failures_;
};

}  // namespace wireseal::interop
