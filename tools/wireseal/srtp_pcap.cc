#include "srtp_pcap.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "wireseal/io/pcap.h"
#include "wireseal/srtp/session.h"

namespace wireseal::cli {
namespace {

constexpr std::size_t kRtpHeader = 12;
constexpr std::size_t kRtcpHeader = 8;
constexpr std::size_t kMaxStreams = 1 << 16;

std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

enum class Kind { kOther, kRtp, kRtcp };

// classify applies RFC 7983's first-byte demultiplexing and RFC 5761 §4's RTP/RTCP split.
Kind classify(std::span<const std::uint8_t> p) {
  if (p.size() < kRtcpHeader || p[0] < 128 || p[0] > 191) {
    return Kind::kOther;
  }
  if (p[1] >= 200 && p[1] <= 207) {
    return Kind::kRtcp;
  }
  return p.size() >= kRtpHeader ? Kind::kRtp : Kind::kOther;
}

io::LinkType output_link(io::LinkType in) {
  switch (in) {
    case io::LinkType::kEthernet:
    case io::LinkType::kRaw:
    case io::LinkType::kIpv4:
      return in;
    default:
      return io::LinkType::kEthernet;
  }
}

srtp::Session make_session(const SrtpPcapOptions& o) {
  const srtp::MasterKey keys[] = {{o.keys.key, o.keys.salt, o.keys.mki}};
  srtp::SessionConfig c;
  c.profile = o.profile;
  c.keys = keys;
  c.mki_len = o.keys.mki.size();
  c.max_streams = kMaxStreams;
  try {
    return srtp::Session(c);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("keys do not fit {}: {}", srtp::info(o.profile).name, e.what()));
  }
}

}  // namespace

SrtpPcapReport rewrite_srtp_pcap(std::span<const std::uint8_t> file,
                                 const SrtpPcapOptions& options) {
  Result<io::PcapReader> reader = io::PcapReader::create(file);
  if (!reader) {
    throw std::runtime_error(
        fmt::format("not a readable pcap capture ({})", to_string(reader.error())));
  }
  srtp::Session session = make_session(options);
  io::PcapWriter writer(output_link(reader->link_type()));
  SrtpPcapReport report;
  const bool encrypt = options.direction == SrtpDirection::kEncrypt;
  std::vector<std::uint8_t> buf;
  while (!reader->done()) {
    Result<io::UdpDatagram> d = reader->next();
    if (!d) {
      if (d.error() == Error::kBadState) {
        break;
      }
      report.errors.push_back(
          fmt::format("capture: truncated frame record ({}); rest dropped", to_string(d.error())));
      break;
    }
    std::span<const std::uint8_t> out = d->payload;
    const Kind kind = classify(d->payload);
    const std::uint32_t ssrc = kind == Kind::kRtp    ? be32(d->payload.data() + 8)
                               : kind == Kind::kRtcp ? be32(d->payload.data() + 4)
                                                     : 0;
    const bool selected =
        kind != Kind::kOther &&
        (options.ssrcs.empty() ||
         std::find(options.ssrcs.begin(), options.ssrcs.end(), ssrc) != options.ssrcs.end());
    if (selected) {
      buf.assign(d->payload.begin(), d->payload.end());
      buf.resize(d->payload.size() +
                 (encrypt ? session.rtp_overhead() + session.rtcp_overhead() : 0));
      Result<std::size_t> n = Error::kInvalidArgument;
      if (kind == Kind::kRtp) {
        if (encrypt) {
          n = session.protect_rtp(buf, d->payload.size());
        } else if (Result<std::span<std::uint8_t>> r = session.unprotect_rtp(buf); r) {
          n = r->size();
        } else {
          n = r.error();
        }
      } else if (encrypt) {
        n = session.protect_rtcp(buf, d->payload.size());
      } else if (Result<std::span<std::uint8_t>> r = session.unprotect_rtcp(buf); r) {
        n = r->size();
      } else {
        n = r.error();
      }
      if (n) {
        out = std::span<const std::uint8_t>(buf.data(), *n);
        ++(kind == Kind::kRtp ? report.rtp : report.rtcp);
      } else {
        const std::string what =
            kind == Kind::kRtp ? fmt::format("RTP SSRC 0x{:08x} seq {}", ssrc,
                                             std::uint32_t{d->payload[2]} << 8 | d->payload[3])
                               : fmt::format("RTCP SSRC 0x{:08x} PT {}", ssrc, d->payload[1]);
        report.errors.push_back(fmt::format("frame {}: {}: {} failed: {}", d->frame, what,
                                            encrypt ? "protect" : "unprotect",
                                            to_string(n.error())));
      }
    } else {
      ++report.passed_through;
    }
    if (Status s = writer.add_udp(d->timestamp_ns, d->source, d->destination, out); !s) {
      report.errors.push_back(
          fmt::format("frame {}: cannot write the datagram: {}", d->frame, to_string(s.error())));
    }
    ++report.datagrams;
  }
  report.not_udp = reader->skipped();
  report.pcap = writer.bytes();
  return report;
}

}  // namespace wireseal::cli
