// The server's two session stores: the ID cache and the ticket keys (session.h).
#include "wireseal/dtls/session.h"

#include <algorithm>
#include <new>
#include <string_view>

#include "common/byte_cursor.h"
#include "common/ct.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/hmac.h"

namespace wireseal::dtls {

namespace {

constexpr std::uint8_t kStateVersion = 1;
constexpr std::size_t kNameSize = 16;
constexpr std::size_t kSaltSize = 16;
constexpr std::size_t kTagSize = 16;
constexpr std::size_t kMaxPeerCertificate = 0xffff;
// version, suite, EMS flag, peer_auth, master secret, certificate length.
constexpr std::size_t kStateFixedSize = 1 + 2 + 1 + 1 + 48 + 2;

std::span<const std::uint8_t> bytes_of(std::string_view text) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::size_t state_size(const Session& s) noexcept {
  return kStateFixedSize + std::min(s.peer_certificate.size(), kMaxPeerCertificate);
}

void write_state(const Session& s, std::span<std::uint8_t> out) noexcept {
  ByteWriter w(out);
  w.u8(kStateVersion);
  w.u16be(s.cipher_suite);
  w.u8(s.extended_master_secret ? 1 : 0);
  w.u8(static_cast<std::uint8_t>(s.peer_auth));
  w.bytes(s.master_secret);
  // A certificate too long to carry is left out: the resumed peer_certificate() is empty.
  const bool fits = s.peer_certificate.size() <= kMaxPeerCertificate;
  w.u16be(fits ? static_cast<std::uint16_t>(s.peer_certificate.size()) : 0);
  if (fits) {
    w.bytes(s.peer_certificate);
  }
}

Result<Session> read_state(std::span<const std::uint8_t> state) noexcept {
  ByteReader r(state);
  Session s;
  const std::uint8_t version = r.u8();
  s.cipher_suite = r.u16be();
  const std::uint8_t ems = r.u8();
  const std::uint8_t auth = r.u8();
  r.copy_to(s.master_secret);
  const std::span<const std::uint8_t> certificate = r.vector16();
  if (!r.done() || version != kStateVersion || ems > 1 ||
      auth > static_cast<std::uint8_t>(PeerAuth::kVerifier)) {
    return Error::kMalformed;
  }
  s.extended_master_secret = ems == 1;
  s.peer_auth = static_cast<PeerAuth>(auth);
  try {
    s.peer_certificate.assign(certificate.begin(), certificate.end());
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return s;
}

// ticket_aead derives the one-ticket AES-256-GCM key from the secret and the ticket's salt.
Result<crypto::Aead> ticket_aead(std::span<const std::uint8_t> secret,
                                 std::span<const std::uint8_t> salt) noexcept {
  std::array<std::uint8_t, 32> key{};
  crypto::Hmac hmac(crypto::HashAlgorithm::kSha256, secret);
  crypto::Hmac::Stream stream = hmac.begin();
  stream.update(bytes_of("wireseal dtls ticket key"));
  stream.update(salt);
  if (const Status st = stream.finish(key); !st) {
    return st.error();
  }
  try {
    crypto::Aead aead(crypto::AeadAlgorithm::kAes256Gcm, key);
    wireseal::detail::secure_wipe(key.data(), key.size());
    return aead;
  } catch (const std::bad_alloc&) {
    wireseal::detail::secure_wipe(key.data(), key.size());
    return Error::kOutOfMemory;
  }
}

}  // namespace

Session::~Session() { wireseal::detail::secure_wipe(master_secret.data(), master_secret.size()); }

// --- SessionCache

SessionCache::Key SessionCache::key_of(std::span<const std::uint8_t> id) noexcept {
  Key key{};
  const std::size_t n = std::min(id.size(), kMaxSessionIdSize);
  key[0] = static_cast<std::uint8_t>(n);
  std::copy_n(id.begin(), n, key.begin() + 1);
  return key;
}

SessionCache::SessionCache(std::size_t capacity, std::chrono::seconds lifetime)
    : capacity_(std::max<std::size_t>(capacity, 1)), lifetime_(lifetime) {}

Status SessionCache::store(Instant now, const Session& session) noexcept {
  if (session.id_size == 0) {
    return Error::kInvalidArgument;
  }
  const Key key = key_of(session.session_id());
  const std::lock_guard lock(mutex_);
  try {
    while (entries_.size() >= capacity_ && !order_.empty()) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    entries_.insert_or_assign(key, Entry{session, now});
    order_.push_back(key);
    // order_ may hold keys of entries removed or replaced: keep it within twice the capacity.
    if (order_.size() > 2 * capacity_) {
      std::erase_if(order_, [this](const Key& k) { return !entries_.contains(k); });
    }
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  return {};
}

std::optional<Session> SessionCache::find(Instant now,
                                          std::span<const std::uint8_t> id) const noexcept {
  const std::lock_guard lock(mutex_);
  try {
    const auto it = entries_.find(key_of(id));
    if (it == entries_.end() || now - it->second.stored > lifetime_) {
      return std::nullopt;
    }
    return it->second.session;
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
}

void SessionCache::remove(std::span<const std::uint8_t> id) noexcept {
  const std::lock_guard lock(mutex_);
  entries_.erase(key_of(id));
}

std::size_t SessionCache::size() const noexcept {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

// --- SessionTicketKeys

SessionTicketKeys::Key SessionTicketKeys::make_key(
    std::span<const std::uint8_t, kSecretSize> secret) noexcept {
  Key key;
  std::copy(secret.begin(), secret.end(), key.secret.begin());
  std::array<std::uint8_t, 32> name{};
  (void)crypto::Hmac(crypto::HashAlgorithm::kSha256, secret)
      .compute(bytes_of("wireseal dtls ticket name"), name);
  std::copy_n(name.begin(), kNameSize, key.name.begin());
  return key;
}

SessionTicketKeys::SessionTicketKeys(std::span<const std::uint8_t, kSecretSize> secret) noexcept
    : current_(make_key(secret)) {}

SessionTicketKeys::~SessionTicketKeys() {
  wireseal::detail::secure_wipe(current_.secret.data(), current_.secret.size());
  if (previous_) {
    wireseal::detail::secure_wipe(previous_->secret.data(), previous_->secret.size());
  }
}

void SessionTicketKeys::rotate(std::span<const std::uint8_t, kSecretSize> secret) noexcept {
  const std::lock_guard lock(mutex_);
  previous_ = current_;
  current_ = make_key(secret);
}

std::size_t SessionTicketKeys::sealed_size(const Session& session) const noexcept {
  return kOverhead + state_size(session);
}

Result<std::size_t> SessionTicketKeys::seal(const Session& session, RandomSource random,
                                            std::span<std::uint8_t> out) const noexcept {
  const std::size_t n = state_size(session);
  if (out.size() < kOverhead + n) {
    return Error::kBufferTooSmall;
  }
  Key key;
  {
    const std::lock_guard lock(mutex_);
    key = current_;
  }
  std::copy(key.name.begin(), key.name.end(), out.begin());
  const std::span<std::uint8_t> salt = out.subspan(kNameSize, kSaltSize);
  random(salt);
  const std::span<std::uint8_t> body = out.subspan(kNameSize + kSaltSize, n);
  write_state(session, body);
  Result<crypto::Aead> aead = ticket_aead(key.secret, salt);
  wireseal::detail::secure_wipe(key.secret.data(), key.secret.size());
  if (!aead) {
    wireseal::detail::secure_wipe(body.data(), body.size());
    return aead.error();
  }
  // Each derived key seals this one ticket, so a fixed nonce is used once per key.
  constexpr std::array<std::uint8_t, 12> kNonce{};
  const Status st = aead->seal(kNonce, out.first(kNameSize + kSaltSize), body, body,
                               out.subspan(kNameSize + kSaltSize + n, kTagSize));
  if (!st) {
    wireseal::detail::secure_wipe(body.data(), body.size());
    return st.error();
  }
  return kOverhead + n;
}

Result<Session> SessionTicketKeys::open(std::span<const std::uint8_t> ticket) const noexcept {
  if (ticket.size() < kOverhead + kStateFixedSize) {
    return Error::kAuthFailed;
  }
  const std::span<const std::uint8_t> name = ticket.first(kNameSize);
  Key key;
  bool known = false;
  {
    const std::lock_guard lock(mutex_);
    if (std::equal(name.begin(), name.end(), current_.name.begin())) {
      key = current_;
      known = true;
    } else if (previous_ && std::equal(name.begin(), name.end(), previous_->name.begin())) {
      key = *previous_;
      known = true;
    }
  }
  if (!known) {
    return Error::kAuthFailed;
  }
  const std::span<const std::uint8_t> salt = ticket.subspan(kNameSize, kSaltSize);
  const std::size_t n = ticket.size() - kOverhead;
  Result<crypto::Aead> aead = ticket_aead(key.secret, salt);
  wireseal::detail::secure_wipe(key.secret.data(), key.secret.size());
  if (!aead) {
    return aead.error();
  }
  std::vector<std::uint8_t> state;
  try {
    state.resize(n);
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
  constexpr std::array<std::uint8_t, 12> kNonce{};
  const Status st = aead->open(kNonce, ticket.first(kNameSize + kSaltSize),
                               ticket.subspan(kNameSize + kSaltSize, n), state,
                               ticket.subspan(kNameSize + kSaltSize + n, kTagSize));
  Result<Session> session = st ? read_state(state) : Result<Session>(Error::kAuthFailed);
  wireseal::detail::secure_wipe(state.data(), state.size());
  return session;
}

}  // namespace wireseal::dtls
