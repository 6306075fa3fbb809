#pragma once
// Shared pieces of the dtls/ suites: the cipher grid, the record parameters, and thin adapters
// that give wireseal's RecordSealer/RecordOpener and the OpenSSL baseline (bench/
// baseline_openssl_dtls.h) one interface, so each fixture body is written once and both
// implementations do byte-for-byte the same work on the same buffers.
//
// Every record is a real DTLS 1.2 record: application_data, version 0xfefd, epoch 1, sequence
// numbers from 0x0000_1234_5678 upwards (so the header and AEAD nonce carry non-trivial bytes),
// correct length field. Plaintext is protected in place at payload_offset(), the zero-copy path.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bench/baseline_openssl_dtls.h"
#include "bench/bench_util.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::bench::dtls_bench {

inline constexpr std::uint16_t kEpoch = 1;
inline constexpr std::uint64_t kFirstSequence = 0x0000'1234'5678;
inline constexpr auto kType = dtls::ContentType::kApplicationData;

// The pion/dtls #781 grid of record sizes, and 100 bytes, where the batch rows are compared
// with these (bench/dtls_batch.cc).
inline constexpr std::size_t kRecordSizes[] = {16,  64,   100,  128,  256,  512,
                                               800, 1024, 1100, 1400, 4096, 8192};

struct CipherCase {
  std::string_view name;  // operation prefix: "aes128gcm" -> aes128gcm_encrypt / _decrypt
  dtls::RecordCipher cipher;
  bool etm;  // RFC 7366 encrypt-then-MAC (CBC only); otherwise MAC-then-encrypt
};

// Every record cipher; CBC as DTLS 1.2 does by default (MAC-then-encrypt) plus one EtM variant.
inline constexpr CipherCase kCipherCases[] = {
    {"aes128gcm", dtls::RecordCipher::kAes128Gcm, false},
    {"aes256gcm", dtls::RecordCipher::kAes256Gcm, false},
    {"aes128ccm", dtls::RecordCipher::kAes128Ccm, false},
    {"aes128ccm8", dtls::RecordCipher::kAes128Ccm8, false},
    {"aes256ccm", dtls::RecordCipher::kAes256Ccm, false},
    {"aes256ccm8", dtls::RecordCipher::kAes256Ccm8, false},
    {"chacha20poly1305", dtls::RecordCipher::kChaCha20Poly1305, false},
    {"aes128cbcsha", dtls::RecordCipher::kAes128CbcSha1, false},
    {"aes256cbcsha", dtls::RecordCipher::kAes256CbcSha1, false},
    {"aes128cbcsha256", dtls::RecordCipher::kAes128CbcSha256, false},
    {"aes256cbcsha256", dtls::RecordCipher::kAes256CbcSha256, false},
    {"aes256cbcsha384", dtls::RecordCipher::kAes256CbcSha384, false},
    {"aes128cbcsha256etm", dtls::RecordCipher::kAes128CbcSha256, true},
};

// key_block returns a deterministic key block of the right size for `cipher`.
dtls::KeyBlock key_block(dtls::RecordCipher cipher);

// sealer_options / opener_options: the defaults (CBC IVs from the sealer's own AES-CTR
// generator, 64-record replay window, Backend::kAuto) with the case's MAC order.
inline dtls::RecordSealerOptions sealer_options(const CipherCase& c) {
  return {.encrypt_then_mac = c.etm};
}
inline dtls::RecordOpenerOptions opener_options(const CipherCase& c) {
  return {.encrypt_then_mac = c.etm};
}

// WiresealSealer / OpenSslSealer: seal(n, record) protects the n plaintext bytes at
// record[payload_offset()] in place and writes the whole record.
class WiresealSealer {
 public:
  WiresealSealer(const CipherCase& c, const dtls::DirectionKeys& keys)
      : sealer_(c.cipher, keys, kEpoch, sealer_options(c), kFirstSequence) {}
  std::size_t payload_offset() const noexcept { return sealer_.payload_offset(); }
  std::size_t sealed_size(std::size_t n) const noexcept { return sealer_.sealed_size(n); }
  bool seal(std::size_t n, std::span<std::uint8_t> record) noexcept {
    return sealer_.seal(kType, record.subspan(sealer_.payload_offset(), n), record).has_value();
  }
  dtls::RecordSealer& raw() noexcept { return sealer_; }

 private:
  dtls::RecordSealer sealer_;
};

class OpenSslSealer {
 public:
  OpenSslSealer(const CipherCase& c, const dtls::DirectionKeys& keys)
      : sealer_(c.cipher, keys, kEpoch, c.etm, kFirstSequence) {}
  std::size_t payload_offset() const noexcept { return sealer_.payload_offset(); }
  std::size_t sealed_size(std::size_t n) const noexcept { return sealer_.sealed_size(n); }
  bool seal(std::size_t n, std::span<std::uint8_t> record) noexcept {
    return sealer_.seal(static_cast<std::uint8_t>(kType), n, record) != 0;
  }

 private:
  openssl::DtlsSealer sealer_;
};

// WiresealOpener / OpenSslOpener: open(record) authenticates and decrypts in place.
class WiresealOpener {
 public:
  WiresealOpener(const CipherCase& c, const dtls::DirectionKeys& keys)
      : opener_(c.cipher, keys, kEpoch, opener_options(c)) {}
  bool open(std::span<std::uint8_t> record) noexcept { return opener_.open(record).has_value(); }
  // open_plaintext returns the plaintext view (empty on failure), for the interop check.
  std::span<const std::uint8_t> open_plaintext(std::span<std::uint8_t> record) noexcept {
    auto r = opener_.open(record);
    return r ? std::span<const std::uint8_t>(r->plaintext) : std::span<const std::uint8_t>();
  }

 private:
  dtls::RecordOpener opener_;
};

class OpenSslOpener {
 public:
  OpenSslOpener(const CipherCase& c, const dtls::DirectionKeys& keys)
      : opener_(c.cipher, keys, kEpoch, c.etm) {}
  bool open(std::span<std::uint8_t> record) noexcept {
    std::size_t offset = 0;
    std::size_t len = 0;
    return opener_.open(record, &offset, &len);
  }
  std::span<const std::uint8_t> open_plaintext(std::span<std::uint8_t> record) noexcept {
    std::size_t offset = 0;
    std::size_t len = 0;
    if (!opener_.open(record, &offset, &len)) {
      return {};
    }
    return record.subspan(offset, len);
  }

 private:
  openssl::DtlsOpener opener_;
};

// check_interop seals a record of `size` bytes with each implementation and opens it with the
// other, throwing std::runtime_error if a record does not open to its plaintext: the baseline
// must do the real DTLS record, not something cheaper.
void check_interop(const CipherCase& c, std::size_t size);

}  // namespace wireseal::bench::dtls_bench
