// RecordSealer: DTLS 1.2 record framing and protection over the crypto core, sending side.
#include "wireseal/dtls/record_sealer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/bytes.h"
#include "common/create.h"
#include "common/ct.h"
#include "record_crypto.h"
#include "record_layout.h"
#include "wireseal/crypto/cbc_hmac.h"

namespace wireseal::dtls {
namespace {

using detail::build_aad;
using detail::epoch_seq;
using detail::kCbcIvSize;
using detail::kMaxAadSize;
using detail::kMaxPlaintext;
using detail::layout;
using detail::Layout;
using detail::RecordCrypto;

// sealable_type: tls12_cid is the outer type of CID records only (RFC 9146 §4), never one a
// caller seals, and with a CID the real type is found as the last non-zero byte of the inner
// plaintext, so type 0 could not be recovered. Sealing either would write a record no receiver
// (wireseal's opener included) accepts as what was sealed.
bool sealable_type(ContentType type, bool with_cid) noexcept {
  return type != ContentType::kTls12Cid && (!with_cid || static_cast<std::uint8_t>(type) != 0);
}

// write_cbc_padding appends TLS padding to data[0, n): 1..16 bytes each equal to count - 1.
std::size_t write_cbc_padding(std::uint8_t* data, std::size_t n) noexcept {
  const std::size_t pad_total = 16 - n % 16;
  std::memset(data + n, static_cast<int>(pad_total - 1), pad_total);
  return n + pad_total;
}

}  // namespace

// ----------------------------------------------------------------------------- sealing

RecordSealer::RecordSealer(RecordCipher cipher, const DirectionKeys& keys, std::uint16_t epoch,
                           RecordSealerOptions options, std::uint64_t first_sequence)
    : crypto_(std::make_unique<RecordCrypto>(cipher, keys, options.backend)),
      options_(options),
      epoch_(epoch),
      next_sequence_(first_sequence) {
  if (options_.encrypt_then_mac && crypto_->info().kind != CipherKind::kCbc) {
    throw std::invalid_argument("wireseal::dtls: encrypt_then_mac applies to CBC ciphers only");
  }
  if (options_.cid.empty() && options_.cid_padding != 0) {
    throw std::invalid_argument("wireseal::dtls: cid_padding needs a connection ID");
  }
  // Even an empty record must fit the RFC 6347 fragment limit (this also keeps every size
  // computation below far from overflow, on 32-bit targets too).
  if (options_.cid_padding > kMaxFragmentLength ||
      layout(crypto_->info(), options_.encrypt_then_mac, options_.cid.size(),
             1 + options_.cid_padding)
              .fragment() > kMaxFragmentLength) {
    throw std::invalid_argument("wireseal::dtls: cid_padding leaves no room for a record");
  }
  if (crypto_->info().kind == CipherKind::kCbc && options_.random.fill == nullptr) {
    crypto_->enable_iv_generator();
  }
  aead_without_cid_ = crypto_->info().kind == CipherKind::kAead && options_.cid.empty();
}

namespace {

DirectionKeys claim_or_throw(KeyBlock& block, Direction direction) {
  Result<DirectionKeys> keys = block.claim_for_sealing(direction);
  if (!keys) {
    throw std::invalid_argument(
        "wireseal::dtls: this KeyBlock already seals that direction (a second sealer would "
        "repeat its nonces)");
  }
  return *keys;
}

}  // namespace

RecordSealer::RecordSealer(KeyBlock& block, Direction direction, std::uint16_t epoch,
                           RecordSealerOptions options)
    : RecordSealer(block.cipher(), claim_or_throw(block, direction), epoch, options) {}

Result<RecordSealer> RecordSealer::create(KeyBlock& block, Direction direction, std::uint16_t epoch,
                                          RecordSealerOptions options) noexcept {
  return wireseal::detail::try_create<RecordSealer>(block, direction, epoch, options);
}

Result<RecordSealer> RecordSealer::create(RecordCipher cipher, const DirectionKeys& keys,
                                          std::uint16_t epoch, RecordSealerOptions options,
                                          std::uint64_t first_sequence) noexcept {
  return wireseal::detail::try_create<RecordSealer>(cipher, keys, epoch, options, first_sequence);
}

void RecordSealer::fresh_iv(std::uint8_t* iv) noexcept {
  if (options_.random.fill != nullptr) {
    options_.random({iv, kCbcIvSize});
  } else {
    crypto_->next_iv(iv);
  }
}
RecordSealer::~RecordSealer() = default;
RecordSealer::RecordSealer(RecordSealer&&) noexcept = default;
RecordSealer& RecordSealer::operator=(RecordSealer&&) noexcept = default;

RecordCipher RecordSealer::cipher() const noexcept { return crypto_->cipher(); }

std::size_t RecordSealer::payload_offset() const noexcept {
  return header_size(options_.cid.size()) + crypto_->info().explicit_nonce_len;
}

std::size_t RecordSealer::sealed_size(std::size_t plaintext_len) const noexcept {
  const std::size_t inner =
      options_.cid.empty() ? plaintext_len : plaintext_len + 1 + options_.cid_padding;
  return layout(crypto_->info(), options_.encrypt_then_mac, options_.cid.size(), inner).total();
}

std::size_t RecordSealer::overhead() const noexcept {
  // Padding is largest when n + MAC is a multiple of 16: check the 16 residues.
  std::size_t worst = 0;
  for (std::size_t n = 0; n < 16; ++n) {
    worst = std::max(worst, sealed_size(n) - n);
  }
  return worst;
}

std::size_t RecordSealer::max_plaintext_size(std::size_t record_len) const noexcept {
  // sealed_size(n) - n never drops more than 15 below overhead() (CBC padding), so no
  // plaintext longer than record_len - overhead() + 15 fits. A record_len of overhead() or
  // less can still hold short plaintexts whose padding is shorter than the worst case.
  const std::size_t o = overhead();
  // A record also never exceeds the fragment limit, which CID padding can reach first.
  const std::size_t limit =
      std::min(record_len, header_size(options_.cid.size()) + kMaxFragmentLength);
  std::size_t n = std::min(record_len + 16 > o ? record_len + 16 - o : 0, kMaxPlaintext);
  while (n > 0 && sealed_size(n) > limit) {
    --n;
  }
  return n;
}

// Framed is a record whose header, explicit nonce and inner plaintext are in place and whose
// protection inputs are ready: what remains is the cryptography.
struct RecordSealer::Framed {
  Layout layout;
  std::uint64_t epoch_seq;
  std::size_t n;                          // inner plaintext length
  std::span<const std::uint8_t> content;  // bytes to protect (plaintext, or the framed payload)
  std::uint8_t* payload;                  // where the protected body goes
  std::uint8_t* record_iv;                // explicit nonce (AEAD) or CBC IV
  ContentType aad_type;
  std::uint8_t nonce[12];
  std::uint8_t aad[kMaxAadSize];
  std::size_t aad_len;
};

Status RecordSealer::frame(ContentType type, std::span<const std::uint8_t> plaintext,
                           std::span<std::uint8_t> out, Framed& f) noexcept {
  if (plaintext.size() > kMaxPlaintext || !sealable_type(type, !options_.cid.empty())) {
    return Error::kInvalidArgument;
  }
  if (next_sequence_ > kMaxSequence) {
    return Error::kSequenceExhausted;  // never wrap: the nonce would repeat
  }
  const RecordCipherInfo& c = crypto_->info();
  const std::span<const std::uint8_t> cid = options_.cid.bytes();
  f.n = cid.empty() ? plaintext.size() : plaintext.size() + 1 + options_.cid_padding;
  f.layout = layout(c, options_.encrypt_then_mac, cid.size(), f.n);
  if (f.layout.fragment() > kMaxFragmentLength) {
    // CID padding can push the fragment past what a receiver accepts (and past the 16-bit
    // length field, RFC 6347 §4.1): refuse rather than write a record that cannot be parsed.
    return Error::kInvalidArgument;
  }
  if (out.size() < f.layout.total()) {
    return Error::kBufferTooSmall;
  }
  f.record_iv = out.data() + f.layout.header;
  f.payload = f.record_iv + f.layout.prefix;
  const bool in_place = plaintext.data() == f.payload;
  if (!in_place && wireseal::detail::overlaps(plaintext.data(), plaintext.size(), out.data(),
                                              f.layout.total())) {
    return Error::kAliasing;
  }
  f.epoch_seq = epoch_seq(epoch_, next_sequence_);
  write_header(type, options_.version, epoch_, next_sequence_, cid,
               static_cast<std::uint16_t>(f.layout.fragment()), out.data());
  // The inner plaintext is the content, then (with a CID) the real type and zero padding.
  // Only AEADs can encrypt from a separate source buffer; everything else is framed in place.
  f.content = plaintext;
  if (!cid.empty() || (c.kind != CipherKind::kAead && !in_place)) {
    if (!in_place && !plaintext.empty()) {
      std::memcpy(f.payload, plaintext.data(), plaintext.size());
    }
    if (!cid.empty()) {
      f.payload[plaintext.size()] = static_cast<std::uint8_t>(type);
      std::memset(f.payload + plaintext.size() + 1, 0, options_.cid_padding);
    }
    f.content = {f.payload, f.n};
  }
  f.aad_type = cid.empty() ? type : ContentType::kTls12Cid;
  if (c.kind == CipherKind::kAead) {
    if (c.explicit_nonce_len != 0) {
      store_be64(f.record_iv, f.epoch_seq);  // RFC 5288 §3: the sequence number, never random
    }
    crypto_->nonce(f.epoch_seq, f.record_iv, f.nonce);
    f.aad_len = build_aad(f.epoch_seq, f.aad_type, options_.version, cid, f.n, f.aad);
  }
  ++next_sequence_;
  return {};
}

void RecordSealer::seal_framed(Framed& f) noexcept {
  const RecordCipherInfo& c = crypto_->info();
  const std::span<const std::uint8_t> cid = options_.cid.bytes();
  const std::size_t n = f.n;
  std::uint8_t* payload = f.payload;
  switch (c.kind) {
    case CipherKind::kAead:
      // Sizes and aliasing were checked by frame(); the AEAD cannot fail here.
      (void)crypto_->aead->seal(f.nonce, {f.aad, f.aad_len}, f.content, {payload, n},
                                {payload + n, c.tag_len});
      break;
    case CipherKind::kCbc: {
      std::uint8_t* iv = f.record_iv;
      fresh_iv(iv);
      // Sizes were checked by frame(); neither call can fail here.
      if (options_.encrypt_then_mac) {
        const std::size_t enc_len = write_cbc_padding(payload, n);
        f.aad_len =
            build_aad(f.epoch_seq, f.aad_type, options_.version, cid, kCbcIvSize + enc_len, f.aad);
        (void)crypto::encrypt_then_mac(*crypto_->cbc, *crypto_->hmac, {f.aad, f.aad_len},
                                       {iv, kCbcIvSize + enc_len}, {payload + enc_len, c.tag_len});
      } else {
        const std::size_t enc_len = write_cbc_padding(payload, n + c.tag_len);
        f.aad_len = build_aad(f.epoch_seq, f.aad_type, options_.version, cid, n, f.aad);
        (void)crypto::mac_then_encrypt(*crypto_->hmac, *crypto_->cbc,
                                       std::span<const std::uint8_t, 16>(iv, 16),
                                       {f.aad, f.aad_len}, {payload, enc_len}, n);
      }
      break;
    }
    case CipherKind::kNull: {
      f.aad_len = build_aad(f.epoch_seq, f.aad_type, options_.version, cid, n, f.aad);
      crypto::Hmac::Stream mac = crypto_->hmac->begin();
      mac.update({f.aad, f.aad_len});
      mac.update({payload, n});
      (void)mac.finish({payload + n, c.tag_len});
      break;
    }
  }
}

Result<std::size_t> RecordSealer::seal(ContentType type, std::span<const std::uint8_t> plaintext,
                                       std::span<std::uint8_t> out) noexcept {
  if (aead_without_cid_) {
    return seal_aead(type, plaintext, out);
  }
  Framed f;
  if (Status s = frame(type, plaintext, out, f); !s) {
    return s.error();
  }
  seal_framed(f);
  return f.layout.total();
}

Result<std::size_t> RecordSealer::seal(ContentType type, std::span<std::uint8_t> buffer,
                                       std::size_t plaintext_len) noexcept {
  const std::size_t offset = payload_offset();
  if (buffer.size() < offset || buffer.size() - offset < plaintext_len) {
    return Error::kBufferTooSmall;
  }
  return seal(type, std::span<const std::uint8_t>(buffer.subspan(offset, plaintext_len)), buffer);
}

// seal_aead is the common case (GCM, CCM, ChaCha20-Poly1305 without a connection ID) as one
// straight-line function: the same bytes as frame() + seal_framed(), a third of the work.
//
//   header (13) | explicit nonce (0 or 8) | ciphertext (n) | tag
Result<std::size_t> RecordSealer::seal_aead(ContentType type,
                                            std::span<const std::uint8_t> plaintext,
                                            std::span<std::uint8_t> out) noexcept {
  const RecordCipherInfo& c = crypto_->info();
  const std::size_t n = plaintext.size();
  const std::size_t fragment = c.explicit_nonce_len + n + c.tag_len;
  if (n > kMaxPlaintext || !sealable_type(type, false)) {
    return Error::kInvalidArgument;
  }
  if (next_sequence_ > kMaxSequence) {
    return Error::kSequenceExhausted;  // never wrap: the nonce would repeat
  }
  if (out.size() < kHeaderSize + fragment) {
    return Error::kBufferTooSmall;
  }
  std::uint8_t* record = out.data();
  std::uint8_t* payload = record + kHeaderSize + c.explicit_nonce_len;
  if (plaintext.data() != payload &&
      wireseal::detail::overlaps(plaintext.data(), n, record, kHeaderSize + fragment)) {
    return Error::kAliasing;
  }
  const std::uint64_t es = epoch_seq(epoch_, next_sequence_);
  detail::write_header_without_cid(type, options_.version, es, static_cast<std::uint16_t>(fragment),
                                   record);
  if (c.explicit_nonce_len != 0) {
    store_be64(record + kHeaderSize, es);  // RFC 5288 §3: the sequence number, never random
  }
  std::uint8_t nonce[12];
  crypto_->nonce(es, record + kHeaderSize, nonce);
  std::uint8_t aad[13];
  detail::aad_without_cid(es, type, options_.version, static_cast<std::uint16_t>(n), aad);
  ++next_sequence_;  // consumed before sealing: a failed seal never frees its nonce
  if (Status st =
          crypto_->aead->seal(nonce, aad, plaintext, {payload, n}, {payload + n, c.tag_len});
      !st) {
    return st.error();
  }
  return kHeaderSize + fragment;
}

void RecordSealer::seal_batch(std::span<Job> jobs) noexcept {
  const bool aead = crypto_->info().kind == CipherKind::kAead;
  // Records the AEAD's multi-buffer kernel would not take (all of them when it has none) are
  // sealed alone, in their turn: batching them would only add bookkeeping.
  const std::size_t interleave_max =
      aead ? crypto_->aead->batch_interleave_max() : std::numeric_limits<std::size_t>::max();
  auto seal_alone = [&](Job& job) {
    Result<std::size_t> r = seal(job.type, job.plaintext, job.out);
    job.status = r ? Status{} : Status{r.error()};
    job.record_len = r ? *r : 0;
  };
  if (interleave_max == 0) {
    for (Job& job : jobs) {
      seal_alone(job);
    }
    return;
  }
  // Frame up to kGroup records (header, nonce or IV, inner plaintext), then run the group's
  // cryptography through the crypto core's batch entry points.
  constexpr std::size_t kGroup = 8;
  Framed framed[kGroup];
  Job* owners[kGroup];
  std::size_t count = 0;
  auto flush = [&] {
    if (aead) {
      seal_group_aead(framed, owners, count);
    } else {
      seal_group_mac(framed, owners, count);
    }
    count = 0;
  };
  for (Job& job : jobs) {
    if (job.plaintext.size() > interleave_max) {
      seal_alone(job);
      continue;
    }
    job.record_len = 0;
    job.status = frame(job.type, job.plaintext, job.out, framed[count]);
    if (!job.status) {
      continue;
    }
    owners[count++] = &job;
    if (count == kGroup) {
      flush();
    }
  }
  if (count != 0) {
    flush();
  }
}

void RecordSealer::seal_group_aead(Framed* framed, Job* const* jobs, std::size_t count) noexcept {
  const std::size_t tag_len = crypto_->info().tag_len;
  crypto::SealJob aead_jobs[8];
  for (std::size_t i = 0; i < count; ++i) {
    Framed& f = framed[i];
    // Member by member: assigned from a braced temporary, the job was built with 8-byte
    // stores and copied with 16-byte loads, which stall on store forwarding.
    crypto::SealJob& job = aead_jobs[i];
    job.nonce = f.nonce;
    job.aad = {f.aad, f.aad_len};
    job.in = f.content;
    job.out = {f.payload, f.n};
    job.tag = {f.payload + f.n, tag_len};
    job.status = {};
  }
  crypto_->aead->seal_batch({aead_jobs, count});
  for (std::size_t i = 0; i < count; ++i) {
    jobs[i]->status = aead_jobs[i].status;
    jobs[i]->record_len = aead_jobs[i].status ? framed[i].layout.total() : 0;
  }
}

// seal_group_mac: CBC (MAC-then-encrypt or encrypt-then-MAC) and NULL records, with the MACs
// and the CBC encryptions of the group each done as one batch.
void RecordSealer::seal_group_mac(Framed* framed, Job* const* jobs, std::size_t count) noexcept {
  const RecordCipherInfo& c = crypto_->info();
  const std::span<const std::uint8_t> cid = options_.cid.bytes();
  const bool cbc = c.kind == CipherKind::kCbc;
  const bool etm = options_.encrypt_then_mac;
  crypto::HmacJob macs[8];
  crypto::CbcJob encryptions[8];
  auto mac_jobs = [&] {
    for (std::size_t i = 0; i < count; ++i) {
      Framed& f = framed[i];
      // MtE and NULL MAC the inner plaintext; EtM MACs IV || ciphertext.
      const std::size_t covered = etm ? kCbcIvSize + f.layout.body : f.n;
      f.aad_len = build_aad(f.epoch_seq, f.aad_type, options_.version, cid, covered, f.aad);
      const std::uint8_t* start = etm ? f.record_iv : f.payload;
      std::uint8_t* mac_out = etm ? f.payload + f.layout.body : f.payload + f.n;
      macs[i] =
          crypto::HmacJob{{{f.aad, f.aad_len}, {start, covered}, {}}, {mac_out, c.tag_len}, {}};
    }
    crypto_->hmac->compute_batch({macs, count});
  };
  auto cbc_jobs = [&] {
    for (std::size_t i = 0; i < count; ++i) {
      Framed& f = framed[i];
      const std::size_t padded =
          etm ? write_cbc_padding(f.payload, f.n) : write_cbc_padding(f.payload, f.n + c.tag_len);
      encryptions[i] =
          crypto::CbcJob{{f.record_iv, kCbcIvSize}, {f.payload, padded}, {f.payload, padded}, {}};
    }
    crypto_->cbc->encrypt_batch({encryptions, count});
  };
  if (cbc) {
    for (std::size_t i = 0; i < count; ++i) {
      fresh_iv(framed[i].record_iv);
    }
  }
  if (cbc && etm) {
    cbc_jobs();
    mac_jobs();
  } else {
    mac_jobs();
    if (cbc) {
      cbc_jobs();
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    jobs[i]->status = {};
    jobs[i]->record_len = framed[i].layout.total();
  }
}

}  // namespace wireseal::dtls
