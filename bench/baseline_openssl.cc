#include "bench/baseline_openssl.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace wireseal::bench::openssl {
namespace {

void check(int ok, const char* what) {
  if (ok != 1) {
    throw std::runtime_error(std::string("openssl baseline set-up failed: ") + what);
  }
}

// to_int: benchmark sizes are far below INT_MAX; a larger one is a bug in the suite.
int to_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw std::length_error("openssl baseline: length exceeds int");
  }
  return static_cast<int>(n);
}

struct CipherFree {
  void operator()(EVP_CIPHER* c) const noexcept { EVP_CIPHER_free(c); }
};
struct MacFree {
  void operator()(EVP_MAC* m) const noexcept { EVP_MAC_free(m); }
};

// fetch_cipher fetches once (explicit fetch is what OpenSSL 3 recommends for repeated use).
std::unique_ptr<EVP_CIPHER, CipherFree> fetch_cipher(const char* name) {
  std::unique_ptr<EVP_CIPHER, CipherFree> cipher(EVP_CIPHER_fetch(nullptr, name, nullptr));
  if (!cipher) {
    throw std::runtime_error(std::string("openssl baseline: no cipher ") + name);
  }
  return cipher;
}

CipherCtx new_ctx() {
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) {
    throw std::bad_alloc();
  }
  return ctx;
}

// key_aead schedules `key` on `ctx` for one direction, with the nonce and tag lengths set once.
void key_aead(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* cipher, In key, std::size_t tag_len,
              std::size_t nonce_len, bool ccm, int enc) {
  check(EVP_CipherInit_ex(ctx, cipher, nullptr, nullptr, nullptr, enc), "CipherInit");
  check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, to_int(nonce_len), nullptr), "IVLEN");
  if (ccm) {
    // CCM fixes the tag length before the key (the tag is part of the B0 block).
    check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, to_int(tag_len), nullptr), "TAGLEN");
  }
  check(EVP_CipherInit_ex(ctx, nullptr, nullptr, key.data(), nullptr, enc), "key");
}

}  // namespace

Aead::Aead(const char* cipher, In key, std::size_t tag_len, std::size_t nonce_len)
    : enc_(new_ctx()),
      dec_(new_ctx()),
      ccm_(std::string(cipher).find("CCM") != std::string::npos),
      tag_len_(tag_len) {
  auto c = fetch_cipher(cipher);
  key_aead(enc_.get(), c.get(), key, tag_len, nonce_len, ccm_, 1);
  key_aead(dec_.get(), c.get(), key, tag_len, nonce_len, ccm_, 0);
}

bool Aead::seal(In nonce, In aad, In in, Out out, Out tag) noexcept {
  EVP_CIPHER_CTX* ctx = enc_.get();
  int len = 0;
  if (EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data()) != 1) {
    return false;
  }
  // CCM needs the message length before the AAD; the others must not get this call.
  if (ccm_ && EVP_EncryptUpdate(ctx, nullptr, &len, nullptr, static_cast<int>(in.size())) != 1) {
    return false;
  }
  if (!aad.empty() &&
      EVP_EncryptUpdate(ctx, nullptr, &len, aad.data(), static_cast<int>(aad.size())) != 1) {
    return false;
  }
  if (EVP_EncryptUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size())) != 1) {
    return false;
  }
  if (EVP_EncryptFinal_ex(ctx, out.data() + len, &len) != 1) {
    return false;
  }
  return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_len_), tag.data()) ==
         1;
}

bool Aead::open(In nonce, In aad, In in, Out out, In tag) noexcept {
  EVP_CIPHER_CTX* ctx = dec_.get();
  int len = 0;
  // EVP's ctrl takes a non-const pointer but only copies the tag in.
  void* tag_ptr = const_cast<std::uint8_t*>(tag.data());
  if (EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data()) != 1) {
    return false;
  }
  if (ccm_) {
    // CCM checks the tag inside the single DecryptUpdate over the whole message.
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()), tag_ptr) !=
            1 ||
        EVP_DecryptUpdate(ctx, nullptr, &len, nullptr, static_cast<int>(in.size())) != 1) {
      return false;
    }
  }
  if (!aad.empty() &&
      EVP_DecryptUpdate(ctx, nullptr, &len, aad.data(), static_cast<int>(aad.size())) != 1) {
    return false;
  }
  if (EVP_DecryptUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size())) != 1) {
    return false;
  }
  if (ccm_) {
    return true;
  }
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()), tag_ptr) != 1) {
    return false;
  }
  return EVP_DecryptFinal_ex(ctx, out.data() + len, &len) == 1;
}

Cipher::Cipher(const char* cipher, In key, bool encrypt) : ctx_(new_ctx()) {
  auto c = fetch_cipher(cipher);
  check(EVP_CipherInit_ex(ctx_.get(), c.get(), nullptr, key.data(), nullptr, encrypt ? 1 : 0),
        "CipherInit");
  // Framing (and so padding) is the protocol's business, as in wireseal's AesCbc.
  check(EVP_CIPHER_CTX_set_padding(ctx_.get(), 0), "set_padding");
}

bool Cipher::apply(In iv, In in, Out out) noexcept {
  EVP_CIPHER_CTX* ctx = ctx_.get();
  int len = 0;
  return EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv.data(), -1) == 1 &&
         EVP_CipherUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size())) == 1;
}

Mac::Mac(const char* mac, const char* algorithm_param, const char* algorithm, In key) {
  std::unique_ptr<EVP_MAC, MacFree> m(EVP_MAC_fetch(nullptr, mac, nullptr));
  if (!m) {
    throw std::runtime_error(std::string("openssl baseline: no MAC ") + mac);
  }
  ctx_.reset(EVP_MAC_CTX_new(m.get()));
  if (!ctx_) {
    throw std::bad_alloc();
  }
  // OSSL_PARAM takes non-const char*; the strings are only read.
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(algorithm_param, const_cast<char*>(algorithm), 0),
      OSSL_PARAM_construct_end()};
  check(EVP_MAC_init(ctx_.get(), key.data(), key.size(), params), "EVP_MAC_init");
}

bool Mac::compute(In iv, In message, Out out) noexcept {
  EVP_MAC_CTX* ctx = ctx_.get();
  // NULL key: restart with the key already scheduled. GMAC takes a fresh IV per message.
  OSSL_PARAM iv_params[] = {OSSL_PARAM_construct_octet_string(
                                OSSL_MAC_PARAM_IV, const_cast<std::uint8_t*>(iv.data()), iv.size()),
                            OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(ctx, nullptr, 0, iv.empty() ? nullptr : iv_params) != 1 ||
      EVP_MAC_update(ctx, message.data(), message.size()) != 1) {
    return false;
  }
  std::size_t out_len = 0;
  return EVP_MAC_final(ctx, out.data(), &out_len, out.size()) == 1 && out_len == out.size();
}

}  // namespace wireseal::bench::openssl
