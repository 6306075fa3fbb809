#pragma once
// The engine of `wireseal srtp encrypt|decrypt`: protect or unprotect the RTP and RTCP packets
// of a capture and write the result as a new capture.
//
// Every UDP datagram of the input is written to the output with its timestamp and endpoints,
// in order. A datagram is RTP or RTCP when its first byte says RTP version 2 (RFC 7983's
// 128..191 range); RTCP when its second byte is 200..207 (RFC 5761 §4: payload types 72..79
// with the marker bit are not used by RTP). Those of the selected SSRCs are protected (encrypt)
// or unprotected (decrypt) with one srtp::Session; everything else is copied as it is. A
// packet that fails is copied unchanged and reported. Frames that are not UDP datagrams are
// not carried over (the writer synthesises Ethernet/IP/UDP headers), and timestamps keep
// microsecond precision.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "srtp_keys.h"
#include "wireseal/srtp/profile.h"

namespace wireseal::cli {

enum class SrtpDirection : std::uint8_t { kEncrypt, kDecrypt };

struct SrtpPcapOptions {
  SrtpDirection direction = SrtpDirection::kDecrypt;
  srtp::Profile profile = srtp::Profile::kAes128CmHmacSha1_80;
  SrtpKeyInput keys;
  std::vector<std::uint32_t> ssrcs;  // empty: every SSRC
};

struct SrtpPcapReport {
  std::size_t datagrams = 0;        // UDP datagrams read (and written)
  std::size_t rtp = 0;              // RTP packets processed successfully
  std::size_t rtcp = 0;             // RTCP packets processed successfully
  std::size_t passed_through = 0;   // not RTP/RTCP, or not a selected SSRC
  std::size_t not_udp = 0;          // frames that were not UDP datagrams (not written)
  std::vector<std::string> errors;  // one line per failed packet: frame, SSRC, seq, reason
  std::vector<std::uint8_t> pcap;   // the output capture
};

// rewrite_srtp_pcap processes the capture file `file`. Throws std::runtime_error if it is not
// a readable classic pcap, std::invalid_argument for keys that do not fit the profile.
SrtpPcapReport rewrite_srtp_pcap(std::span<const std::uint8_t> file,
                                 const SrtpPcapOptions& options);

}  // namespace wireseal::cli
