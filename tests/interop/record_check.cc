#include "record_check.h"

#include <algorithm>
#include <utility>

#include "dtls/record_crypto.h"
#include "support/hex.h"

namespace wireseal::interop {
namespace {

constexpr std::size_t kCbcIvOffset = dtls::kHeaderSize;  // the IV follows the record header
constexpr std::size_t kCbcIvSize = 16;

// IvReplay is a RandomSource that hands out one recorded CBC IV.
struct IvReplay {
  std::span<const std::uint8_t> iv;
  static void fill(void* context, std::span<std::uint8_t> out) noexcept {
    const auto* self = static_cast<const IvReplay*>(context);
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    std::copy_n(self->iv.begin(), std::min(out.size(), self->iv.size()), out.begin());
  }
};

std::string first_difference(std::span<const std::uint8_t> want,
                             std::span<const std::uint8_t> got) {
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) {
    ++i;
  }
  return "lengths " + std::to_string(want.size()) + "/" + std::to_string(got.size()) +
         ", first difference at byte " + std::to_string(i) + "\n  openssl:  " + test::to_hex(want) +
         "\n  wireseal: " + test::to_hex(got);
}

}  // namespace

RecordChecker::RecordChecker(dtls::RecordCipher cipher, const dtls::KeyBlock& block,
                             bool encrypt_then_mac)
    : cipher_(cipher),
      // Its own copy of the keys (KeyBlock is move-only): the checker re-seals OpenSSL's
      // records at OpenSSL's sequence numbers through the DirectionKeys constructor.
      block_(std::move(*dtls::KeyBlock::from_bytes(cipher, block.bytes()))),
      etm_(encrypt_then_mac),
      cbc_(dtls::info(cipher).kind == dtls::CipherKind::kCbc) {
  openers_[0].emplace(cipher_, block_.keys(dtls::Direction::kClientWrite), 1, opener_options());
  openers_[1].emplace(cipher_, block_.keys(dtls::Direction::kServerWrite), 1, opener_options());
  tally_[0].cbc = cbc_;
  tally_[1].cbc = cbc_;
}

dtls::RecordSealerOptions RecordChecker::sealer_options() const {
  dtls::RecordSealerOptions o;
  o.encrypt_then_mac = etm_;
  return o;
}

dtls::RecordOpenerOptions RecordChecker::opener_options() const {
  dtls::RecordOpenerOptions o;
  o.encrypt_then_mac = etm_;
  return o;
}

std::string RecordChecker::application_data(bool from_client) const {
  std::string out;
  for (const OpenedRecordInfo& r : opened_) {
    if (r.from_client == from_client && r.type == dtls::ContentType::kApplicationData) {
      out.append(r.plaintext.begin(), r.plaintext.end());
    }
  }
  return out;
}

void RecordChecker::check(bool from_client, std::span<const std::uint8_t> record) {
  DirectionTally& tally = tally_[from_client ? 0 : 1];
  ++tally.records;
  const Result<dtls::RecordView> view = dtls::parse_record(record);
  const std::uint64_t seq = view ? view->sequence : 0;
  const std::string name = std::string(from_client ? "client->server" : "server->client") +
                           " epoch 1 seq " + std::to_string(seq);
  std::vector<std::uint8_t> buffer(record.begin(), record.end());  // opened in place
  const Result<dtls::OpenedRecord> opened = openers_[from_client ? 0 : 1]->open(buffer);
  if (!opened) {
    failures_.push_back(name + ": RecordOpener failed: " + to_string(opened.error()) +
                        "\n  record: " + test::to_hex(record));
    return;
  }
  ++tally.opened;
  OpenedRecordInfo r{from_client,
                     opened->sequence,
                     opened->type,
                     {opened->plaintext.begin(), opened->plaintext.end()}};
  if (r.type == dtls::ContentType::kHandshake) {
    check_finished(r, name);
  }
  const dtls::RecordCipherInfo& info = dtls::info(cipher_);
  std::uint64_t explicit_nonce = 0;
  for (std::size_t i = 0; i < info.explicit_nonce_len && info.kind == dtls::CipherKind::kAead;
       ++i) {
    explicit_nonce = explicit_nonce << 8 | record[dtls::kHeaderSize + i];
  }
  const bool foreign_nonce = info.kind == dtls::CipherKind::kAead && info.explicit_nonce_len == 8 &&
                             explicit_nonce != (std::uint64_t{1} << 48 | r.sequence);
  if (foreign_nonce) {
    ++tally.foreign_nonce;
    check_reseal_with_nonce(r, record, name);
    check_fresh_roundtrip(r, name, record);
  } else {
    check_reseal(r, record, name);
  }
  if (cbc_) {
    check_fresh_roundtrip(r, name, {});
  }
  opened_.push_back(std::move(r));
}

void RecordChecker::check_reseal_with_nonce(const OpenedRecordInfo& r,
                                            std::span<const std::uint8_t> record,
                                            const std::string& name) {
  // The record layout RecordSealer writes, but with OpenSSL's explicit nonce:
  // header | explicit nonce | AEAD(plaintext) | tag.
  const dtls::RecordCipherInfo& info = dtls::info(cipher_);
  const dtls::Direction dir =
      r.from_client ? dtls::Direction::kClientWrite : dtls::Direction::kServerWrite;
  dtls::detail::RecordCrypto crypto(cipher_, block_.keys(dir), crypto::Backend::kAuto);
  const std::size_t n = r.plaintext.size();
  std::vector<std::uint8_t> out(dtls::kHeaderSize + info.explicit_nonce_len + n + info.tag_len);
  dtls::write_header(r.type, dtls::kDtls12Version, 1, r.sequence, {},
                     static_cast<std::uint16_t>(out.size() - dtls::kHeaderSize), out.data());
  std::copy_n(record.begin() + dtls::kHeaderSize, info.explicit_nonce_len,
              out.begin() + dtls::kHeaderSize);
  const std::uint64_t epoch_seq = std::uint64_t{1} << 48 | r.sequence;
  std::uint8_t nonce[12];
  crypto.nonce(epoch_seq, out.data() + dtls::kHeaderSize, nonce);
  std::uint8_t aad[dtls::detail::kMaxAadSize];
  const std::size_t aad_len =
      dtls::detail::build_aad(epoch_seq, r.type, dtls::kDtls12Version, {}, n, aad);
  std::uint8_t* body = out.data() + dtls::kHeaderSize + info.explicit_nonce_len;
  if (!crypto.aead->seal(nonce, {aad, aad_len}, r.plaintext, {body, n}, {body + n, info.tag_len})) {
    failures_.push_back(name + ": AEAD seal failed");
    return;
  }
  if (std::equal(out.begin(), out.end(), record.begin(), record.end())) {
    ++tally_[r.from_client ? 0 : 1].identical;
  } else {
    failures_.push_back(
        name + ": re-encryption with OpenSSL's nonce differs: " + first_difference(record, out));
  }
}

void RecordChecker::check_finished(const OpenedRecordInfo& r, const std::string& name) {
  // Finished: msg_type 20, length 12, unfragmented, 12 bytes of verify_data (RFC 5246 §7.4.9).
  const std::vector<std::uint8_t>& p = r.plaintext;
  const bool ok = p.size() == 24 && p[0] == 20 && p[1] == 0 && p[2] == 0 && p[3] == 12 &&
                  p[6] == 0 && p[7] == 0 && p[8] == 0 && p[9] == 0 && p[10] == 0 && p[11] == 12;
  if (ok) {
    ++tally_[r.from_client ? 0 : 1].finished;
  } else {
    failures_.push_back(
        name + ": encrypted handshake record is not a Finished message: " + test::to_hex(p));
  }
}

void RecordChecker::check_reseal(const OpenedRecordInfo& r, std::span<const std::uint8_t> record,
                                 const std::string& name) {
  dtls::RecordSealerOptions o = sealer_options();
  IvReplay replay{};
  if (cbc_) {
    replay.iv = record.subspan(kCbcIvOffset, kCbcIvSize);
    o.random = RandomSource{&IvReplay::fill, &replay};
  }
  const dtls::Direction dir =
      r.from_client ? dtls::Direction::kClientWrite : dtls::Direction::kServerWrite;
  dtls::RecordSealer sealer(cipher_, block_.keys(dir), 1, o, r.sequence);
  std::vector<std::uint8_t> out(sealer.sealed_size(r.plaintext.size()));
  const Result<std::size_t> n = sealer.seal(r.type, r.plaintext, out);
  if (!n) {
    failures_.push_back(name + ": RecordSealer failed: " + to_string(n.error()));
    return;
  }
  out.resize(*n);
  if (std::equal(out.begin(), out.end(), record.begin(), record.end())) {
    ++tally_[r.from_client ? 0 : 1].identical;
  } else {
    failures_.push_back(
        name + ": re-sealed record differs from OpenSSL's: " + first_difference(record, out));
  }
}

void RecordChecker::check_fresh_roundtrip(const OpenedRecordInfo& r, const std::string& name,
                                          std::span<const std::uint8_t> expect_header) {
  const dtls::Direction dir =
      r.from_client ? dtls::Direction::kClientWrite : dtls::Direction::kServerWrite;
  dtls::RecordSealer sealer(cipher_, block_.keys(dir), 1, sealer_options(), r.sequence);
  std::vector<std::uint8_t> out(sealer.sealed_size(r.plaintext.size()));
  const Result<std::size_t> n = sealer.seal(r.type, r.plaintext, out);
  if (!expect_header.empty() && n &&
      !(*n == expect_header.size() &&
        std::equal(out.begin(), out.begin() + dtls::kHeaderSize, expect_header.begin()))) {
    failures_.push_back(name + ": wireseal's record header or length differs from OpenSSL's: " +
                        first_difference(expect_header, out));
  }
  dtls::RecordOpener fresh(cipher_, block_.keys(dir), 1, opener_options());
  const Result<dtls::OpenedRecord> back =
      n ? fresh.open(out) : Result<dtls::OpenedRecord>(n.error());
  if (back && back->type == r.type && back->sequence == r.sequence &&
      std::equal(back->plaintext.begin(), back->plaintext.end(), r.plaintext.begin(),
                 r.plaintext.end())) {
    ++tally_[r.from_client ? 0 : 1].fresh_roundtrip;
  } else {
    failures_.push_back(name + ": fresh-IV record did not re-open: " +
                        (back ? std::string("plaintext differs") : to_string(back.error())));
  }
}

}  // namespace wireseal::interop
