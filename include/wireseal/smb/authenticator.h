#pragma once
// Authenticator: the security-token exchange SESSION_SETUP carries (MS-SMB2 §3.2.4.2.3), in the
// shape of GSS-API's init_sec_context (RFC 2743): a first token, a reply to each server token
// that asks for more, a check of the last one, and the session key it produced. NtlmClient
// (ntlm.h) is the built-in one; Kerberos through the system's GSS-API library is another class
// with the same four calls, given to the client as ClientConfig::authenticator.

#include <cstdint>
#include <span>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::smb {

class Authenticator {
 public:
  Authenticator() = default;
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;
  virtual ~Authenticator() = default;

  // initial_token is the first SESSION_SETUP request's security buffer.
  virtual Result<std::vector<std::uint8_t>> initial_token() = 0;
  // respond answers a server token sent with STATUS_MORE_PROCESSING_REQUIRED.
  virtual Result<std::vector<std::uint8_t>> respond(std::span<const std::uint8_t> server_token) = 0;
  // finish checks the server's token of the successful last response (possibly empty).
  virtual Status finish(std::span<const std::uint8_t> server_token) = 0;
  // session_key is the key the exchange produced (empty for an anonymous logon).
  virtual std::span<const std::uint8_t> session_key() const noexcept = 0;
};

}  // namespace wireseal::smb
