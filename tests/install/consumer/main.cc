// Seals and opens one message through the installed headers and library.
#include <wireseal/crypto/aead.h>

#include <array>
#include <cstdio>

int main() {
  const std::array<std::uint8_t, 16> key{};
  const std::array<std::uint8_t, 12> nonce{};
  std::array<std::uint8_t, 5> msg{'h', 'e', 'l', 'l', 'o'};
  std::array<std::uint8_t, 16> tag{};
  wireseal::crypto::Aead aead(wireseal::crypto::AeadAlgorithm::kAes128Gcm, key);
  if (!aead.seal(nonce, {}, msg, msg, tag) || !aead.open(nonce, {}, msg, msg, tag) ||
      msg[0] != 'h') {
    std::puts("consumer: round trip failed");
    return 1;
  }
  std::puts("consumer: ok");
  return 0;
}
