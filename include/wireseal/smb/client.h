#pragma once
// Client: an SMB 3.x client over any byte stream — negotiate, NTLM session setup, trees, files,
// directories — with large reads and writes split into chunks and pipelined, many requests in
// flight at once.
//
//   bytes ← Transport ← Client (what to ask, in which order) → Connection (MessageIds, credits,
//   sessions, signing and sealing) → Transport → bytes
//
// The Client decides and the Connection protects; neither opens a socket. The Transport is the
// caller's (io::TcpStream for TCP); its read may time out, and every wait of the client ends
// with the transport's error then, so a server that stops answering is kTimedOut, never a hang.
//
// Errors are values. A request the server refused is Error::kPeerRefused with the NTSTATUS in
// last_status() (status_name() names it). Anything that breaks the stream — kMalformed,
// kAuthFailed (a bad tag or signature, or less protection than asked for), kClosed,
// kTimedOut — leaves the client unusable (failed() is true): an SMB connection cannot be
// resynchronised, and data past a forged message cannot be trusted.
//
// Allocation: set-up (connect, tree_connect, open, list) allocates; reads and writes of file
// data allocate nothing. Each chunk's data is copied once: from the caller's buffer (or
// WriteSource) into the request, sealed there in place; from the response, decrypted in place,
// into the caller's buffer (or ReadSink).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/random.h"
#include "wireseal/result.h"
#include "wireseal/smb/authenticator.h"
#include "wireseal/smb/connection.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/ntlm.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"
#include "wireseal/smb/transport.h"

namespace wireseal::smb {

namespace commands {
struct CreateRequest;
}  // namespace commands

// EncryptionPolicy: kRequired refuses a server, session or share that does not encrypt (before
// any file data or name is sent); kPreferred encrypts whenever the server can; kOff encrypts
// only what the server demands.
enum class EncryptionPolicy : std::uint8_t { kRequired, kPreferred, kOff };
// SigningPolicy: kAuto signs when the server asks for it (MS-SMB2's rule); kRequired always.
enum class SigningPolicy : std::uint8_t { kAuto, kRequired };

struct ClientConfig {
  NtlmCredentials credentials;  // an empty user and password log on anonymously
  // authenticator replaces NTLM with the caller's exchange (Kerberos through GSS-API); it must
  // outlive connect(). Null: NTLM with `credentials`.
  Authenticator* authenticator = nullptr;
  std::string server = "127.0.0.1";  // the name in \\server\share
  std::vector<Dialect> dialects{Dialect::kSmb311, Dialect::kSmb302, Dialect::kSmb300};
  // ciphers and signing_algorithms are offered in this order (3.1.1); 3.0.x has AES-128-CCM
  // and AES-CMAC only.
  std::vector<Cipher> ciphers{Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kAes128Ccm,
                              Cipher::kAes256Ccm};
  std::vector<SigningAlgorithm> signing_algorithms{
      SigningAlgorithm::kAesGmac, SigningAlgorithm::kAesCmac, SigningAlgorithm::kHmacSha256};
  EncryptionPolicy encryption = EncryptionPolicy::kPreferred;
  SigningPolicy signing = SigningPolicy::kAuto;
  std::size_t window = 16;             // READ/WRITE requests in flight
  std::uint32_t chunk_size = 1 << 20;  // bytes per READ/WRITE, capped by the server's maxima
  RandomSource random = system_random();
  // allow_insecure_guest accepts a guest or null session (the server's SESSION_SETUP answer
  // has SMB2_SESSION_FLAG_IS_GUEST or IS_NULL, or the exchange gave no key) although
  // credentials or an authenticator were given. Such a session has no key: nothing on it is
  // signed or sealed, and nothing proves that the NEGOTIATE was not rewritten, so anyone on
  // the path can forge that answer without knowing a password, then read and change
  // everything after it. Off (the default): such an answer is kAuthFailed. A logon with empty
  // credentials and no authenticator asks for an anonymous session, and gets one without this.
  bool allow_insecure_guest = false;
  // list() stops with kTableFull once a listing has more entries than max_list_entries, or
  // its entries take more than max_list_bytes (each counts sizeof(DirectoryEntry) plus its
  // name), so a server that never ends a listing cannot make the client loop or grow for ever.
  std::size_t max_list_entries = 1'000'000;
  std::size_t max_list_bytes = std::size_t{64} << 20;
};

struct Tree {
  std::uint32_t id = 0;
  bool encrypted = false;  // every request on it is sealed
};

enum class OpenMode : std::uint8_t {
  kRead,             // an existing file, for reading
  kWrite,            // create or truncate, for writing
  kCreateNew,        // a new file, for writing: STATUS_OBJECT_NAME_COLLISION if it exists
  kTemporary,        // create or truncate, for reading and writing; deleted when closed
  kReadWrite,        // an existing file, for both
  kDirectory,        // an existing directory (for listing)
  kCreateDirectory,  // a new directory
};

struct File {
  FileId id;
  Tree tree;
  std::uint64_t size = 0;
  bool directory = false;
};

struct DirectoryEntry {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t last_write = 0;  // FILETIME
  bool directory = false;
};

struct FileStat {
  std::uint64_t size = 0;
  std::uint64_t last_write = 0;  // FILETIME
  bool directory = false;
};

// Progress is called after every chunk of a read or write with the bytes done so far.
struct Progress {
  void (*report)(void* context, std::uint64_t done) noexcept = nullptr;
  void* context = nullptr;
};

// ReadSink takes the data of a pipelined read chunk by chunk, straight from the decrypted
// response: `offset` counts from the start of the transfer, chunks may come in any order, and
// `data` is valid only during the call. An error stops the transfer (chunks in flight are
// drained) and is read_to's result.
struct ReadSink {
  Status (*consume)(void* context, std::uint64_t offset,
                    std::span<const std::uint8_t> data) noexcept = nullptr;
  void* context = nullptr;
};
// WriteSource fills the data of a pipelined write chunk by chunk, straight into the request
// (where it is then sealed in place): `out` is the chunk at `offset` from the start of the
// transfer, each offset asked for once, in order.
struct WriteSource {
  Status (*produce)(void* context, std::uint64_t offset,
                    std::span<std::uint8_t> out) noexcept = nullptr;
  void* context = nullptr;
};

class Client {
 public:
  // connect negotiates and authenticates on `transport` (which must outlive the client). When
  // the server refuses (kPeerRefused: a wrong password is STATUS_LOGON_FAILURE) and `status`
  // is given, the NTSTATUS is stored there. kAuthFailed: the final SESSION_SETUP answer is not
  // signed with the new session's keys, or it makes a logon that gave credentials a guest or
  // null session (see ClientConfig::allow_insecure_guest). kUnsupported: the caller required
  // encryption or signing the server or the session cannot give.
  static Result<Client> connect(Transport& transport, const ClientConfig& config,
                                std::uint32_t* status = nullptr);

  Result<Tree> tree_connect(std::string_view share);
  Status tree_disconnect(const Tree& tree);

  Result<File> open(const Tree& tree, std::string_view path, OpenMode mode);
  Status close(const File& file);
  Status flush(const File& file);
  // truncate sets the file's size (shorter or longer: the new bytes read as zeros).
  Status truncate(const File& file, std::uint64_t size);
  // set_times changes the times given as non-zero FILETIMEs (100 ns since 1601); zero ones stay.
  Status set_times(const File& file, std::uint64_t last_write, std::uint64_t last_access = 0);

  // read reads up to out.size() bytes at `offset`, pipelined in chunks; returns the bytes read
  // (fewer only at the end of the file).
  Result<std::size_t> read(const File& file, std::uint64_t offset, std::span<std::uint8_t> out,
                           Progress progress = {}) noexcept;
  // write writes all of `data` at `offset`, pipelined in chunks; returns data.size() only once
  // the server has acknowledged every byte.
  Result<std::size_t> write(const File& file, std::uint64_t offset,
                            std::span<const std::uint8_t> data, Progress progress = {}) noexcept;

  // read_small reads a whole small file (out.size() <= chunk_size()) with CREATE + READ + CLOSE
  // in one compound round trip; returns the bytes read.
  Result<std::size_t> read_small(const Tree& tree, std::string_view path,
                                 std::span<std::uint8_t> out);

  // read_to and write_from are read and write without the caller's buffer in between: a file
  // is copied to or from disk with pwrite/pread on the chunks themselves (wireseal smb get/put).
  // They return the bytes transferred; read_to's is shorter than `length` at the end of file.
  Result<std::uint64_t> read_to(const File& file, std::uint64_t offset, std::uint64_t length,
                                ReadSink sink, Progress progress = {}) noexcept;
  Result<std::uint64_t> write_from(const File& file, std::uint64_t offset, std::uint64_t length,
                                   WriteSource source, Progress progress = {}) noexcept;

  // list returns a directory's entries ("." and ".." left out). kTableFull when the listing
  // exceeds ClientConfig::max_list_entries or max_list_bytes (the directory handle is closed;
  // the client stays usable); kMalformed when the server answers a round with no entry.
  Result<std::vector<DirectoryEntry>> list(const Tree& tree, std::string_view path);
  // stat is CREATE + QUERY_INFO + CLOSE in one compound round trip.
  Result<FileStat> stat(const Tree& tree, std::string_view path);
  Status rename(const Tree& tree, std::string_view from, std::string_view to);
  Status remove(const Tree& tree, std::string_view path);  // a file or an empty directory
  Status mkdir(const Tree& tree, std::string_view path);
  Status echo();
  Status logoff();

  // --- what was negotiated
  Dialect dialect() const noexcept { return dialect_; }
  // cipher is the session's cipher, or nullopt when nothing is encrypted.
  std::optional<Cipher> cipher() const noexcept;
  SigningAlgorithm signing_algorithm() const noexcept { return signing_; }
  bool encrypts() const noexcept { return session_encrypts_; }
  bool signs() const noexcept { return session_signs_; }
  // negotiate_validated: on 3.0 and 3.0.2, the first tree_connect repeated the NEGOTIATE under
  // the session's signature (FSCTL_VALIDATE_NEGOTIATE_INFO) and it matched. Always false on
  // 3.1.1 (the signed final SESSION_SETUP answer proves the same) and on a keyless session.
  bool negotiate_validated() const noexcept { return validated_; }
  std::uint32_t chunk_size() const noexcept { return chunk_; }
  std::uint64_t session_id() const noexcept { return session_id_; }

  // last_status is the NTSTATUS of the last refused request (kPeerRefused).
  std::uint32_t last_status() const noexcept { return last_status_; }
  bool failed() const noexcept { return failed_; }
  const Connection& connection() const noexcept { return connection_; }

 private:
  struct Pending;
  Client(Transport& transport, const ClientConfig& config, Connection connection);

  Status negotiate();
  Status session_setup();
  Status validate_negotiate(const Tree& tree);
  bool keyless() noexcept;  // a guest or anonymous session: nothing signed or sealed
  Status install_session(const Response& final_response, std::span<const std::uint8_t> key,
                         std::span<const std::uint8_t> preauth_hash, std::uint16_t flags,
                         bool anonymous_asked);
  Status install_keyless_session(bool anonymous_asked);
  Status list_round(const File& dir, const Tree& tree, bool restart,
                    std::vector<DirectoryEntry>& entries, std::size_t& bytes, bool& done);

  Request request(Command command, const Tree* tree, std::uint16_t charge = 1) const noexcept;
  Result<std::uint64_t> send_one(const Request& request, std::size_t body_len) noexcept;
  Status transmit() noexcept;
  Result<Response> next_response() noexcept;
  Result<Response> round_trip(const Request& request, std::size_t body_len) noexcept;
  Status exchange(Command command, const Tree* tree, Result<std::size_t> encoded,
                  Status (*parse)(std::span<const std::uint8_t>) noexcept) noexcept;
  Status refused(const Response& response) noexcept;
  template <class Issue, class Complete>
  Result<std::uint64_t> pipeline(std::uint64_t& end, Progress progress, Issue&& issue,
                                 Complete&& complete) noexcept;
  template <class Encode, class Use>
  Status compound(const Tree& tree, const commands::CreateRequest& create, Command middle,
                  std::uint16_t middle_charge, Encode&& encode_middle, Use&& use);
  Status fail(Error error) noexcept;
  std::uint16_t credits_to_ask(std::uint16_t charge) const noexcept;

  Transport* transport_;
  ClientConfig config_;
  Connection connection_;
  Dialect dialect_ = Dialect::kSmb311;
  Cipher cipher_ = Cipher::kAes128Gcm;
  bool server_can_encrypt_ = false;
  SigningAlgorithm signing_ = SigningAlgorithm::kAesCmac;
  bool server_requires_signing_ = false;
  bool large_mtu_ = false;
  std::uint32_t chunk_ = 65536;
  std::uint32_t server_capabilities_ = 0;
  std::uint16_t server_security_mode_ = 0;
  std::array<std::uint8_t, 16> client_guid_{};
  std::array<std::uint8_t, 16> server_guid_{};
  std::uint64_t session_id_ = 0;
  bool session_encrypts_ = false;
  bool session_signs_ = false;
  bool validated_ = false;
  std::uint32_t last_status_ = 0;
  bool failed_ = false;
};

}  // namespace wireseal::smb
