#pragma once
// The record-layer set-up the scripted DTLS targets (dtls_roundtrip, dtls_seal_batch) read
// from the start of their input, and its encoding for the corpus generator:
//
//   cipher below(14) | flags u8 (bit 0 encrypt-then-MAC (CBC only), bit 1 CID)
//   [CID: length-1 below(255) | CID bytes | cid_padding u16]
//   version u16 | epoch u16 | first sequence below(2^48 + 1) | backend | IV seed u64
//
// Keys are the fixed key block of fuzz_keys.h: what is fuzzed is the framing, not the key.
#include <cstdint>
#include <stdexcept>

#include "fuzz_crypto.h"
#include "fuzz_input.h"
#include "fuzz_keys.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::fuzz {

inline constexpr std::size_t kRecordCipherCount = 14;

struct DtlsSetup {
  dtls::RecordCipher cipher = dtls::RecordCipher::kAes128Gcm;
  dtls::RecordSealerOptions options;  // `random` stays empty: targets inject a CounterRandom
  std::uint16_t epoch = 0;
  std::uint64_t first_sequence = 0;
  std::uint64_t iv_seed = 0;
};

// record_primitive is the crypto family whose backend the record cipher's options choose.
inline crypto::Primitive record_primitive(dtls::RecordCipher cipher) noexcept {
  switch (cipher) {
    case dtls::RecordCipher::kAes128Gcm:
    case dtls::RecordCipher::kAes256Gcm:
      return crypto::Primitive::kAesGcm;
    case dtls::RecordCipher::kChaCha20Poly1305:
      return crypto::Primitive::kChaCha20Poly1305;
    case dtls::RecordCipher::kAes128Ccm:
    case dtls::RecordCipher::kAes128Ccm8:
    case dtls::RecordCipher::kAes256Ccm:
    case dtls::RecordCipher::kAes256Ccm8:
      return crypto::Primitive::kAesCcm;
    default:
      return crypto::Primitive::kAesCbc;  // also harmless for NULL, which uses no backend
  }
}

inline DtlsSetup read_dtls_setup(FuzzInput& in) {
  DtlsSetup s;
  s.cipher = static_cast<dtls::RecordCipher>(in.below(kRecordCipherCount));
  const std::uint8_t flags = in.u8();
  s.options.encrypt_then_mac =
      (flags & 1) != 0 && dtls::info(s.cipher).kind == dtls::CipherKind::kCbc;
  if ((flags & 2) != 0) {
    std::uint8_t cid[dtls::kMaxCidLength] = {};
    const std::size_t len = 1 + in.below(dtls::kMaxCidLength);
    in.fill({cid, len});
    s.options.cid = dtls::ConnectionId({cid, len});
    s.options.cid_padding = in.u16();
  }
  s.options.version = in.u16();
  s.epoch = in.u16();
  s.first_sequence = in.below_u64(dtls::kMaxSequence + 2);  // one past the end: exhausted at once
  s.options.backend = pick_backend(in, {record_primitive(s.cipher)});
  s.iv_seed = in.u64();
  return s;
}

// DtlsSetupScript is what a generator chooses; write_dtls_setup encodes it for read_dtls_setup.
struct DtlsSetupScript {
  std::size_t cipher = 0;
  bool encrypt_then_mac = false;
  std::size_t cid_len = 0;  // 0: no CID
  std::uint16_t cid_padding = 0;
  std::uint16_t version = dtls::kDtls12Version;
  std::uint16_t epoch = 1;
  std::uint64_t first_sequence = 0;
};

inline void write_dtls_setup(FuzzScript& out, const DtlsSetupScript& s) {
  out.below(kRecordCipherCount, s.cipher);
  out.u8((s.encrypt_then_mac ? 1u : 0u) | (s.cid_len != 0 ? 2u : 0u));
  if (s.cid_len != 0) {
    out.below(dtls::kMaxCidLength, s.cid_len - 1);
    for (std::size_t i = 0; i < s.cid_len; ++i) {
      out.u8(0xc0 + i);
    }
    out.u16(s.cid_padding);
  }
  out.u16(s.version).u16(s.epoch).below_u64(dtls::kMaxSequence + 2, s.first_sequence);
  out.u8(0);  // backend: kAuto
  out.u64(0x5eed);
}

// make_sealer / make_opener key the set-up's direction (client write) of the fixed key block.
inline dtls::RecordSealer make_sealer(const DtlsSetup& s, const dtls::KeyBlock& kb,
                                      RandomSource random) {
  dtls::RecordSealerOptions o = s.options;
  o.random = random;
  return dtls::RecordSealer(s.cipher, kb.keys(dtls::Direction::kClientWrite), s.epoch, o,
                            s.first_sequence);
}

// sealer_accepts says whether a sealer can be built for the set-up: options that leave no room
// for even an empty record (a large CID padding) are set-up misuse, refused by throwing.
inline bool sealer_accepts(const DtlsSetup& s, const dtls::KeyBlock& kb) {
  try {
    (void)make_sealer(s, kb, {});
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

inline dtls::RecordOpener make_opener(const DtlsSetup& s, const dtls::KeyBlock& kb) {
  const dtls::RecordOpenerOptions o{.encrypt_then_mac = s.options.encrypt_then_mac,
                                    .cid = s.options.cid,
                                    .backend = s.options.backend};
  return dtls::RecordOpener(s.cipher, kb.keys(dtls::Direction::kClientWrite), s.epoch, o);
}

}  // namespace wireseal::fuzz
