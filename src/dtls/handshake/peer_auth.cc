// Who the peer is: its certificate checked against the configured fingerprints or trust
// store, its signatures checked with the certificate's key, and the fail-closed rule that
// no association is reported connected with an unauthenticated peer.
#include <algorithm>
#include <array>
#include <new>

#include "endpoint_state.h"
#include "wireseal/dtls/handshake/certificate.h"

namespace wireseal::dtls::detail {

namespace {

constexpr std::size_t kMaxChainLength = 10;

bool contains(const std::vector<std::uint16_t>& list, std::uint16_t value) noexcept {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool matches_fingerprint(const EndpointConfig& c, std::span<const std::uint8_t> leaf) noexcept {
  return std::any_of(c.peer_fingerprints.begin(), c.peer_fingerprints.end(),
                     [leaf](const crypto::Fingerprint& wanted) {
                       const Result<crypto::Fingerprint> got =
                           crypto::fingerprint(wanted.hash, leaf);
                       return got && *got == wanted;
                     });
}

using ChainViews = std::array<std::span<const std::uint8_t>, kMaxChainLength>;

// chain_views lends the stored chain, leaf first, as the views TrustStore and PeerVerifier
// take.
std::span<const std::span<const std::uint8_t>> chain_views(const EndpointState& s,
                                                           ChainViews& views) noexcept {
  for (std::size_t i = 0; i < s.peer_chain.size(); ++i) {
    views[i] = s.peer_chain[i];
  }
  return std::span(views).first(s.peer_chain.size());
}

bool chains_to_trust_store(const EndpointState& s,
                           std::span<const std::span<const std::uint8_t>> chain) noexcept {
  const EndpointConfig& c = *s.config;
  if (!c.trust_store || chain.empty()) {
    return false;
  }
  const bool peer_is_server = s.role == Role::kClient;
  return static_cast<bool>(
      c.trust_store->verify(chain, peer_is_server,
                            peer_is_server ? std::string_view(c.server_name) : std::string_view{}));
}

// verifier_accepts runs the caller's PeerVerifier, which must be set, on `chain`.
bool verifier_accepts(const EndpointConfig& c, std::span<const std::span<const std::uint8_t>> chain,
                      AlertDescription& alert) noexcept {
  const PeerVerifier& verifier = c.peer_verifier;
  return verifier.verify(verifier.context, chain, alert);
}

// ask_verifier runs the caller's PeerVerifier, if any, on the stored chain.
Status ask_verifier(EndpointState& s) noexcept {
  if (s.config->peer_verifier.verify == nullptr) {
    return {};
  }
  ChainViews views{};
  AlertDescription alert = AlertDescription::kCertificateUnknown;
  if (!verifier_accepts(*s.config, chain_views(s, views), alert)) {
    return fail(s, {Error::kAuthFailed, alert, "the peer verifier refused the peer's certificate"});
  }
  if (s.negotiated.peer_auth == PeerAuth::kNone) {
    s.negotiated.peer_auth = PeerAuth::kVerifier;
  }
  return {};
}

bool pins_peer_certificate(const EndpointConfig& c) noexcept {
  return !c.peer_fingerprints.empty() || c.trust_store.has_value();
}

Status store_chain(EndpointState& s, const Certificate& certificate) noexcept {
  s.peer_chain.clear();
  CertificateWalker walker(certificate);
  std::span<const std::uint8_t> der;
  try {
    while (walker.next(der)) {
      if (s.peer_chain.size() == kMaxChainLength) {
        return Error::kInvalidArgument;
      }
      s.peer_chain.emplace_back(der.begin(), der.end());
    }
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return s.peer_chain.empty() ? Status(Error::kMalformed) : Status();
}

}  // namespace

bool verifies_peer_by_certificate(const EndpointConfig& c) noexcept {
  return pins_peer_certificate(c) || c.peer_verifier.verify != nullptr;
}

bool key_fits_suite(crypto::KeyType key, SuiteAuth auth) noexcept {
  switch (auth) {
    case SuiteAuth::kEcdsa:
      return key == crypto::KeyType::kEcP256 || key == crypto::KeyType::kEcP384 ||
             key == crypto::KeyType::kEd25519;
    case SuiteAuth::kRsa:
      return key == crypto::KeyType::kRsa;
    case SuiteAuth::kPsk:
      return false;
  }
  return false;
}

Status accept_peer_certificate(EndpointState& s, std::span<const std::uint8_t> body) noexcept {
  const Result<Certificate> certificate = parse_certificate(body);
  if (!certificate) {
    return fail(s, {Error::kMalformed, AlertDescription::kDecodeError, "malformed Certificate"});
  }
  if (!store_chain(s, *certificate)) {
    return fail(s, {Error::kMalformed, AlertDescription::kBadCertificate,
                    "an empty certificate chain, or one of more than 10 certificates"});
  }
  Result<crypto::PublicKey> key = crypto::PublicKey::from_certificate(s.peer_chain.front());
  if (!key) {
    return fail(s, {Error::kUnsupported, AlertDescription::kUnsupportedCertificate,
                    "the peer's certificate carries no key we can use"});
  }
  s.peer_key.emplace(std::move(*key));
  const EndpointConfig& c = *s.config;
  if (matches_fingerprint(c, s.peer_chain.front())) {
    s.negotiated.peer_auth = PeerAuth::kFingerprint;
  } else if (ChainViews views{}; chains_to_trust_store(s, chain_views(s, views))) {
    s.negotiated.peer_auth = PeerAuth::kChain;
  } else if (pins_peer_certificate(c)) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kBadCertificate,
                    "the peer's certificate matches no fingerprint and no trusted chain"});
  }
  if (const Status st = ask_verifier(s); !st) {
    return st;
  }
  if (s.negotiated.peer_auth == PeerAuth::kNone && !c.allow_unauthenticated_peer) {
    return fail(s,
                {Error::kAuthFailed, AlertDescription::kBadCertificate,
                 "no fingerprint, trust store or verifier to check the peer's certificate with"});
  }
  return {};
}

bool recheck_saved_peer(const EndpointState& s, Session& saved) noexcept {
  if (saved.peer_auth == PeerAuth::kPsk) {
    return true;  // the PSK suites are offered and served only with today's PSK
  }
  const EndpointConfig& c = *s.config;
  const std::span<const std::uint8_t> leaf = saved.peer_certificate;
  const std::array<std::span<const std::uint8_t>, 1> chain{leaf};
  const std::span<const std::span<const std::uint8_t>> saved_chain =
      leaf.empty() ? std::span<const std::span<const std::uint8_t>>{} : std::span(chain);
  PeerAuth today = PeerAuth::kNone;
  if (!leaf.empty() && matches_fingerprint(c, leaf)) {
    today = PeerAuth::kFingerprint;
  } else if (chains_to_trust_store(s, saved_chain)) {
    today = PeerAuth::kChain;
  } else if (pins_peer_certificate(c)) {
    return false;  // the saved peer is not (or no longer) pinned, or its chain is not kept
  }
  if (c.peer_verifier.verify != nullptr) {
    AlertDescription ignored = AlertDescription::kCertificateUnknown;
    if (c.reverify_on_resume) {
      if (saved_chain.empty() || !verifier_accepts(c, saved_chain, ignored)) {
        return false;
      }
      today = today == PeerAuth::kNone ? PeerAuth::kVerifier : today;
    } else if (today == PeerAuth::kNone && saved.peer_auth == PeerAuth::kVerifier) {
      today = PeerAuth::kVerifier;  // the verifier's earlier verdict, not asked again
    }
  }
  if (today == PeerAuth::kNone && !c.allow_unauthenticated_peer) {
    return false;
  }
  saved.peer_auth = today;
  return true;
}

std::uint16_t choose_signature_scheme(const EndpointState& s, const crypto::PrivateKey& key,
                                      std::span<const std::uint16_t> peer_accepts) noexcept {
  for (std::uint16_t scheme : s.signature_schemes) {
    if (std::find(peer_accepts.begin(), peer_accepts.end(), scheme) != peer_accepts.end() &&
        key.supports(static_cast<crypto::SignatureScheme>(scheme))) {
      return scheme;
    }
  }
  return 0;
}

Status verify_peer_signature(EndpointState& s, std::uint16_t scheme,
                             std::span<const std::uint8_t> message,
                             std::span<const std::uint8_t> signature) noexcept {
  const auto typed = static_cast<crypto::SignatureScheme>(scheme);
  if (!s.peer_key || !contains(s.signature_schemes, scheme) || !s.peer_key->supports(typed)) {
    return fail(s, {Error::kMalformed, AlertDescription::kIllegalParameter,
                    "the peer signed with a scheme we did not offer or its key cannot make"});
  }
  if (!s.peer_key->verify(typed, message, signature)) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kDecryptError,
                    "the peer's signature does not verify"});
  }
  return {};
}

Result<std::size_t> sign_into(const EndpointState& s, std::uint16_t scheme,
                              std::span<const std::uint8_t> message,
                              std::span<std::uint8_t> out) noexcept {
  if (!s.config->certificate) {
    return Error::kBadState;
  }
  return s.config->certificate->key.sign(static_cast<crypto::SignatureScheme>(scheme), message,
                                         out);
}

Status become_connected(EndpointState& s) noexcept {
  if (s.suite->auth == SuiteAuth::kPsk) {
    s.negotiated.peer_auth = PeerAuth::kPsk;  // the Finished just checked proves the PSK
  }
  if (s.negotiated.peer_auth == PeerAuth::kNone && !s.config->allow_unauthenticated_peer) {
    return fail(s, {Error::kAuthFailed, AlertDescription::kHandshakeFailure,
                    "the peer did not authenticate"});
  }
  s.state = HandshakeState::kConnected;
  s.event = PendingEvent::kConnected;
  s.timer_running = false;
  // What only the handshake needed goes now. Whoever sent the last flight (the server of a
  // full handshake, the client of a resumed one) keeps it to answer a peer that lost it, and
  // the reassembler's next_seq to notice that.
  std::vector<std::uint8_t>().swap(s.log);  // `= {}` would keep the capacity
  s.reassembler.retire();                   // before its storage goes
  std::vector<std::uint8_t>().swap(s.reassembly_storage);
  s.key_share.reset();
  s.key_block.reset();
  if (s.peer_chain.size() > 1) {
    s.peer_chain.resize(1);  // the leaf stays for peer_certificate()
  }
  if (s.flight_expects_reply) {
    s.flight.clear();
  }
  s.flight.shrink();
  return {};
}

}  // namespace wireseal::dtls::detail
