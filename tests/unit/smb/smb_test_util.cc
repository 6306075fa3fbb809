#include "smb_test_util.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <stdexcept>

#include "common/bytes.h"

namespace wireseal::smb::test {

Cipher cipher_from_name(const std::string& name) {
  if (name == "AES-128-CCM") {
    return Cipher::kAes128Ccm;
  }
  if (name == "AES-128-GCM") {
    return Cipher::kAes128Gcm;
  }
  if (name == "AES-256-CCM") {
    return Cipher::kAes256Ccm;
  }
  if (name == "AES-256-GCM") {
    return Cipher::kAes256Gcm;
  }
  throw std::invalid_argument("unknown cipher " + name);
}

Bytes evp_aead_seal(Cipher cipher, std::span<const std::uint8_t> key,
                    std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
                    std::span<const std::uint8_t> plain) {
  const bool ccm = cipher == Cipher::kAes128Ccm || cipher == Cipher::kAes256Ccm;
  const EVP_CIPHER* c = nullptr;
  switch (cipher) {
    case Cipher::kAes128Ccm:
      c = EVP_aes_128_ccm();
      break;
    case Cipher::kAes256Ccm:
      c = EVP_aes_256_ccm();
      break;
    case Cipher::kAes128Gcm:
      c = EVP_aes_128_gcm();
      break;
    case Cipher::kAes256Gcm:
      c = EVP_aes_256_gcm();
      break;
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  Bytes out(plain.size() + 16);
  int len = 0;
  bool ok = EVP_EncryptInit_ex(ctx, c, nullptr, nullptr, nullptr) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(ctx, ccm ? EVP_CTRL_CCM_SET_IVLEN : EVP_CTRL_GCM_SET_IVLEN,
                                 static_cast<int>(nonce.size()), nullptr) == 1;
  if (ccm) {
    ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_CCM_SET_TAG, 16, nullptr) == 1;
  }
  ok = ok && EVP_EncryptInit_ex(ctx, nullptr, nullptr, key.data(), nonce.data()) == 1;
  if (ccm) {
    ok = ok && EVP_EncryptUpdate(ctx, nullptr, &len, nullptr, static_cast<int>(plain.size())) == 1;
  }
  ok = ok && EVP_EncryptUpdate(ctx, nullptr, &len, aad.data(), static_cast<int>(aad.size())) == 1;
  ok = ok &&
       EVP_EncryptUpdate(ctx, out.data(), &len, plain.data(), static_cast<int>(plain.size())) == 1;
  ok = ok && EVP_EncryptFinal_ex(ctx, out.data() + len, &len) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(ctx, ccm ? EVP_CTRL_CCM_GET_TAG : EVP_CTRL_GCM_GET_TAG, 16,
                                 out.data() + plain.size()) == 1;
  EVP_CIPHER_CTX_free(ctx);
  if (!ok) {
    throw std::runtime_error("EVP AEAD seal failed");
  }
  return out;
}

Bytes evp_transform_seal(Cipher cipher, std::span<const std::uint8_t> key,
                         std::span<const std::uint8_t> nonce_field, std::uint64_t session_id,
                         std::span<const std::uint8_t> message) {
  Bytes t(kTransformHeaderSize);
  t[0] = 0xFD;
  t[1] = 'S';
  t[2] = 'M';
  t[3] = 'B';
  std::copy(nonce_field.begin(), nonce_field.end(), t.begin() + 20);
  store_le32(t.data() + 36, static_cast<std::uint32_t>(message.size()));
  store_le16(t.data() + 42, 1);
  store_le64(t.data() + 44, session_id);
  const Bytes ct = evp_aead_seal(cipher, key, nonce_field.first(info(cipher).nonce_len),
                                 std::span<const std::uint8_t>(t).subspan(20), message);
  std::copy(ct.end() - 16, ct.end(), t.begin() + 4);
  t.insert(t.end(), ct.begin(), ct.end() - 16);
  return t;
}

Bytes evp_mac(const std::string& algorithm, std::span<const std::uint8_t> key,
              std::span<const std::uint8_t> iv, std::span<const std::uint8_t> message) {
  const char* mac_name = algorithm == "HMAC-SHA256"    ? "HMAC"
                         : algorithm == "AES-128-CMAC" ? "CMAC"
                                                       : "GMAC";
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, mac_name, nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  OSSL_PARAM params[3];
  std::size_t n = 0;
  if (algorithm == "HMAC-SHA256") {
    params[n++] =
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0);
  } else if (algorithm == "AES-128-CMAC") {
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
                                                   const_cast<char*>("AES-128-CBC"), 0);
  } else {
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
                                                   const_cast<char*>("AES-128-GCM"), 0);
    params[n++] = OSSL_PARAM_construct_octet_string(
        OSSL_MAC_PARAM_IV, const_cast<std::uint8_t*>(iv.data()), iv.size());
  }
  params[n] = OSSL_PARAM_construct_end();
  Bytes out(64);
  std::size_t out_len = 0;
  const bool ok = EVP_MAC_init(ctx, key.data(), key.size(), params) == 1 &&
                  EVP_MAC_update(ctx, message.data(), message.size()) == 1 &&
                  EVP_MAC_final(ctx, out.data(), &out_len, out.size()) == 1;
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  if (!ok) {
    throw std::runtime_error("EVP MAC failed");
  }
  out.resize(16);
  return out;
}

Bytes random_message(std::mt19937_64& rng, std::size_t body_len, std::uint32_t flags) {
  Bytes m(kHeaderSize + body_len);
  for (auto& b : m) {
    b = static_cast<std::uint8_t>(rng());
  }
  Smb2Header h;
  h.command = Command::kRead;
  h.flags = flags;
  h.message_id = rng();
  h.session_id = 0x100000000025;
  static_cast<void>(encode_header(h, m));
  return m;
}

RandomSource fixed_random(const Bytes* bytes) {
  return RandomSource{[](void* ctx, std::span<std::uint8_t> out) noexcept {
                        const auto* b = static_cast<const Bytes*>(ctx);
                        for (std::size_t i = 0; i < out.size(); ++i) {
                          out[i] = (*b)[i % b->size()];
                        }
                      },
                      const_cast<Bytes*>(bytes)};
}

}  // namespace wireseal::smb::test
