// Fuzz target: the SESSION_SETUP security tokens a server sends, through the SPNEGO parsers
// (src/smb/auth/spnego.h) and a fresh NtlmClient (wireseal/smb/ntlm.h). The input is
//
//   credentials below(3) (0: a user with a password, 1: anonymous, 2: a user name that is not
//   UTF-8) | first token length u16 | first token | second token (the rest)
//
// Both tokens go to parse_neg_token_init, parse_neg_token_resp and offers_ntlmssp: what they
// return lies inside the token, and a parsed token re-encodes to one that parses to the same
// fields. The client (deterministic random bytes and clock) sends its initial_token, which must
// parse back, then gets the first token as the server's CHALLENGE. A failed respond() changes
// nothing (the same token fails the same way again, there is no session key and finish() is
// out of order); a successful one yields a NegTokenResp carrying an AUTHENTICATE_MESSAGE (with
// a mechListMIC unless anonymous), a 16-byte session key unless anonymous, and no second
// respond(). The second token then goes to finish(), which succeeds at most once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "smb/auth/spnego.h"
#include "wireseal/smb/ntlm.h"

namespace {

using namespace wireseal;
using namespace wireseal::smb;
using fuzz::require;
using Bytes = std::span<const std::uint8_t>;

constexpr std::uint64_t kRandomSeed = 0x5eed;
constexpr std::uint64_t kClientTime = 0x01d0000000000001;

std::uint64_t fixed_clock(void* /*context*/) noexcept { return kClientTime; }

// inside: `part` is empty or lies within `whole`.
bool inside(Bytes part, Bytes whole) {
  if (part.empty()) {
    return true;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(part.data());
  const auto begin = reinterpret_cast<std::uintptr_t>(whole.data());
  return at >= begin && at + part.size() <= begin + whole.size();
}

// fails_with: `r` is the error `e`.
template <class T>
bool fails_with(const Result<T>& r, Error e) {
  return !r && r.error() == e;
}

bool same(std::optional<Bytes> a, std::optional<Bytes> b) {
  return a.has_value() == b.has_value() && (!a || std::ranges::equal(*a, *b));
}

void check_neg_token_resp(Bytes token) {
  const Result<spnego::NegTokenRespFields> r = spnego::parse_neg_token_resp(token);
  if (!r) {
    require(r.error() == Error::kMalformed, "parse_neg_token_resp fails only as kMalformed");
    return;
  }
  for (const std::optional<Bytes>& field :
       {r->supported_mech, r->response_token, r->mech_list_mic}) {
    require(!field || inside(*field, token), "NegTokenResp fields lie inside the token");
  }
  const std::vector<std::uint8_t> again = spnego::encode_neg_token_resp(*r);
  const Result<spnego::NegTokenRespFields> back = spnego::parse_neg_token_resp(again);
  require(back && back->neg_state == r->neg_state &&
              same(back->supported_mech, r->supported_mech) &&
              same(back->response_token, r->response_token) &&
              same(back->mech_list_mic, r->mech_list_mic),
          "a parsed NegTokenResp re-encodes to the same fields");
}

void check_neg_token_init(Bytes token) {
  const Result<spnego::NegTokenInitFields> r = spnego::parse_neg_token_init(token);
  const Result<bool> offered = ntlm::offers_ntlmssp(token);
  require(token.empty() ? offered && *offered : offered.has_value() == r.has_value(),
          "offers_ntlmssp parses exactly what parse_neg_token_init does");
  if (!r) {
    require(r.error() == Error::kMalformed, "parse_neg_token_init fails only as kMalformed");
    return;
  }
  require(inside(r->mech_type_list, token) && !r->mech_type_list.empty(),
          "the MechTypeList lies inside the token");
  bool ntlmssp = false;
  for (const Bytes oid : r->mech_types) {
    require(!oid.empty() && inside(oid, r->mech_type_list), "each mechType lies in the list");
    ntlmssp = ntlmssp || std::ranges::equal(oid, spnego::kNtlmsspOid);
  }
  require(*offered == ntlmssp, "offers_ntlmssp is true exactly when NTLMSSP is listed");
  require(!r->mech_token || inside(*r->mech_token, token), "the mechToken lies inside the token");
  const std::vector<std::uint8_t> again =
      spnego::encode_initial_token(r->mech_type_list, r->mech_token.value_or(Bytes{}));
  const Result<spnego::NegTokenInitFields> back = spnego::parse_neg_token_init(again);
  require(back && std::ranges::equal(back->mech_type_list, r->mech_type_list) &&
              back->mech_types.size() == r->mech_types.size() &&
              same(back->mech_token, r->mech_token.value_or(Bytes{})),
          "a parsed NegTokenInit re-encodes to the same fields");
}

NtlmCredentials credentials(std::size_t which) {
  if (which == 1) {
    return {};
  }
  return {which == 0 ? "alice" : "al\xff\xfe", "SAMBA", "Secret-1", "WS1"};
}

void check_client(std::size_t which, Bytes challenge, Bytes final_token) {
  fuzz::CounterRandom random(kRandomSeed);
  NtlmClient client(credentials(which), random.source(), NtTimeSource{&fixed_clock, nullptr});
  const bool anonymous = which == 1;
  require(client.anonymous() == anonymous, "empty credentials are anonymous");
  const Result<std::vector<std::uint8_t>> initial = client.initial_token();
  if (!initial) {
    require(fails_with(initial, Error::kUnsupported), "initial_token fails only without MD4/RC4");
    return;
  }
  const Result<spnego::NegTokenInitFields> init = spnego::parse_neg_token_init(*initial);
  require(init && init->mech_token.has_value(), "the initial token parses back");

  const Result<std::vector<std::uint8_t>> reply = client.respond(challenge);
  if (!reply) {
    require(client.session_key().empty(), "a failed respond() leaves no session key");
    const Result<std::vector<std::uint8_t>> again = client.respond(challenge);
    require(fails_with(again, reply.error()), "a failed respond() changes nothing");
    require(fails_with(client.finish(final_token), Error::kBadState),
            "finish() before respond() is out of order");
    return;
  }
  require(client.session_key().size() == (anonymous ? 0u : 16u),
          "respond() yields a 16-byte session key unless anonymous");
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  require(resp && resp->response_token && resp->mech_list_mic.has_value() == !anonymous,
          "the reply is a NegTokenResp with the AUTHENTICATE (and a mechListMIC)");
  const Bytes authenticate = *resp->response_token;
  constexpr std::uint8_t kAuthenticateStart[] = {'N', 'T', 'L', 'M', 'S', 'S', 'P', 0, 3, 0, 0, 0};
  require(authenticate.size() >= 88 &&
              std::ranges::equal(authenticate.first(sizeof kAuthenticateStart), kAuthenticateStart),
          "the response token is an AUTHENTICATE_MESSAGE");
  require(fails_with(client.respond(challenge), Error::kBadState), "respond() runs once");

  const Status finished = client.finish(final_token);
  if (finished) {
    require(fails_with(client.finish(final_token), Error::kBadState), "finish() succeeds once");
  } else {
    require(finished.error() == Error::kMalformed || finished.error() == Error::kAuthFailed,
            "finish() fails only as kMalformed or kAuthFailed");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::size_t which = in.below(3);
  const Bytes first = in.bytes(in.u16());
  const Bytes second = in.bytes(in.remaining());
  for (const Bytes token : {first, second}) {
    check_neg_token_resp(token);
    check_neg_token_init(token);
  }
  check_client(which, first, second);
  return 0;
}
