#pragma once
// Minimal SPNEGO (RFC 4178) DER codec for NTLMSSP inside SMB2 SESSION_SETUP: the first token
// is a GSS InitialContextToken (RFC 2743 §3.1: [APPLICATION 0] {OID 1.3.6.1.5.5.2,
// NegotiationToken}); later tokens are bare NegTokenResp.
//
// The parsers take untrusted bytes. They descend only into the structures named here, each at
// a fixed depth (no recursion), skip fields they do not know without looking inside, accept
// definite lengths of at most four length bytes and single-byte tags, and return kMalformed
// for anything else. Parsed spans point into the input.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wireseal/result.h"

namespace wireseal::smb::spnego {

// The contents octets of OID 1.3.6.1.4.1.311.2.2.10 (NTLMSSP) and 1.3.6.1.5.5.2 (SPNEGO).
inline constexpr std::uint8_t kNtlmsspOid[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                               0x82, 0x37, 0x02, 0x02, 0x0a};
inline constexpr std::uint8_t kSpnegoOid[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x02};

enum class NegState : std::uint8_t {
  kAcceptCompleted = 0,
  kAcceptIncomplete = 1,
  kReject = 2,
  kRequestMic = 3,
};

// ntlmssp_mech_type_list is the DER MechTypeList holding only NTLMSSP: what NegTokenInit's
// mechTypes carries and what both mechListMICs cover.
std::vector<std::uint8_t> ntlmssp_mech_type_list();

// encode_initial_token wraps NegTokenInit{mechTypes, mechToken} in the GSS InitialContextToken.
// mech_type_list is a DER MechTypeList (ntlmssp_mech_type_list()).
std::vector<std::uint8_t> encode_initial_token(std::span<const std::uint8_t> mech_type_list,
                                               std::span<const std::uint8_t> mech_token);

struct NegTokenRespFields {
  std::optional<NegState> neg_state;
  std::optional<std::span<const std::uint8_t>> supported_mech;  // OID contents octets
  std::optional<std::span<const std::uint8_t>> response_token;
  std::optional<std::span<const std::uint8_t>> mech_list_mic;
};

// encode_neg_token_resp writes NegTokenResp ([1] SEQUENCE) with the fields that are set.
std::vector<std::uint8_t> encode_neg_token_resp(const NegTokenRespFields& fields);

// parse_neg_token_resp reads a NegTokenResp ([1] SEQUENCE); every field is optional.
Result<NegTokenRespFields> parse_neg_token_resp(std::span<const std::uint8_t> token);

struct NegTokenInitFields {
  std::vector<std::span<const std::uint8_t>> mech_types;  // OID contents octets, in order
  std::span<const std::uint8_t> mech_type_list;           // the DER MechTypeList as received
  std::optional<std::span<const std::uint8_t>> mech_token;
};

// parse_neg_token_init reads a NegTokenInit or NegTokenInit2 (reqFlags, negHints and the
// mechListMIC of either are skipped), inside the GSS InitialContextToken or bare ([0] ...).
Result<NegTokenInitFields> parse_neg_token_init(std::span<const std::uint8_t> token);

}  // namespace wireseal::smb::spnego
