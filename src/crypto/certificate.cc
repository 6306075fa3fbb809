// X.509 certificates over OpenSSL 3's X509 API: chains, self-signed certificates (RFC 8827),
// fingerprints (RFC 8122 §5) and chain verification.
#include "wireseal/crypto/certificate.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>
#include <utility>

#include "common/text.h"
#include "wireseal/crypto/hash.h"

namespace wireseal::crypto {

struct TrustStore::State {
  X509_STORE* store = nullptr;
  ~State() { X509_STORE_free(store); }
};

namespace {

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const noexcept { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;

struct X509StackFree {
  void operator()(STACK_OF(X509) * stack) const noexcept { sk_X509_pop_free(stack, X509_free); }
};

// ErrorMark drops whatever OpenSSL queued during one call: the failure is reported through
// the Result, and stale entries would mislead the next libssl call on this thread.
class ErrorMark {
 public:
  ErrorMark() noexcept { ERR_set_mark(); }
  ~ErrorMark() { ERR_pop_to_mark(); }
  ErrorMark(const ErrorMark&) = delete;
  ErrorMark& operator=(const ErrorMark&) = delete;
};

// PemBlock owns what PEM_read_bio hands out; the data is cleared (it may be a private key
// sharing the file).
struct PemBlock {
  char* name = nullptr;
  char* header = nullptr;
  unsigned char* data = nullptr;
  long len = 0;
  PemBlock() = default;
  PemBlock(const PemBlock&) = delete;
  PemBlock& operator=(const PemBlock&) = delete;
  ~PemBlock() {
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_clear_free(data, static_cast<std::size_t>(len));
  }
};

// parse_x509 decodes one DER certificate with nothing after it.
Owned<X509, X509_free> parse_x509(std::span<const std::uint8_t> der) noexcept {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX)) {
    return nullptr;
  }
  const unsigned char* p = der.data();
  Owned<X509, X509_free> cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (p != der.data() + der.size()) {
    cert.reset();
  }
  return cert;
}

constexpr std::string_view kPemBegin = "-----BEGIN CERTIFICATE-----\n";
constexpr std::string_view kPemEnd = "-----END CERTIFICATE-----\n";
constexpr std::size_t kPemLineBytes = 48;  // 64 base64 characters a line, as OpenSSL writes

std::size_t pem_size(std::size_t der_size) noexcept {
  const std::size_t chars = 4 * ((der_size + 2) / 3);
  const std::size_t lines = (der_size + kPemLineBytes - 1) / kPemLineBytes;
  return kPemBegin.size() + chars + lines + kPemEnd.size();
}

// write_pem writes one CERTIFICATE block at `out` (pem_size(der.size()) bytes).
void write_pem(std::span<const std::uint8_t> der, std::uint8_t* out) noexcept {
  out = std::copy(kPemBegin.begin(), kPemBegin.end(), out);
  std::array<unsigned char, 4 * kPemLineBytes / 3 + 1> line{};  // EVP_EncodeBlock adds a NUL
  for (std::size_t at = 0; at < der.size(); at += kPemLineBytes) {
    const std::size_t n = std::min(kPemLineBytes, der.size() - at);
    const int chars = EVP_EncodeBlock(line.data(), der.data() + at, static_cast<int>(n));
    out = std::copy_n(line.begin(), chars, out);
    *out++ = '\n';
  }
  std::copy(kPemEnd.begin(), kPemEnd.end(), out);
}

struct HashName {
  FingerprintHash hash;
  std::string_view name;  // RFC 8122 §5 / the IANA "Hash Function Textual Names"
  HashAlgorithm algorithm;
};

constexpr HashName kHashNames[] = {
    {FingerprintHash::kSha1, "sha-1", HashAlgorithm::kSha1},
    {FingerprintHash::kSha224, "sha-224", HashAlgorithm::kSha224},
    {FingerprintHash::kSha256, "sha-256", HashAlgorithm::kSha256},
    {FingerprintHash::kSha384, "sha-384", HashAlgorithm::kSha384},
    {FingerprintHash::kSha512, "sha-512", HashAlgorithm::kSha512},
};

const HashName* hash_name(FingerprintHash hash) noexcept {
  for (const HashName& h : kHashNames) {
    if (h.hash == hash) {
      return &h;
    }
  }
  return nullptr;
}

}  // namespace

// CertificateChain

CertificateChain::CertificateChain(const CertificateChain& other)
    : bytes_(other.bytes_), ends_(other.ends_), spans_(other.spans_.size()) {
  rebuild_spans();
}

CertificateChain& CertificateChain::operator=(const CertificateChain& other) {
  if (this != &other) {
    CertificateChain copy(other);
    *this = std::move(copy);
  }
  return *this;
}

CertificateChain::CertificateChain(CertificateChain&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      ends_(std::move(other.ends_)),
      spans_(std::move(other.spans_)) {
  rebuild_spans();
  other.bytes_.clear();
  other.ends_.clear();
  other.spans_.clear();
}

CertificateChain& CertificateChain::operator=(CertificateChain&& other) noexcept {
  if (this != &other) {
    bytes_ = std::move(other.bytes_);
    ends_ = std::move(other.ends_);
    spans_ = std::move(other.spans_);
    rebuild_spans();
    other.bytes_.clear();
    other.ends_.clear();
    other.spans_.clear();
  }
  return *this;
}

void CertificateChain::rebuild_spans() noexcept {
  std::size_t begin = 0;
  for (std::size_t i = 0; i < ends_.size() && i < spans_.size(); ++i) {
    spans_[i] = std::span<const std::uint8_t>(bytes_.data() + begin, ends_[i] - begin);
    begin = ends_[i];
  }
}

Status CertificateChain::append(std::span<const std::uint8_t> der) {
  if (parse_x509(der) == nullptr) {
    return Error::kMalformed;
  }
  bytes_.insert(bytes_.end(), der.begin(), der.end());
  ends_.push_back(bytes_.size());
  return {};
}

void CertificateChain::finish() {
  spans_.resize(ends_.size());
  rebuild_spans();
}

Result<CertificateChain> CertificateChain::from_pem(std::span<const std::uint8_t> pem) noexcept {
  if (pem.empty() || pem.size() > static_cast<std::size_t>(INT_MAX)) {
    return Error::kMalformed;
  }
  const ErrorMark mark;
  const Owned<BIO, BIO_free_all> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) {
    return Error::kOutOfMemory;
  }
  try {
    CertificateChain chain;
    for (;;) {
      PemBlock block;
      if (PEM_read_bio(bio.get(), &block.name, &block.header, &block.data, &block.len) != 1) {
        // No start line: no block left. Anything else: a block that does not decode.
        const unsigned long error = ERR_peek_last_error();
        if (ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE) {
          break;
        }
        return Error::kMalformed;
      }
      if (std::strcmp(block.name, PEM_STRING_X509) != 0) {
        continue;
      }
      const Status added = chain.append({block.data, static_cast<std::size_t>(block.len)});
      if (!added) {
        return added.error();
      }
    }
    if (chain.ends_.empty()) {
      return Error::kMalformed;
    }
    chain.finish();
    return chain;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

Result<CertificateChain> CertificateChain::from_der(
    std::span<const std::span<const std::uint8_t>> certificates) noexcept {
  const ErrorMark mark;
  try {
    CertificateChain chain;
    for (const std::span<const std::uint8_t> der : certificates) {
      const Status added = chain.append(der);
      if (!added) {
        return added.error();
      }
    }
    chain.finish();
    return chain;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

std::span<const std::uint8_t> CertificateChain::der(std::size_t i) const noexcept {
  return i < spans_.size() ? spans_[i] : std::span<const std::uint8_t>{};
}

Result<std::size_t> CertificateChain::to_pem(std::span<std::uint8_t> out) const noexcept {
  std::size_t size = 0;
  for (const std::span<const std::uint8_t> der : spans_) {
    size += pem_size(der.size());
  }
  if (out.empty()) {
    return size;
  }
  if (out.size() < size) {
    return Error::kBufferTooSmall;
  }
  std::uint8_t* at = out.data();
  for (const std::span<const std::uint8_t> der : spans_) {
    write_pem(der, at);
    at += pem_size(der.size());
  }
  return size;
}

// Self-signed certificates

Result<CertifiedKey> generate_self_signed(KeyType type, std::string_view common_name,
                                          int days) noexcept {
  if (days < 1 || common_name.empty() || common_name.size() > static_cast<std::size_t>(INT_MAX)) {
    return Error::kInvalidArgument;
  }
  Result<PrivateKey> key = PrivateKey::generate(type);
  if (!key) {
    return key.error();
  }
  const ErrorMark mark;
  const Owned<X509, X509_free> cert(X509_new());
  const Owned<X509_NAME, X509_NAME_free> name(X509_NAME_new());
  std::array<std::uint8_t, 16> serial{};
  if (cert == nullptr || name == nullptr ||
      RAND_bytes(serial.data(), static_cast<int>(serial.size())) != 1) {
    return Error::kOutOfMemory;
  }
  // Positive (top bit clear) and a full 16 bytes (next bit set).
  serial[0] = static_cast<std::uint8_t>((serial[0] & 0x7F) | 0x40);
  const Owned<BIGNUM, BN_free> serial_bn(
      BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr));
  if (serial_bn == nullptr ||
      BN_to_ASN1_INTEGER(serial_bn.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return Error::kOutOfMemory;
  }
  // X509_NAME_add_entry_by_txt enforces commonName's 1..64 characters and valid UTF-8;
  // X509_time_adj_ex fails past the year 9999.
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      X509_NAME_add_entry_by_txt(name.get(), "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.data()),
                                 static_cast<int>(common_name.size()), -1, 0) != 1 ||
      X509_set_subject_name(cert.get(), name.get()) != 1 ||
      X509_set_issuer_name(cert.get(), name.get()) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -24L * 60 * 60) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, nullptr) == nullptr ||
      X509_set_pubkey(cert.get(), key->evp_pkey()) != 1) {
    return Error::kInvalidArgument;
  }
  // Ed25519 takes no separate digest (RFC 8410 §6).
  const EVP_MD* md = type == KeyType::kEd25519 ? nullptr : EVP_sha256();
  if (X509_sign(cert.get(), key->evp_pkey(), md) <= 0) {
    return Error::kInvalidArgument;
  }
  unsigned char* der = nullptr;
  const int der_size = i2d_X509(cert.get(), &der);
  if (der_size <= 0) {
    return Error::kOutOfMemory;
  }
  const std::span<const std::uint8_t> certificates[] = {{der, static_cast<std::size_t>(der_size)}};
  Result<CertificateChain> chain = CertificateChain::from_der(certificates);
  OPENSSL_free(der);
  if (!chain) {
    return chain.error();
  }
  return CertifiedKey{std::move(*chain), std::move(*key)};
}

// Fingerprints

bool Fingerprint::operator==(const Fingerprint& other) const noexcept {
  const std::size_t n = std::min(size, digest.size());
  return hash == other.hash && size == other.size &&
         std::equal(digest.begin(), digest.begin() + static_cast<std::ptrdiff_t>(n),
                    other.digest.begin());
}

Result<Fingerprint> fingerprint(FingerprintHash hash, std::span<const std::uint8_t> der) noexcept {
  const HashName* h = hash_name(hash);
  if (h == nullptr) {
    return Error::kInvalidArgument;
  }
  Fingerprint fp;
  fp.hash = hash;
  fp.size = digest_length(h->algorithm);
  const Status done = Hash::digest(h->algorithm, der, fp.digest);
  if (!done) {
    return done.error();
  }
  return fp;
}

Result<Fingerprint> parse_fingerprint(std::string_view text) noexcept {
  const std::size_t separator = text.find_first_of(" :");
  if (separator == std::string_view::npos) {
    return Error::kMalformed;
  }
  const std::string_view name = text.substr(0, separator);
  const std::string_view hex = text.substr(separator + 1);
  for (const HashName& h : kHashNames) {
    if (!wireseal::detail::equal_ignoring_case(name, h.name)) {
      continue;
    }
    Fingerprint fp;
    fp.hash = h.hash;
    fp.size = digest_length(h.algorithm);
    // "XX:XX:...:XX": exactly two digits a byte, one colon between bytes.
    if (hex.size() != 3 * fp.size - 1) {
      return Error::kMalformed;
    }
    for (std::size_t i = 0; i < fp.size; ++i) {
      const int high = wireseal::detail::hex_digit(hex[3 * i]);
      const int low = wireseal::detail::hex_digit(hex[3 * i + 1]);
      if (high < 0 || low < 0 || (i + 1 < fp.size && hex[3 * i + 2] != ':')) {
        return Error::kMalformed;
      }
      fp.digest[i] = static_cast<std::uint8_t>(high << 4 | low);
    }
    return fp;
  }
  return Error::kMalformed;
}

std::string format_fingerprint(const Fingerprint& fp) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const HashName* h = hash_name(fp.hash);
  const std::size_t n = std::min(fp.size, fp.digest.size());
  std::string text(h != nullptr ? h->name : std::string_view("unknown"));
  text.reserve(text.size() + 3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    text += i == 0 ? ' ' : ':';
    text += kHex[fp.digest[i] >> 4];
    text += kHex[fp.digest[i] & 0xF];
  }
  return text;
}

// TrustStore

TrustStore::TrustStore(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
TrustStore::TrustStore(TrustStore&&) noexcept = default;
TrustStore& TrustStore::operator=(TrustStore&&) noexcept = default;
TrustStore::~TrustStore() = default;

Result<TrustStore> TrustStore::from_pem(std::span<const std::uint8_t> pem) noexcept {
  const Result<CertificateChain> anchors = CertificateChain::from_pem(pem);
  if (!anchors) {
    return anchors.error();
  }
  const ErrorMark mark;
  std::unique_ptr<State> state(new (std::nothrow) State);
  if (state == nullptr || (state->store = X509_STORE_new()) == nullptr) {
    return Error::kOutOfMemory;
  }
  for (const std::span<const std::uint8_t> der : anchors->certificates()) {
    const Owned<X509, X509_free> cert = parse_x509(der);
    // The store takes its own reference; a repeated anchor is not an error.
    if (cert == nullptr || X509_STORE_add_cert(state->store, cert.get()) != 1) {
      return Error::kOutOfMemory;
    }
  }
  return TrustStore(std::move(state));
}

Status TrustStore::verify(std::span<const std::span<const std::uint8_t>> chain, bool server,
                          std::string_view host_name) const noexcept {
  if (chain.empty()) {
    return Error::kAuthFailed;
  }
  const ErrorMark mark;
  const Owned<X509, X509_free> leaf = parse_x509(chain[0]);
  const std::unique_ptr<STACK_OF(X509), X509StackFree> untrusted(sk_X509_new_null());
  if (leaf == nullptr) {
    return Error::kMalformed;
  }
  if (untrusted == nullptr) {
    return Error::kOutOfMemory;
  }
  for (const std::span<const std::uint8_t> der : chain.subspan(1)) {
    Owned<X509, X509_free> cert = parse_x509(der);
    if (cert == nullptr) {
      return Error::kMalformed;
    }
    if (sk_X509_push(untrusted.get(), cert.get()) <= 0) {
      return Error::kOutOfMemory;
    }
    static_cast<void>(cert.release());  // the stack owns it now
  }
  const Owned<X509_STORE_CTX, X509_STORE_CTX_free> ctx(X509_STORE_CTX_new());
  if (ctx == nullptr ||
      X509_STORE_CTX_init(ctx.get(), state_->store, leaf.get(), untrusted.get()) != 1) {
    return Error::kOutOfMemory;
  }
  // The purpose and trust settings libssl uses for the peer's certificate.
  if (X509_STORE_CTX_set_default(ctx.get(), server ? "ssl_server" : "ssl_client") != 1) {
    return Error::kOutOfMemory;
  }
  if (!host_name.empty()) {
    X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
    // An address literal is matched against iPAddress names, as a DNS name it never would.
    std::array<char, 64> ip{};  // NUL-terminated copy for the address parser
    bool is_ip = false;
    if (host_name.size() < ip.size() && host_name.find('\0') == std::string_view::npos) {
      std::copy(host_name.begin(), host_name.end(), ip.begin());
      is_ip = X509_VERIFY_PARAM_set1_ip_asc(param, ip.data()) == 1;
    }
    if (!is_ip) {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (X509_VERIFY_PARAM_set1_host(param, host_name.data(), host_name.size()) != 1) {
        return Error::kInvalidArgument;
      }
    }
  }
  if (X509_verify_cert(ctx.get()) != 1) {
    return Error::kAuthFailed;
  }
  return {};
}

}  // namespace wireseal::crypto
