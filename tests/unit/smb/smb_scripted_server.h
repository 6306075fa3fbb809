#pragma once
// ScriptedServer: a small SMB 3.x server in process, as the smb::Transport the real smb::Client
// runs over, with a man in the middle built in. The server answers NEGOTIATE, SESSION_SETUP (an
// NTLM CHALLENGE inside SPNEGO, or an opaque token for a test Authenticator), TREE_CONNECT,
// FSCTL_VALIDATE_NEGOTIATE_INFO, CREATE, QUERY_DIRECTORY, CLOSE and the empty-bodied commands
// honestly: each answer is sealed or signed as its request was, and the preauth hash covers what
// the server itself received and sent. The middle sees every message that is not sealed and may
// rewrite it: the server hashes and signs what it sent, the client reads what the middle made of
// it — which is what a network attacker who knows no password can do.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/result.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/keys.h"
#include "wireseal/smb/session_security.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"
#include "wireseal/smb/transport.h"

namespace wireseal::smb::test {

using Bytes = std::vector<std::uint8_t>;

// InterimAnswers: whether each request after SESSION_SETUP first gets an interim STATUS_PENDING
// answer, and how it is protected.
enum class InterimAnswers : std::uint8_t {
  kNone,
  kLikeTheRequest,  // sealed or signed as the request was (what Samba does)
  kInClear,         // neither sealed nor signed (a forgery where the request was sealed)
};

struct ScriptedServerConfig {
  Dialect dialect = Dialect::kSmb311;
  // encrypt: 3.1.1 picks `cipher`; 3.0.x sets the ENCRYPTION capability (AES-128-CCM).
  bool encrypt = true;
  Cipher cipher = Cipher::kAes128Gcm;
  SigningAlgorithm signing = SigningAlgorithm::kAesCmac;  // 3.1.1's SIGNING_CAPABILITIES pick
  bool require_signing = false;
  // ntlm: the first SESSION_SETUP answer carries an NTLM CHALLENGE inside SPNEGO; otherwise an
  // opaque token (for a test Authenticator).
  bool ntlm = true;
  // session_key is the key the client's side of the exchange ends with: the test knows it
  // (a fixed random source), so the server need not compute it. Empty: an anonymous session,
  // whose final answer cannot be signed.
  Bytes session_key;
  std::uint16_t session_flags = 0;  // of the final SESSION_SETUP answer
  std::uint64_t session_id = 0x0000100000000041;
  // A listing is list_rounds QUERY_DIRECTORY answers of list_entries_per_round entries each
  // (zero: an empty buffer), then STATUS_NO_MORE_FILES.
  std::size_t list_rounds = 1;
  std::size_t list_entries_per_round = 3;
  InterimAnswers interim = InterimAnswers::kNone;
};

// Rewrite is the middle's hand on one message (header and body, no transport prefix).
using Rewrite = std::function<void(Bytes& message)>;

class ScriptedServer final : public Transport {
 public:
  explicit ScriptedServer(ScriptedServerConfig config);

  // read hands out what the server sent; kTimedOut when it has nothing more to say.
  Result<std::size_t> read(std::span<std::uint8_t> out) noexcept override;
  // write_all takes the client's frames and answers each request as it arrives.
  Status write_all(std::span<const std::uint8_t> data) noexcept override;

  // The middle. Requests are rewritten before the server reads them, responses after the
  // server hashed and signed them; sealed messages pass untouched.
  Rewrite rewrite_request;
  Rewrite rewrite_response;

  // requests counts the requests the server received, by command.
  int requests(Command command) const;
  // signed_requests counts those that came signed (and verified), sealed_requests sealed.
  int signed_requests(Command command) const;
  int sealed_requests(Command command) const;
  // directory_entries_sent counts the entries of every QUERY_DIRECTORY answer.
  std::size_t directory_entries_sent() const noexcept { return entries_sent_; }
  // broken is set when a request did not parse, open or verify (the client misbehaved).
  bool broken() const noexcept { return broken_; }

 private:
  void handle_frame(Bytes frame);
  void handle_request(std::span<const std::uint8_t> message, bool sealed);
  Bytes answer(const Smb2Header& request, std::span<const std::uint8_t> message,
               std::uint32_t& status);
  Bytes negotiate_answer();
  Bytes session_setup_answer(std::span<const std::uint8_t> message, std::uint32_t& status);
  Bytes ioctl_answer() const;
  Bytes directory_answer(std::uint32_t& status);
  void send(Smb2Header header, std::span<const std::uint8_t> body, Protection protection);

  ScriptedServerConfig config_;
  Bytes inbox_;
  Bytes outbox_;
  std::size_t read_at_ = 0;
  PreauthHash connection_hash_;
  PreauthHash session_hash_;
  int session_setups_ = 0;
  std::optional<SessionSecurity> security_;
  std::size_t list_rounds_sent_ = 0;
  std::size_t entries_sent_ = 0;
  std::map<Command, int> requests_;
  std::map<Command, int> signed_;
  std::map<Command, int> sealed_;
  bool broken_ = false;
};

}  // namespace wireseal::smb::test
