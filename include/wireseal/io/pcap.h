#pragma once
// Classic libpcap capture files: a reader that yields the UDP datagrams of a capture and a
// writer that records UDP datagrams (tests, tools). Not pcapng.
//
// The reader never copies packet bytes: every UdpDatagram points into the file buffer the
// caller loaded (keep it alive while using the datagrams). It accepts both byte orders,
// microsecond and nanosecond timestamps, and the link types below; it parses IPv4/IPv6 and
// UDP headers with bounds checks and silently skips (and counts) frames that are not complete,
// unfragmented UDP datagrams.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::io {

enum class LinkType : std::uint32_t {
  kNull = 0,         // BSD loopback: 4-byte address family in the capturing host's byte order
  kEthernet = 1,     // Ethernet II, optionally 802.1Q / 802.1ad tagged
  kRaw = 101,        // raw IP, version from the first nibble
  kLinuxSll = 113,   // Linux cooked capture v1
  kIpv4 = 228,       // raw IPv4
  kIpv6 = 229,       // raw IPv6
  kLinuxSll2 = 276,  // Linux cooked capture v2
};

// IpAddress is an IPv4 (4 bytes used) or IPv6 address.
struct IpAddress {
  std::uint8_t version = 4;  // 4 or 6
  std::array<std::uint8_t, 16> bytes{};

  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept;
  std::span<const std::uint8_t> view() const noexcept {
    return {bytes.data(), version == 4 ? std::size_t{4} : std::size_t{16}};
  }
  // to_string is dotted quad for IPv4 and the RFC 5952 compressed form for IPv6.
  std::string to_string() const;
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

struct UdpEndpoint {
  IpAddress address;
  std::uint16_t port = 0;
  // to_string is "1.2.3.4:5" or "[::1]:5".
  std::string to_string() const;
  friend bool operator==(const UdpEndpoint&, const UdpEndpoint&) = default;
};

struct UdpDatagram {
  std::size_t frame;           // 1-based frame number in the capture (as Wireshark)
  std::uint64_t timestamp_ns;  // since the Unix epoch
  UdpEndpoint source;
  UdpEndpoint destination;
  std::span<const std::uint8_t> payload;  // view into the file buffer
};

// load_file reads a whole file. kInvalidArgument if it cannot be opened or read.
Result<std::vector<std::uint8_t>> load_file(const std::string& path);
// save_file writes `bytes` to `path`, replacing it. kInvalidArgument on any I/O failure.
Status save_file(const std::string& path, std::span<const std::uint8_t> bytes);

class PcapReader {
 public:
  // create checks the 24-byte global header of `file`: kMalformed if it is not a classic pcap
  // file (or is truncated), kUnsupported for a link type not listed in LinkType.
  static Result<PcapReader> create(std::span<const std::uint8_t> file) noexcept;

  LinkType link_type() const noexcept { return link_type_; }
  bool nanosecond() const noexcept { return nanosecond_; }
  bool done() const noexcept { return rest_.empty(); }
  // frames is the number of frames read so far; skipped how many of them were not UDP
  // datagrams (other protocols, fragments, truncated or malformed headers).
  std::size_t frames() const noexcept { return frames_; }
  std::size_t skipped() const noexcept { return skipped_; }

  // next returns the next UDP datagram. kBadState at the end of the file; kMalformed if a
  // frame record runs past the end of the file (the rest of the file is then dropped).
  Result<UdpDatagram> next() noexcept;

 private:
  PcapReader(std::span<const std::uint8_t> rest, LinkType link_type, bool swapped,
             bool nanosecond) noexcept
      : rest_(rest), link_type_(link_type), swapped_(swapped), nanosecond_(nanosecond) {}
  std::uint32_t load32(const std::uint8_t* p) const noexcept;

  std::span<const std::uint8_t> rest_;
  LinkType link_type_;
  bool swapped_;     // file written big-endian
  bool nanosecond_;  // 0xa1b23c4d magic
  std::size_t frames_ = 0;
  std::size_t skipped_ = 0;
};

// read_udp_datagrams returns every UDP datagram of a capture (views into `file`).
Result<std::vector<UdpDatagram>> read_udp_datagrams(std::span<const std::uint8_t> file);

class PcapWriter {
 public:
  // PcapWriter starts a little-endian, microsecond capture of `link_type`: kEthernet (IPv4 and
  // IPv6), kRaw (IPv4 and IPv6) or kIpv4. Other link types throw std::invalid_argument.
  explicit PcapWriter(LinkType link_type = LinkType::kEthernet);

  // add_udp appends one frame carrying a UDP datagram with valid IP and UDP checksums.
  // kInvalidArgument if the endpoints' IP versions differ or the payload does not fit in one
  // unfragmented datagram; kUnsupported for IPv6 on a kIpv4 capture.
  Status add_udp(std::uint64_t timestamp_ns, const UdpEndpoint& source,
                 const UdpEndpoint& destination, std::span<const std::uint8_t> payload);

  std::size_t frames() const noexcept { return frames_; }
  // bytes is the capture file so far (global header + frames).
  const std::vector<std::uint8_t>& bytes() const noexcept { return bytes_; }
  Status save(const std::string& path) const { return save_file(path, bytes_); }

 private:
  LinkType link_type_;
  std::vector<std::uint8_t> bytes_;
  std::size_t frames_ = 0;
  std::uint16_t ip_id_ = 0;
};

}  // namespace wireseal::io
