#pragma once
// SMB2 command bodies (MS-SMB2 §2.2.3–§2.2.40): one request encoder and one response parser
// per command, one file per command in this folder. They only translate between bytes and
// values; what a client does with them is client.cc's business.
//
// Encoders write the body that follows the 64-byte header into `body` (the caller's request
// buffer, Connection::request_body()) and return its length; kBufferTooSmall when it does not
// fit. Offsets inside bodies count from the start of the header, as the spec says, so the
// encoders add kHeaderSize. Parsers take the whole response message (header included) and
// return views into it: no copy, valid as long as the message is. Every parser checks the
// StructureSize and that each offset and length lies inside the message: kMalformed otherwise.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "wireseal/result.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::smb::commands {

// --- shared values

inline constexpr std::uint32_t kCapDfs = 0x01;
inline constexpr std::uint32_t kCapLeasing = 0x02;
inline constexpr std::uint32_t kCapLargeMtu = 0x04;
inline constexpr std::uint32_t kCapMultiChannel = 0x08;
inline constexpr std::uint32_t kCapEncryption = 0x40;
inline constexpr std::uint16_t kSigningEnabled = 0x01;
inline constexpr std::uint16_t kSigningRequired = 0x02;

// kRelatedFileId is the FileId of a related compound member: "the previous CREATE's".
inline constexpr FileId kRelatedFileId{~std::uint64_t{0}, ~std::uint64_t{0}};

// utf16_size is the UTF-16LE size of UTF-8 `text`; write_utf16 writes it (invalid UTF-8 bytes
// become U+FFFD); read_utf16 decodes UTF-16LE into UTF-8 (unpaired surrogates become U+FFFD).
std::size_t utf16_size(std::string_view text) noexcept;
void write_utf16(std::string_view text, std::span<std::uint8_t> out) noexcept;
std::string read_utf16(std::span<const std::uint8_t> bytes);
// write_path writes a share-relative path as write_utf16 does, with '/' turned into the '\\'
// the protocol separates components with.
void write_path(std::string_view path, std::span<std::uint8_t> out) noexcept;

// body_of checks a response's fixed StructureSize and returns its body (after the header).
Result<std::span<const std::uint8_t>> body_of(std::span<const std::uint8_t> message,
                                              std::uint16_t structure_size) noexcept;
// expect_structure is body_of for a response whose caller needs nothing from its body.
Status expect_structure(std::span<const std::uint8_t> message,
                        std::uint16_t structure_size) noexcept;
// buffer_at returns message[offset, offset + length), kMalformed when it is not inside the
// message or overlaps the header (a zero length is always fine).
Result<std::span<const std::uint8_t>> buffer_at(std::span<const std::uint8_t> message,
                                                std::size_t offset, std::size_t length) noexcept;

// output_buffer reads the response shape QUERY_DIRECTORY and QUERY_INFO share (StructureSize 9,
// OutputBufferOffset (2), OutputBufferLength (4), §2.2.34 / §2.2.38) and returns the buffer.
Result<std::span<const std::uint8_t>> output_buffer(std::span<const std::uint8_t> message) noexcept;

// --- NEGOTIATE (§2.2.3, §2.2.4)

struct NegotiateRequest {
  std::span<const Dialect> dialects;
  std::uint16_t security_mode = kSigningEnabled;
  std::uint32_t capabilities = kCapLargeMtu | kCapEncryption;
  std::array<std::uint8_t, 16> client_guid{};
  // 3.1.1 contexts (sent when dialects contain 3.1.1)
  std::array<std::uint8_t, 32> preauth_salt{};
  std::span<const Cipher> ciphers;
  std::span<const SigningAlgorithm> signing_algorithms;
};
Result<std::size_t> encode_negotiate(const NegotiateRequest& request,
                                     std::span<std::uint8_t> body) noexcept;

struct NegotiateResponse {
  std::uint16_t security_mode = 0;
  Dialect dialect = Dialect::kSmb311;
  std::array<std::uint8_t, 16> server_guid{};
  std::uint32_t capabilities = 0;
  std::uint32_t max_transact_size = 0;
  std::uint32_t max_read_size = 0;
  std::uint32_t max_write_size = 0;
  std::span<const std::uint8_t> security_buffer;  // SPNEGO NegTokenInit2 (may be empty)
  // 3.1.1 contexts: 0 when absent
  std::uint16_t preauth_hash_algorithm = 0;  // 1 = SHA-512
  std::uint16_t cipher = 0;                  // 0: the server does not encrypt
  std::uint16_t signing_algorithm = 0xFFFF;  // 0xFFFF: no SIGNING_CAPABILITIES context
};
Result<NegotiateResponse> parse_negotiate(std::span<const std::uint8_t> message) noexcept;

// --- SESSION_SETUP (§2.2.5, §2.2.6)

inline constexpr std::uint32_t kStatusMoreProcessingRequired = 0xC0000016;
inline constexpr std::uint16_t kSessionFlagIsGuest = 0x0001;
inline constexpr std::uint16_t kSessionFlagIsNull = 0x0002;
inline constexpr std::uint16_t kSessionFlagEncryptData = 0x0004;

struct SessionSetupRequest {
  std::uint8_t flags = 0;  // 0x01: binding a new channel to an existing session
  std::uint8_t security_mode = kSigningEnabled;
  std::span<const std::uint8_t> security_buffer;
};
Result<std::size_t> encode_session_setup(const SessionSetupRequest& request,
                                         std::span<std::uint8_t> body) noexcept;

struct SessionSetupResponse {
  std::uint16_t session_flags = 0;
  std::span<const std::uint8_t> security_buffer;
};
Result<SessionSetupResponse> parse_session_setup(std::span<const std::uint8_t> message) noexcept;

// --- LOGOFF, ECHO, TREE_DISCONNECT: a 4-byte body both ways (§2.2.7, §2.2.28, §2.2.11)

Result<std::size_t> encode_empty(std::span<std::uint8_t> body) noexcept;
Status parse_empty(std::span<const std::uint8_t> message) noexcept;

// --- TREE_CONNECT (§2.2.9, §2.2.10)

inline constexpr std::uint32_t kShareFlagEncryptData = 0x00008000;

Result<std::size_t> encode_tree_connect(std::string_view unc_path,
                                        std::span<std::uint8_t> body) noexcept;

struct TreeConnectResponse {
  std::uint8_t share_type = 0;  // 1 disk, 2 pipe, 3 print
  std::uint32_t share_flags = 0;
  std::uint32_t capabilities = 0;
  std::uint32_t maximal_access = 0;
};
Result<TreeConnectResponse> parse_tree_connect(std::span<const std::uint8_t> message) noexcept;

// --- CREATE (§2.2.13, §2.2.14)

// Access masks, dispositions and options used by the client (§2.2.13.1, [MS-FSCC] §2.6).
inline constexpr std::uint32_t kAccessReadData = 0x00000001;
inline constexpr std::uint32_t kAccessWriteData = 0x00000002;
inline constexpr std::uint32_t kAccessReadAttributes = 0x00000080;
inline constexpr std::uint32_t kAccessWriteAttributes = 0x00000100;
inline constexpr std::uint32_t kAccessDelete = 0x00010000;
inline constexpr std::uint32_t kAccessSynchronize = 0x00100000;
inline constexpr std::uint32_t kAccessGenericRead = 0x80000000;
inline constexpr std::uint32_t kAccessGenericWrite = 0x40000000;
inline constexpr std::uint32_t kShareRead = 0x1;
inline constexpr std::uint32_t kShareWrite = 0x2;
inline constexpr std::uint32_t kShareDelete = 0x4;
inline constexpr std::uint32_t kDispositionOpen = 1;
inline constexpr std::uint32_t kDispositionCreate = 2;
inline constexpr std::uint32_t kDispositionOpenIf = 3;
inline constexpr std::uint32_t kDispositionOverwriteIf = 5;
inline constexpr std::uint32_t kOptionDirectory = 0x00000001;
inline constexpr std::uint32_t kOptionNonDirectory = 0x00000040;
inline constexpr std::uint32_t kOptionDeleteOnClose = 0x00001000;
inline constexpr std::uint32_t kAttributeNormal = 0x00000080;
inline constexpr std::uint32_t kAttributeTemporary = 0x00000100;  // MS-FSCC §2.6
inline constexpr std::uint32_t kAttributeDirectory = 0x00000010;

struct CreateRequest {
  std::string_view path;  // relative to the share, '\\' or '/' separated, no leading separator
  std::uint32_t desired_access = kAccessGenericRead;
  std::uint32_t file_attributes = 0;
  std::uint32_t share_access = kShareRead | kShareWrite | kShareDelete;
  std::uint32_t disposition = kDispositionOpen;
  std::uint32_t options = 0;
};
Result<std::size_t> encode_create(const CreateRequest& request,
                                  std::span<std::uint8_t> body) noexcept;

// FileTimes are FILETIMEs (100 ns since 1601-01-01 UTC).
struct FileTimes {
  std::uint64_t creation = 0;
  std::uint64_t last_access = 0;
  std::uint64_t last_write = 0;
  std::uint64_t change = 0;
};

struct CreateResponse {
  std::uint32_t create_action = 0;  // 0 superseded, 1 opened, 2 created, 3 overwritten
  FileTimes times;
  std::uint64_t allocation_size = 0;
  std::uint64_t end_of_file = 0;
  std::uint32_t file_attributes = 0;
  FileId file_id;
};
Result<CreateResponse> parse_create(std::span<const std::uint8_t> message) noexcept;

// --- CLOSE (§2.2.15, §2.2.16), FLUSH (§2.2.17, §2.2.18)

Result<std::size_t> encode_close(FileId file, std::span<std::uint8_t> body) noexcept;
Status parse_close(std::span<const std::uint8_t> message) noexcept;
Result<std::size_t> encode_flush(FileId file, std::span<std::uint8_t> body) noexcept;
Status parse_flush(std::span<const std::uint8_t> message) noexcept;

// --- READ (§2.2.19, §2.2.20)

inline constexpr std::uint32_t kStatusEndOfFile = 0xC0000011;

struct ReadRequest {
  FileId file;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint32_t minimum_count = 0;
};
Result<std::size_t> encode_read(const ReadRequest& request, std::span<std::uint8_t> body) noexcept;
// parse_read returns the data, a view into the message.
Result<std::span<const std::uint8_t>> parse_read(std::span<const std::uint8_t> message) noexcept;

// --- WRITE (§2.2.21, §2.2.22)

// kWriteDataOffset is where a WRITE request's data starts in its body (after the fixed 48
// bytes): encode_write writes the fixed part, the caller puts the data there.
inline constexpr std::size_t kWriteDataOffset = 48;

struct WriteRequest {
  FileId file;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};
// encode_write writes the fixed part; the data goes at body[kWriteDataOffset]. Returns the
// whole body length (48 + length) — body must hold it.
Result<std::size_t> encode_write(const WriteRequest& request,
                                 std::span<std::uint8_t> body) noexcept;
// parse_write returns the byte count the server wrote.
Result<std::uint32_t> parse_write(std::span<const std::uint8_t> message) noexcept;

// --- QUERY_DIRECTORY (§2.2.33, §2.2.34), with FileDirectoryInformation ([MS-FSCC] §2.4.10)

inline constexpr std::uint32_t kStatusNoMoreFiles = 0x80000006;

struct QueryDirectoryRequest {
  FileId directory;
  std::string_view pattern = "*";
  bool restart = false;
  std::uint32_t output_length = 65536;
};
Result<std::size_t> encode_query_directory(const QueryDirectoryRequest& request,
                                           std::span<std::uint8_t> body) noexcept;
Result<std::span<const std::uint8_t>> parse_query_directory(
    std::span<const std::uint8_t> message) noexcept;

struct DirectoryEntry {
  std::string name;
  FileTimes times;
  std::uint64_t end_of_file = 0;
  std::uint32_t attributes = 0;
  bool is_directory() const noexcept { return (attributes & kAttributeDirectory) != 0; }
};
// for_each_directory_entry walks FileDirectoryInformation entries, calling visit(entry) for
// each; kMalformed when an entry runs past the buffer or NextEntryOffset does not advance.
template <class Visit>
Status for_each_directory_entry(std::span<const std::uint8_t> entries, Visit&& visit);
Result<DirectoryEntry> parse_directory_entry(std::span<const std::uint8_t> entry,
                                             std::uint32_t& next_offset);

template <class Visit>
Status for_each_directory_entry(std::span<const std::uint8_t> entries, Visit&& visit) {
  while (!entries.empty()) {
    std::uint32_t next = 0;
    Result<DirectoryEntry> e = parse_directory_entry(entries, next);
    if (!e) {
      return e.error();
    }
    visit(*e);
    if (next == 0) {
      break;
    }
    entries = entries.subspan(next);
  }
  return {};
}

// --- QUERY_INFO (§2.2.37, §2.2.38) with FileNetworkOpenInformation ([MS-FSCC] §2.4.29)

struct FileInfo {
  FileTimes times;
  std::uint64_t allocation_size = 0;
  std::uint64_t end_of_file = 0;
  std::uint32_t attributes = 0;
};
Result<std::size_t> encode_query_file_info(FileId file, std::span<std::uint8_t> body) noexcept;
Result<FileInfo> parse_query_file_info(std::span<const std::uint8_t> message) noexcept;

// --- SET_INFO (§2.2.39, §2.2.40) for end of file, basic info (times), rename and disposition

Result<std::size_t> encode_set_end_of_file(FileId file, std::uint64_t size,
                                           std::span<std::uint8_t> body) noexcept;
Result<std::size_t> encode_set_times(FileId file, const FileTimes& times,
                                     std::span<std::uint8_t> body) noexcept;
Result<std::size_t> encode_rename(FileId file, std::string_view new_path, bool replace,
                                  std::span<std::uint8_t> body) noexcept;
Result<std::size_t> encode_set_delete(FileId file, std::span<std::uint8_t> body) noexcept;
Status parse_set_info(std::span<const std::uint8_t> message) noexcept;

// --- IOCTL FSCTL_VALIDATE_NEGOTIATE_INFO (§2.2.31.4, §2.2.32.6), 3.0 and 3.0.2

struct ValidateNegotiate {
  std::uint32_t capabilities = 0;
  std::array<std::uint8_t, 16> guid{};
  std::uint16_t security_mode = 0;
  std::span<const Dialect> dialects;   // request: the dialects offered
  Dialect dialect = Dialect::kSmb300;  // response: the dialect chosen
};
Result<std::size_t> encode_validate_negotiate(const ValidateNegotiate& request,
                                              std::span<std::uint8_t> body) noexcept;
Result<ValidateNegotiate> parse_validate_negotiate(std::span<const std::uint8_t> message) noexcept;

}  // namespace wireseal::smb::commands
