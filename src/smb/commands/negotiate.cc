// NEGOTIATE (MS-SMB2 §2.2.3 request, §2.2.4 response) with the 3.1.1 negotiate contexts of
// §2.2.3.1: preauth integrity (SHA-512), encryption and signing capabilities.
#include <algorithm>

#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr std::uint16_t kRequestStructureSize = 36;
constexpr std::uint16_t kResponseStructureSize = 65;
constexpr std::uint16_t kContextPreauth = 0x0001;
constexpr std::uint16_t kContextEncryption = 0x0002;
constexpr std::uint16_t kContextSigning = 0x0008;
constexpr std::uint16_t kHashSha512 = 0x0001;

// pad8 writes zeros up to the next multiple of 8 (the contexts writer starts 8-byte aligned
// from the header): each context starts 8-byte aligned (§2.2.3.1).
void pad8(ByteWriter& w) { w.zeros((8 - (w.size() % 8)) % 8); }

// context writes one negotiate context: the 8-byte context header, then write() its data.
template <class Write>
void context(ByteWriter& w, std::uint16_t type, std::size_t data_len, Write&& write) {
  pad8(w);
  w.u16le(type);
  w.u16le(static_cast<std::uint16_t>(data_len));
  w.u32le(0);
  write();
}

bool offers_311(const NegotiateRequest& r) {
  return std::find(r.dialects.begin(), r.dialects.end(), Dialect::kSmb311) != r.dialects.end();
}

void write_contexts(const NegotiateRequest& r, ByteWriter& w, std::uint16_t& count) {
  count = 0;
  context(w, kContextPreauth, 6 + r.preauth_salt.size(), [&] {
    w.u16le(1);  // HashAlgorithmCount
    w.u16le(static_cast<std::uint16_t>(r.preauth_salt.size()));
    w.u16le(kHashSha512);
    w.bytes(r.preauth_salt);
  });
  ++count;
  if (!r.ciphers.empty()) {
    context(w, kContextEncryption, 2 + 2 * r.ciphers.size(), [&] {
      w.u16le(static_cast<std::uint16_t>(r.ciphers.size()));
      for (const Cipher c : r.ciphers) {
        w.u16le(static_cast<std::uint16_t>(c));
      }
    });
    ++count;
  }
  if (!r.signing_algorithms.empty()) {
    context(w, kContextSigning, 2 + 2 * r.signing_algorithms.size(), [&] {
      w.u16le(static_cast<std::uint16_t>(r.signing_algorithms.size()));
      for (const SigningAlgorithm a : r.signing_algorithms) {
        w.u16le(static_cast<std::uint16_t>(a));
      }
    });
    ++count;
  }
}

}  // namespace

Result<std::size_t> encode_negotiate(const NegotiateRequest& r,
                                     std::span<std::uint8_t> body) noexcept {
  if (r.dialects.empty() || r.dialects.size() > 16) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(body);
  w.u16le(kRequestStructureSize);
  w.u16le(static_cast<std::uint16_t>(r.dialects.size()));
  w.u16le(r.security_mode);
  w.u16le(0);  // Reserved
  w.u32le(r.capabilities);
  w.bytes(r.client_guid);
  const std::span<std::uint8_t> context_fields = w.reserve(8);  // offset, count, reserved
  for (const Dialect d : r.dialects) {
    w.u16le(static_cast<std::uint16_t>(d));
  }
  std::uint16_t count = 0;
  std::size_t context_offset = 0;
  if (offers_311(r)) {
    w.zeros((8 - ((kHeaderSize + w.size()) % 8)) % 8);
    context_offset = kHeaderSize + w.size();
    ByteWriter contexts(body.subspan(std::min(w.size(), body.size())));
    write_contexts(r, contexts, count);
    w.reserve(contexts.size());
    if (!contexts.ok()) {
      w.fail();
    }
  }
  if (!w.ok()) {
    return Error::kBufferTooSmall;
  }
  // 3.1.1: NegotiateContextOffset/Count; otherwise ClientStartTime, which must be 0.
  ByteWriter f(context_fields);
  f.u32le(static_cast<std::uint32_t>(context_offset));
  f.u16le(count);
  f.u16le(0);
  return w.size();
}

namespace {

// read_contexts reads the 3.1.1 negotiate contexts of a response. The server picks one
// value per context (§2.2.4.1): exactly one hash, one cipher, one signing algorithm.
Status read_contexts(std::span<const std::uint8_t> message, std::size_t offset, std::uint16_t count,
                     NegotiateResponse& out) {
  if (offset < kHeaderSize || offset > message.size()) {
    return Error::kMalformed;
  }
  std::size_t at = offset;
  for (std::uint16_t i = 0; i < count; ++i) {
    at = (at + 7) & ~std::size_t{7};
    if (at > message.size()) {
      return Error::kMalformed;
    }
    ByteReader r(message.subspan(at));
    const std::uint16_t type = r.u16le();
    const std::uint16_t len = r.u16le();
    r.skip(4);
    ByteReader data = r.sub(len);
    if (!r.ok()) {
      return Error::kMalformed;
    }
    if (type == kContextPreauth) {
      const std::uint16_t hashes = data.u16le();
      data.skip(2);  // SaltLength: the salt itself is not needed
      out.preauth_hash_algorithm = data.u16le();
      if (hashes != 1) {
        data.fail();
      }
    } else if (type == kContextEncryption) {
      if (data.u16le() != 1) {
        data.fail();
      }
      out.cipher = data.u16le();
    } else if (type == kContextSigning) {
      if (data.u16le() != 1) {
        data.fail();
      }
      out.signing_algorithm = data.u16le();
    }
    if (!data.ok()) {
      return Error::kMalformed;
    }
    at += 8 + len;
  }
  return {};
}

}  // namespace

Result<NegotiateResponse> parse_negotiate(std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, kResponseStructureSize);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  NegotiateResponse out;
  r.skip(2);
  out.security_mode = r.u16le();
  out.dialect = static_cast<Dialect>(r.u16le());
  const std::uint16_t context_count = r.u16le();
  r.copy_to(out.server_guid);
  out.capabilities = r.u32le();
  out.max_transact_size = r.u32le();
  out.max_read_size = r.u32le();
  out.max_write_size = r.u32le();
  r.skip(16);  // SystemTime, ServerStartTime
  const std::uint16_t sec_offset = r.u16le();
  const std::uint16_t sec_length = r.u16le();
  const std::uint32_t context_offset = r.u32le();
  if (!r.ok()) {
    return Error::kMalformed;
  }
  const Result<std::span<const std::uint8_t>> sec = buffer_at(message, sec_offset, sec_length);
  if (!sec) {
    return sec.error();
  }
  out.security_buffer = *sec;
  if (out.dialect == Dialect::kSmb311) {
    if (const Status s = read_contexts(message, context_offset, context_count, out); !s) {
      return s.error();
    }
  }
  return out;
}

}  // namespace wireseal::smb::commands
