// Hello extensions (RFC 5246 §7.4.1.4): each known extension's inner syntax, read and written
// in one place per extension.
#include "wireseal/dtls/handshake/extensions.h"

#include <algorithm>
#include <array>

#include "codec.h"
#include "common/byte_cursor.h"

namespace wireseal::dtls {
namespace {

using detail::MessageWriter;

constexpr std::uint8_t kHostName = 0;  // RFC 6066 NameType host_name

// bit_of gives each known extension a bit for the duplicate check; 0 for unknown ones.
std::uint32_t bit_of(std::uint16_t type) noexcept {
  switch (static_cast<ExtensionType>(type)) {
    case ExtensionType::kServerName:
      return 1u << 0;
    case ExtensionType::kSupportedGroups:
      return 1u << 1;
    case ExtensionType::kEcPointFormats:
      return 1u << 2;
    case ExtensionType::kSignatureAlgorithms:
      return 1u << 3;
    case ExtensionType::kUseSrtp:
      return 1u << 4;
    case ExtensionType::kAlpn:
      return 1u << 5;
    case ExtensionType::kEncryptThenMac:
      return 1u << 6;
    case ExtensionType::kExtendedMasterSecret:
      return 1u << 7;
    case ExtensionType::kSessionTicket:
      return 1u << 8;
    case ExtensionType::kConnectionId:
      return 1u << 9;
    case ExtensionType::kRenegotiationInfo:
      return 1u << 10;
    case ExtensionType::kSupportedVersions:
      return 1u << 11;
  }
  return 0;
}

// SeenExtensions tells a repeated extension: known types by bit, the others by a bounded list
// (a hello with more than kMaxUnknown extensions nobody here knows is refused too).
class SeenExtensions {
 public:
  // first: `type` was not seen before (and is now); false for a repeat or one too many.
  bool first(std::uint16_t type) noexcept {
    if (const std::uint32_t bit = bit_of(type); bit != 0) {
      const bool fresh = (known_ & bit) == 0;
      known_ |= bit;
      return fresh;
    }
    const auto seen = std::span(unknown_).first(unknown_count_);
    if (std::find(seen.begin(), seen.end(), type) != seen.end() ||
        unknown_count_ == unknown_.size()) {
      return false;
    }
    unknown_[unknown_count_++] = type;
    return true;
  }

 private:
  static constexpr std::size_t kMaxUnknown = 128;
  std::uint32_t known_ = 0;
  std::array<std::uint16_t, kMaxUnknown> unknown_{};
  std::size_t unknown_count_ = 0;
};

// server_name (RFC 6066 §3): a ServerHello's is empty; a ClientHello's is a ServerNameList
// whose host_name entry (at most one) is kept.
bool read_server_name(ByteReader r, HelloExtensions& out) noexcept {
  out.has_server_name = true;
  if (r.empty()) {
    return true;
  }
  ByteReader list = r.sub_vector16();
  if (!r.done() || list.empty()) {
    return false;
  }
  bool have_host = false;
  while (list.ok() && !list.empty()) {
    const std::uint8_t type = list.u8();
    const std::span<const std::uint8_t> name = list.vector16();
    if (type == kHostName) {
      if (have_host || name.empty()) {
        return false;  // RFC 6066: one name per type
      }
      have_host = true;
      out.host_name = name;
    }
  }
  return list.ok();
}

bool read_alpn(ByteReader r, HelloExtensions& out) noexcept {
  out.alpn_protocols = r.vector16();
  if (!r.done() || out.alpn_protocols.empty()) {
    return false;
  }
  ByteReader names(out.alpn_protocols);
  while (names.ok() && !names.empty()) {
    if (names.vector8().empty()) {
      names.fail();  // ProtocolName<1..2^8-1>
    }
  }
  return names.ok();
}

bool read_use_srtp(ByteReader r, HelloExtensions& out) noexcept {
  out.has_use_srtp = true;
  out.srtp_profiles = detail::read_u16_list(r);
  out.srtp_mki = r.vector8();
  return r.done();
}

// read_flag: the extensions whose presence is the message (empty extension_data).
bool read_flag(const ByteReader& r, bool& flag) noexcept {
  flag = true;
  return r.done();
}

bool read_one(std::uint16_t type, ByteReader r, HelloExtensions& out) noexcept {
  switch (static_cast<ExtensionType>(type)) {
    case ExtensionType::kServerName:
      return read_server_name(r, out);
    case ExtensionType::kSupportedGroups:
      out.supported_groups = detail::read_u16_list(r);
      return r.done();
    case ExtensionType::kEcPointFormats:
      out.ec_point_formats = r.vector8();
      return r.done() && !out.ec_point_formats.empty();
    case ExtensionType::kSignatureAlgorithms:
      out.signature_algorithms = detail::read_u16_list(r);
      return r.done();
    case ExtensionType::kUseSrtp:
      return read_use_srtp(r, out);
    case ExtensionType::kAlpn:
      return read_alpn(r, out);
    case ExtensionType::kEncryptThenMac:
      return read_flag(r, out.encrypt_then_mac);
    case ExtensionType::kExtendedMasterSecret:
      return read_flag(r, out.extended_master_secret);
    case ExtensionType::kSessionTicket:
      out.has_session_ticket = true;
      out.session_ticket = r.rest();
      return true;
    case ExtensionType::kConnectionId:
      out.has_connection_id = true;
      out.connection_id = r.vector8();
      return r.done();
    case ExtensionType::kRenegotiationInfo:
      out.has_renegotiation_info = true;
      out.renegotiated_connection = r.vector8();
      return r.done();
    case ExtensionType::kSupportedVersions:
      out.has_supported_versions = true;
      out.supported_versions = r.rest();
      return true;
  }
  return true;  // unknown: skipped
}

// ExtensionBody writes one extension: its type, then a 2-byte length set when it ends.
class ExtensionBody {
 public:
  ExtensionBody(MessageWriter& w, ExtensionType type) noexcept : w_(w), mark_(open(w, type)) {}
  ~ExtensionBody() { w_.raw().end_vector(mark_); }
  ExtensionBody(const ExtensionBody&) = delete;
  ExtensionBody& operator=(const ExtensionBody&) = delete;

 private:
  static ByteWriter::VectorMark open(MessageWriter& w, ExtensionType type) noexcept {
    w.u16(static_cast<std::uint16_t>(type));
    return w.raw().begin_vector16();
  }

  MessageWriter& w_;
  ByteWriter::VectorMark mark_;
};

void write_server_name(MessageWriter& w, const HelloExtensions& e) noexcept {
  ExtensionBody body(w, ExtensionType::kServerName);
  if (e.host_name.empty()) {
    return;  // a server's acknowledgement
  }
  const ByteWriter::VectorMark list = w.raw().begin_vector16();
  w.u8(kHostName);
  w.vector16(e.host_name, 1);
  w.raw().end_vector(list);
}

void write_use_srtp(MessageWriter& w, const HelloExtensions& e) noexcept {
  ExtensionBody body(w, ExtensionType::kUseSrtp);
  w.u16_list(e.srtp_profiles);
  w.vector8(e.srtp_mki);
}

void write_alpn(MessageWriter& w, const HelloExtensions& e) noexcept {
  AlpnWalker names(e.alpn_protocols);
  std::span<const std::uint8_t> name;
  std::size_t walked = 0;
  while (names.next(name)) {
    walked += 1 + name.size();
  }
  if (walked != e.alpn_protocols.size()) {
    w.reject();  // not a list of non-empty names
    return;
  }
  ExtensionBody body(w, ExtensionType::kAlpn);
  w.vector16(e.alpn_protocols, 2);
}

void write_empty(MessageWriter& w, ExtensionType type) noexcept { ExtensionBody body(w, type); }

}  // namespace

bool AlpnWalker::next(std::span<const std::uint8_t>& name) noexcept {
  return detail::next_entry(rest_, 1, name);
}

bool alpn_lists_name(std::span<const std::uint8_t> list,
                     std::span<const std::uint8_t> name) noexcept {
  AlpnWalker walker(list);
  std::span<const std::uint8_t> listed;
  while (walker.next(listed)) {
    if (std::equal(listed.begin(), listed.end(), name.begin(), name.end())) {
      return true;
    }
  }
  return false;
}

namespace detail {

Status read_hello_extensions(std::span<const std::uint8_t> block, HelloExtensions& out) noexcept {
  ByteReader r(block);
  SeenExtensions seen;
  while (r.ok() && !r.empty()) {
    const std::uint16_t type = r.u16be();
    const std::span<const std::uint8_t> data = r.vector16();
    if (!r.ok()) {
      break;
    }
    if (!seen.first(type) || !read_one(type, ByteReader(data), out)) {
      return Error::kMalformed;
    }
  }
  return r.ok() ? Status{} : Status{Error::kMalformed};
}

void write_hello_extensions(MessageWriter& w, const HelloExtensions& e) noexcept {
  const ByteWriter::VectorMark all = w.raw().begin_vector16();
  if (e.has_server_name) {
    write_server_name(w, e);
  }
  if (!e.supported_groups.empty()) {
    ExtensionBody body(w, ExtensionType::kSupportedGroups);
    w.u16_list(e.supported_groups);
  }
  if (!e.ec_point_formats.empty()) {
    ExtensionBody body(w, ExtensionType::kEcPointFormats);
    w.vector8(e.ec_point_formats, 1);
  }
  if (!e.signature_algorithms.empty()) {
    ExtensionBody body(w, ExtensionType::kSignatureAlgorithms);
    w.u16_list(e.signature_algorithms);
  }
  if (e.has_use_srtp) {
    write_use_srtp(w, e);
  }
  if (!e.alpn_protocols.empty()) {
    write_alpn(w, e);
  }
  if (e.encrypt_then_mac) {
    write_empty(w, ExtensionType::kEncryptThenMac);
  }
  if (e.extended_master_secret) {
    write_empty(w, ExtensionType::kExtendedMasterSecret);
  }
  if (e.has_session_ticket) {
    ExtensionBody body(w, ExtensionType::kSessionTicket);
    w.bytes(e.session_ticket);
  }
  if (e.has_connection_id) {
    ExtensionBody body(w, ExtensionType::kConnectionId);
    w.vector8(e.connection_id);
  }
  if (e.has_renegotiation_info) {
    ExtensionBody body(w, ExtensionType::kRenegotiationInfo);
    w.vector8(e.renegotiated_connection);
  }
  w.raw().end_vector(all);
}

}  // namespace detail

Result<HelloExtensions> parse_hello_extensions(std::span<const std::uint8_t> block) noexcept {
  HelloExtensions out;
  if (const Status s = detail::read_hello_extensions(block, out); !s) {
    return s.error();
  }
  return out;
}

Result<std::size_t> write_hello_extensions(const HelloExtensions& extensions,
                                           std::span<std::uint8_t> out) noexcept {
  MessageWriter w(out);
  detail::write_hello_extensions(w, extensions);
  return w.finish();
}

}  // namespace wireseal::dtls
