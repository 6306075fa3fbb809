// Fuzz target: PublicKey::from_certificate, which walks a peer's certificate DER to its
// SubjectPublicKeyInfo itself (signature.cc) rather than through d2i_X509. Input: one
// certificate's DER. Must never crash or read out of bounds; a key it makes is of a type the
// handshake signs with, and when OpenSSL decodes the same bytes to a key as well, it is the
// same key (the walker and OpenSSL agree on what the certificate holds).
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <climits>
#include <memory>
#include <span>

#include "fuzz_target.h"
#include "wireseal/crypto/signature.h"

namespace {

struct X509Free {
  void operator()(X509* cert) const noexcept { X509_free(cert); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wireseal;
  const std::span<const std::uint8_t> der(data, size);
  const Result<crypto::PublicKey> ours = crypto::PublicKey::from_certificate(der);
  if (!ours || size > static_cast<std::size_t>(LONG_MAX)) {
    return 0;
  }
  const crypto::KeyType type = ours->type();
  fuzz::require(type == crypto::KeyType::kRsa || type == crypto::KeyType::kEcP256 ||
                    type == crypto::KeyType::kEcP384 || type == crypto::KeyType::kEd25519,
                "a certificate key is of a type the handshake uses");
  const unsigned char* p = data;
  const std::unique_ptr<X509, X509Free> cert(d2i_X509(nullptr, &p, static_cast<long>(size)));
  if (cert != nullptr && p == data + size) {
    const EVP_PKEY* theirs = X509_get0_pubkey(cert.get());
    if (theirs != nullptr) {
      fuzz::require(EVP_PKEY_eq(ours->evp_pkey(), theirs) == 1,
                    "the key from the DER walk is the one OpenSSL decodes");
    }
  }
  return 0;
}
