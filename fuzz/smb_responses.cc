// Fuzz target: the SMB2 response parsers of src/smb/commands (commands.h) on arbitrary bodies.
// The first input byte chooses the parser (its low 7 bits modulo kModes, table below); with its
// top bit clear the rest of the input is the body after a valid response header (encode_header,
// the parser's command), with it set the rest is the whole message, header bytes included.
//
//    0 parse_negotiate           5 parse_close           10 parse_query_file_info
//    1 parse_session_setup       6 parse_flush           11 parse_set_info
//    2 parse_empty               7 parse_read            12 parse_validate_negotiate
//    3 parse_tree_connect        8 parse_write           13 for_each_directory_entry (raw bytes)
//    4 parse_create              9 parse_query_directory 14 UTF-16 / UTF-8 conversions (raw)
//                                  + for_each_directory_entry over its buffer
//
// Each parser is checked against a model read straight from MS-SMB2's field offsets: it
// succeeds exactly when the StructureSize matches, the body holds the fixed part and every
// offset/length lies inside the message (never over the header); what it returns is the
// model's values, and every span it returns is the very bytes the offset and length name.
// The directory walk visits exactly the entries the model walks (so it terminates), each name
// decoded from its own bytes inside the buffer. UTF-16: for any even-length b,
// utf16_size(read_utf16(b)) == |b| and write_utf16 writes exactly that many bytes: b, with
// unpaired surrogates turned into U+FFFD; for any text t, write_utf16 writes utf16_size(t).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "fuzz_target.h"
#include "smb/commands/commands.h"
#include "wireseal/smb/header.h"

namespace {

using namespace wireseal;
using namespace wireseal::smb::commands;
using fuzz::require;
using Bytes = std::span<const std::uint8_t>;

constexpr unsigned kModes = 15;
constexpr unsigned kRawDirectory = 13;
constexpr unsigned kUtf16 = 14;
constexpr std::uint8_t kWholeMessage = 0x80;
constexpr std::size_t kHeader = smb::kHeaderSize;
constexpr std::size_t kEntryFixed = 64;  // FileDirectoryInformation up to FileName
constexpr std::uint32_t kFsctlValidateNegotiateInfo = 0x00140204;

// The command each parser's encoded header carries.
constexpr smb::Command kCommands[] = {
    smb::Command::kNegotiate,      smb::Command::kSessionSetup, smb::Command::kEcho,
    smb::Command::kTreeConnect,    smb::Command::kCreate,       smb::Command::kClose,
    smb::Command::kFlush,          smb::Command::kRead,         smb::Command::kWrite,
    smb::Command::kQueryDirectory, smb::Command::kQueryInfo,    smb::Command::kSetInfo,
    smb::Command::kIoctl};

std::uint16_t le16(Bytes b, std::size_t at) { return load_le16(b.data() + at); }
std::uint32_t le32(Bytes b, std::size_t at) { return load_le32(b.data() + at); }
std::uint64_t le64(Bytes b, std::size_t at) { return load_le64(b.data() + at); }

// ---- UTF-16 ----

// write_exactly checks that write_utf16(text) writes exactly `n` bytes (the bytes after them
// keep their fill, whichever fill) and returns them.
std::vector<std::uint8_t> write_exactly(std::string_view text, std::size_t n) {
  constexpr std::size_t kSlack = 8;
  std::vector<std::uint8_t> zeros(n + kSlack, 0x00);
  std::vector<std::uint8_t> ones(n + kSlack, 0xff);
  write_utf16(text, zeros);
  write_utf16(text, ones);
  for (std::size_t i = n; i < n + kSlack; ++i) {
    require(zeros[i] == 0x00 && ones[i] == 0xff, "write_utf16 writes no more than utf16_size");
  }
  require(std::equal(zeros.begin(), zeros.begin() + static_cast<std::ptrdiff_t>(n), ones.begin()),
          "write_utf16 writes every byte of utf16_size");
  zeros.resize(n);
  return zeros;
}

// well_formed_utf16 is `b` (even length) with every unpaired surrogate replaced by U+FFFD.
std::vector<std::uint8_t> well_formed_utf16(Bytes b) {
  std::vector<std::uint8_t> out(b.begin(), b.end());
  const auto is_high = [](std::uint16_t u) { return u >= 0xD800 && u <= 0xDBFF; };
  const auto is_low = [](std::uint16_t u) { return u >= 0xDC00 && u <= 0xDFFF; };
  for (std::size_t i = 0; i < b.size(); i += 2) {
    const std::uint16_t u = le16(b, i);
    if (is_high(u) && i + 4 <= b.size() && is_low(le16(b, i + 2))) {
      i += 2;  // a pair: kept
    } else if (is_high(u) || is_low(u)) {
      store_le16(out.data() + i, 0xFFFD);
    }
  }
  return out;
}

void check_utf16(Bytes b) {
  b = b.first(b.size() & ~std::size_t{1});
  const std::string text = read_utf16(b);
  require(utf16_size(text) == b.size(), "utf16_size(read_utf16(b)) == |b|");
  const std::vector<std::uint8_t> written = write_exactly(text, b.size());
  require(written == well_formed_utf16(b),
          "write_utf16(read_utf16(b)) is b with unpaired surrogates replaced");
  require(read_utf16(written) == text, "read_utf16 of the rewritten bytes is the same text");
}

// check_utf8 feeds arbitrary bytes as UTF-8: write_utf16 writes utf16_size of them, and what
// it wrote decodes to text of that same UTF-16 size (invalid input became U+FFFD).
void check_utf8(Bytes b) {
  const std::string_view text(reinterpret_cast<const char*>(b.data()), b.size());
  const std::size_t n = utf16_size(text);
  require(n % 2 == 0 && n <= 2 * text.size(), "utf16_size is even and at most 2 per byte");
  const std::vector<std::uint8_t> written = write_exactly(text, n);
  require(utf16_size(read_utf16(written)) == n, "write_utf16's output round-trips");
  std::vector<std::uint8_t> path(n);
  write_path(text, path);
  for (std::size_t i = 0; i < n; i += 2) {
    const bool slash = written[i] == '/' && written[i + 1] == 0;
    require(path[i] == (slash ? '\\' : written[i]) && path[i + 1] == written[i + 1],
            "write_path is write_utf16 with '/' turned into '\\'");
  }
}

// ---- message model ----

// structure_ok: what body_of accepts (StructureSize matches; the body holds the fixed part,
// which is StructureSize rounded down to even).
bool structure_ok(Bytes message, std::uint16_t structure_size) {
  const std::size_t fixed = structure_size & ~std::size_t{1};
  return message.size() >= kHeader + fixed && message.size() >= kHeader + 2 &&
         le16(message, kHeader) == structure_size;
}

// buffer_ok: what buffer_at accepts.
bool buffer_ok(Bytes message, std::size_t offset, std::size_t length) {
  return length == 0 ||
         (offset >= kHeader && offset <= message.size() && length <= message.size() - offset);
}

// is_buffer: `got` is exactly message[offset, offset + length), after the header.
void require_buffer(Bytes got, Bytes message, std::size_t offset, std::size_t length,
                    const char* property) {
  if (length == 0) {
    require(got.empty(), property);
    return;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(got.data());
  const auto begin = reinterpret_cast<std::uintptr_t>(message.data());
  require(at >= begin + kHeader && at + got.size() <= begin + message.size(), property);
  require(at == begin + offset && got.size() == length, property);
}

// expect: the parser succeeded exactly when the model says it must.
void expect(bool parsed, bool model, const char* property) { require(parsed == model, property); }

// ---- directory entries ----

struct ModelEntry {
  std::size_t offset;  // within the walked buffer
  std::size_t name_len;
};

// model_walk lists the entries for_each_directory_entry must visit and whether the walk ends
// well ([MS-FSCC] §2.4.10: NextEntryOffset past this entry's name and inside the buffer).
bool model_walk(Bytes entries, std::vector<ModelEntry>& out) {
  std::size_t at = 0;
  while (at < entries.size()) {
    const std::size_t rest = entries.size() - at;
    if (rest < kEntryFixed) {
      return false;
    }
    const std::uint32_t next = le32(entries, at);
    const std::uint32_t name_len = le32(entries, at + 60);
    if (name_len > rest - kEntryFixed ||
        (next != 0 && (next < kEntryFixed + name_len || next > rest))) {
      return false;
    }
    out.push_back({at, name_len});
    if (next == 0) {
      break;
    }
    at += next;
  }
  return true;
}

void check_directory(Bytes entries) {
  std::vector<ModelEntry> model;
  const bool model_ok = model_walk(entries, model);
  std::size_t visited = 0;
  const Status walk = for_each_directory_entry(entries, [&](const DirectoryEntry& e) {
    require(visited < model.size(), "the directory walk visits no entry the model does not");
    const ModelEntry& m = model[visited++];
    const Bytes name = entries.subspan(m.offset + kEntryFixed, m.name_len);
    require(e.name == read_utf16(name), "an entry's name is decoded from its own bytes");
    require(e.times.creation == le64(entries, m.offset + 8) &&
                e.times.change == le64(entries, m.offset + 32) &&
                e.end_of_file == le64(entries, m.offset + 40) &&
                e.attributes == le32(entries, m.offset + 56),
            "an entry's fields are read at their offsets");
  });
  expect(walk.has_value(), model_ok, "the directory walk fails exactly on a malformed entry");
  require(visited == model.size(), "the directory walk visits every well-formed entry");
  for (const ModelEntry& m : model) {
    check_utf16(entries.subspan(m.offset + kEntryFixed, m.name_len));
  }
}

// ---- one parser each ----

void check_negotiate(Bytes m) {
  const Result<NegotiateResponse> r = parse_negotiate(m);
  const bool base = structure_ok(m, 65) && buffer_ok(m, le16(m, 120), le16(m, 122));
  if (!base || le16(m, kHeader + 4) != 0x0311) {
    expect(r.has_value(), base, "parse_negotiate: StructureSize and SecurityBuffer");
  }  // else a 3.1.1 response: its contexts (which the model does not read) may be malformed
  if (!r) {
    return;
  }
  const Bytes b = m.subspan(kHeader);
  require(r->security_mode == le16(b, 2) && static_cast<std::uint16_t>(r->dialect) == le16(b, 4) &&
              std::memcmp(r->server_guid.data(), b.data() + 8, 16) == 0 &&
              r->capabilities == le32(b, 24) && r->max_transact_size == le32(b, 28) &&
              r->max_read_size == le32(b, 32) && r->max_write_size == le32(b, 36),
          "parse_negotiate: fixed fields");
  require_buffer(r->security_buffer, m, le16(b, 56), le16(b, 58),
                 "parse_negotiate: the security buffer is SecurityBufferOffset/Length");
}

void check_session_setup(Bytes m) {
  const Result<SessionSetupResponse> r = parse_session_setup(m);
  const bool ok = structure_ok(m, 9) && buffer_ok(m, le16(m, 68), le16(m, 70));
  expect(r.has_value(), ok, "parse_session_setup: StructureSize and SecurityBuffer");
  if (r) {
    require(r->session_flags == le16(m, 66), "parse_session_setup: SessionFlags");
    require_buffer(r->security_buffer, m, le16(m, 68), le16(m, 70),
                   "parse_session_setup: the security buffer is its offset/length");
  }
}

void check_tree_connect(Bytes m) {
  const Result<TreeConnectResponse> r = parse_tree_connect(m);
  expect(r.has_value(), structure_ok(m, 16), "parse_tree_connect: StructureSize");
  if (r) {
    require(r->share_type == m[kHeader + 2] && r->share_flags == le32(m, kHeader + 4) &&
                r->capabilities == le32(m, kHeader + 8) &&
                r->maximal_access == le32(m, kHeader + 12),
            "parse_tree_connect: fields");
  }
}

void check_create(Bytes m) {
  const Result<CreateResponse> r = parse_create(m);
  expect(r.has_value(), structure_ok(m, 89), "parse_create: StructureSize");
  if (r) {
    const Bytes b = m.subspan(kHeader);
    require(r->create_action == le32(b, 4) && r->times.creation == le64(b, 8) &&
                r->times.change == le64(b, 32) && r->allocation_size == le64(b, 40) &&
                r->end_of_file == le64(b, 48) && r->file_attributes == le32(b, 56) &&
                r->file_id.persistent == le64(b, 64) && r->file_id.volatile_id == le64(b, 72),
            "parse_create: fields");
  }
}

void check_read(Bytes m) {
  const Result<std::span<const std::uint8_t>> r = parse_read(m);
  const bool ok = structure_ok(m, 17) && buffer_ok(m, m[kHeader + 2], le32(m, kHeader + 4));
  expect(r.has_value(), ok, "parse_read: StructureSize and DataOffset/DataLength");
  if (r) {
    require_buffer(*r, m, m[kHeader + 2], le32(m, kHeader + 4),
                   "parse_read: the data is DataOffset/DataLength");
  }
}

void check_write(Bytes m) {
  const Result<std::uint32_t> r = parse_write(m);
  expect(r.has_value(), structure_ok(m, 17), "parse_write: StructureSize");
  if (r) {
    require(*r == le32(m, kHeader + 4), "parse_write: Count");
  }
}

void check_query_directory(Bytes m) {
  const Result<std::span<const std::uint8_t>> r = parse_query_directory(m);
  const bool ok = structure_ok(m, 9) && buffer_ok(m, le16(m, 66), le32(m, 68));
  expect(r.has_value(), ok, "parse_query_directory: StructureSize and OutputBuffer");
  if (r) {
    require_buffer(*r, m, le16(m, 66), le32(m, 68),
                   "parse_query_directory: the output is OutputBufferOffset/Length");
    check_directory(*r);
  }
}

void check_query_file_info(Bytes m) {
  const Result<FileInfo> r = parse_query_file_info(m);
  const std::size_t offset = m.size() >= kHeader + 8 ? le16(m, 66) : 0;
  const std::size_t length = m.size() >= kHeader + 8 ? le32(m, 68) : 0;
  const bool ok = structure_ok(m, 9) && buffer_ok(m, offset, length) && length >= 56;
  expect(r.has_value(), ok, "parse_query_file_info: StructureSize and a whole OutputBuffer");
  if (r) {
    const Bytes d = m.subspan(offset);
    require(r->times.creation == le64(d, 0) && r->times.last_access == le64(d, 8) &&
                r->times.last_write == le64(d, 16) && r->times.change == le64(d, 24) &&
                r->allocation_size == le64(d, 32) && r->end_of_file == le64(d, 40) &&
                r->attributes == le32(d, 48),
            "parse_query_file_info: FileNetworkOpenInformation fields");
  }
}

void check_validate_negotiate(Bytes m) {
  const Result<ValidateNegotiate> r = parse_validate_negotiate(m);
  const bool structure = structure_ok(m, 49);
  const bool ok = structure && le32(m, kHeader + 4) == kFsctlValidateNegotiateInfo &&
                  buffer_ok(m, le32(m, kHeader + 32), le32(m, kHeader + 36)) &&
                  le32(m, kHeader + 36) == 24;
  expect(r.has_value(), ok, "parse_validate_negotiate: StructureSize, CtlCode and Output");
  if (r) {
    const Bytes d = m.subspan(le32(m, kHeader + 32));
    require(r->capabilities == le32(d, 0) && std::memcmp(r->guid.data(), d.data() + 4, 16) == 0 &&
                r->security_mode == le16(d, 20) &&
                static_cast<std::uint16_t>(r->dialect) == le16(d, 22),
            "parse_validate_negotiate: VALIDATE_NEGOTIATE_INFO fields");
  }
}

void check_status(Status s, Bytes m, std::uint16_t structure_size, const char* property) {
  expect(s.has_value(), structure_ok(m, structure_size), property);
}

void check_message(unsigned mode, Bytes m) {
  switch (mode) {
    case 0:
      return check_negotiate(m);
    case 1:
      return check_session_setup(m);
    case 2:
      return check_status(parse_empty(m), m, 4, "parse_empty: StructureSize");
    case 3:
      return check_tree_connect(m);
    case 4:
      return check_create(m);
    case 5:
      return check_status(parse_close(m), m, 60, "parse_close: StructureSize");
    case 6:
      return check_status(parse_flush(m), m, 4, "parse_flush: StructureSize");
    case 7:
      return check_read(m);
    case 8:
      return check_write(m);
    case 9:
      return check_query_directory(m);
    case 10:
      return check_query_file_info(m);
    case 11:
      return check_status(parse_set_info(m), m, 2, "parse_set_info: StructureSize");
    default:
      return check_validate_negotiate(m);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const unsigned mode = (data[0] & 0x7fu) % kModes;
  const Bytes rest(data + 1, size - 1);
  if (mode == kRawDirectory) {
    check_directory(rest);
    return 0;
  }
  if (mode == kUtf16) {
    check_utf16(rest);
    check_utf8(rest);
    return 0;
  }
  if ((data[0] & kWholeMessage) != 0) {
    // The parsers read nothing of the header: any 64 bytes (or fewer) will do.
    check_message(mode, rest);
    return 0;
  }
  // An exactly sized copy, so that reading past the message is an ASan report.
  std::vector<std::uint8_t> message(kHeader + rest.size());
  smb::Smb2Header h;
  h.command = kCommands[mode];
  h.flags = smb::kFlagServerToRedir;
  h.message_id = 7;
  h.credits = 1;
  h.session_id = 0x100000000025;
  require(smb::encode_header(h, message).has_value(), "encode_header fills 64 bytes");
  std::copy(rest.begin(), rest.end(), message.begin() + kHeader);
  check_message(mode, message);
  return 0;
}
