// Round trips, tampering, replay and sizing for every record cipher, with and without a
// connection ID, in place and out of place.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dtls_test_util.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct Case {
  RecordCipher cipher;
  bool etm;
  std::size_t cid_len;
};

std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  return test::cipher_name(p.param.cipher) + (p.param.etm ? "_EtM" : "") +
         (p.param.cid_len != 0 ? "_CID" + std::to_string(p.param.cid_len) : "");
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (RecordCipher c : test::kAllRecordCiphers) {
    for (std::size_t cid : {0u, 5u}) {
      cases.push_back({c, false, cid});
      if (info(c).kind == CipherKind::kCbc) {
        cases.push_back({c, true, cid});
      }
    }
  }
  return cases;
}

// Fixture: a key block of random bytes, a sealer for the client direction and its opener.
class RecordRoundTrip : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(42);
    Bytes kb(KeyBlock::size(GetParam().cipher));
    for (auto& b : kb) {
      b = static_cast<std::uint8_t>(rng());
    }
    key_block_.emplace(*KeyBlock::from_bytes(GetParam().cipher, kb));
    Bytes cid(GetParam().cid_len, 0xc1);
    options_.encrypt_then_mac = GetParam().etm;
    options_.cid = ConnectionId(cid);
  }
  RecordSealer sealer(std::uint64_t first_seq = 0) const {
    return RecordSealer(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1, options_,
                        first_seq);
  }
  RecordOpener opener() const {
    return RecordOpener(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1,
                        {.encrypt_then_mac = options_.encrypt_then_mac, .cid = options_.cid});
  }
  std::optional<KeyBlock> key_block_;
  RecordSealerOptions options_;
};

TEST_P(RecordRoundTrip, SealThenOpenRecoversEverySizeInPlaceAndOutOfPlace) {
  RecordSealer s = sealer(0x0000'1234'5678'9aULL);
  RecordOpener o = opener();
  for (std::size_t n = 0; n <= 300; ++n) {
    Bytes pt(n);
    for (std::size_t i = 0; i < n; ++i) {
      pt[i] = static_cast<std::uint8_t>(i * 7 + n);
    }
    Bytes rec(s.sealed_size(n) + 3);
    const bool in_place = n % 2 == 0;
    if (in_place) {
      std::copy(pt.begin(), pt.end(),
                rec.begin() + static_cast<std::ptrdiff_t>(s.payload_offset()));
    }
    const std::span<const std::uint8_t> src =
        in_place ? std::span<const std::uint8_t>(rec.data() + s.payload_offset(), n) : pt;
    Result<std::size_t> len = s.seal(ContentType::kApplicationData, src, rec);
    ASSERT_TRUE(len) << n;
    ASSERT_EQ(*len, s.sealed_size(n));
    EXPECT_LE(*len - n, s.overhead());
    Result<OpenedRecord> r = o.open(rec);
    ASSERT_TRUE(r) << "n=" << n << " " << to_string(r.error());
    EXPECT_EQ(r->type, ContentType::kApplicationData);
    EXPECT_EQ(r->record_size, *len);
    EXPECT_EQ(Bytes(r->plaintext.begin(), r->plaintext.end()), pt);
  }
}

TEST_P(RecordRoundTrip, ReplayedRecordIsRejectedBeforeDecryption) {
  RecordSealer s = sealer();
  RecordOpener o = opener();
  Bytes pt(40, 0x61);
  Bytes rec(s.sealed_size(pt.size()));
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  Bytes copy = rec;
  ASSERT_TRUE(o.open(rec));
  EXPECT_EQ(o.open(copy).error(), Error::kReplay);
}

TEST_P(RecordRoundTrip, EveryBitFlipIsRejectedAndDoesNotMoveTheWindow) {
  RecordSealer s = sealer(7);
  RecordOpener o = opener();
  Bytes pt(33, 0x5a);
  Bytes rec(s.sealed_size(pt.size()));
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  for (std::size_t bit = 0; bit < rec.size() * 8; ++bit) {
    Bytes bad = rec;
    bad[bit / 8] ^= static_cast<std::uint8_t>(1 << (bit % 8));
    Result<OpenedRecord> r = o.open(bad);
    ASSERT_FALSE(r) << "bit " << bit;
  }
  // The genuine record still opens: no forgery advanced the replay window.
  ASSERT_TRUE(o.open(rec));
}

TEST_P(RecordRoundTrip, OutOfPlaceOpenEqualsInPlaceAndLeavesItsInputAlone) {
  RecordSealer s = sealer(300);
  RecordOpener in_place = opener();
  RecordOpener out_of_place = opener();
  for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 100u, 1400u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const Bytes pt(n, static_cast<std::uint8_t>(n));
    Bytes rec(s.sealed_size(n));
    // The in-place seal overload: the plaintext sits at payload_offset().
    std::copy(pt.begin(), pt.end(), rec.begin() + static_cast<std::ptrdiff_t>(s.payload_offset()));
    ASSERT_TRUE(s.seal(ContentType::kApplicationData, std::span<std::uint8_t>(rec), n));
    const Bytes sealed = rec;
    Bytes out(rec.size() + 5, 0xee);
    Result<OpenedRecord> b = out_of_place.open(std::span<const std::uint8_t>(rec), out);
    ASSERT_TRUE(b) << to_string(b.error());
    EXPECT_EQ(rec, sealed) << "the input is not modified";
    EXPECT_GE(b->plaintext.data(), out.data());
    EXPECT_LE(b->plaintext.data() + b->plaintext.size(), out.data() + out.size());
    Result<OpenedRecord> a = in_place.open(rec);
    ASSERT_TRUE(a);
    EXPECT_EQ(Bytes(a->plaintext.begin(), a->plaintext.end()),
              Bytes(b->plaintext.begin(), b->plaintext.end()));
    EXPECT_EQ(Bytes(b->plaintext.begin(), b->plaintext.end()), pt);
    EXPECT_EQ(a->record_size, b->record_size);
  }
  // Same start is the in-place open; partial overlap and short outputs are refused.
  const Bytes pt(50, 0x33);
  Bytes rec(s.sealed_size(pt.size()) + 8);
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  const Bytes sealed(rec.begin(), rec.begin() + static_cast<std::ptrdiff_t>(s.sealed_size(50)));
  Bytes shifted = rec;
  EXPECT_EQ(out_of_place
                .open(std::span<const std::uint8_t>(shifted).first(sealed.size()),
                      std::span<std::uint8_t>(shifted).subspan(4))
                .error(),
            Error::kAliasing);
  Bytes small(sealed.size() - 1);
  EXPECT_EQ(out_of_place.open(std::span<const std::uint8_t>(sealed), small).error(),
            Error::kBufferTooSmall);
  Result<OpenedRecord> same =
      out_of_place.open(std::span<const std::uint8_t>(rec), std::span<std::uint8_t>(rec));
  ASSERT_TRUE(same);
  EXPECT_EQ(Bytes(same->plaintext.begin(), same->plaintext.end()), pt);
  // A forged record opened out of place leaves nothing readable in the output.
  Bytes forged = sealed;
  forged.back() ^= 1;
  Bytes out(forged.size(), 0xee);
  RecordOpener fresh = opener();  // the genuine record was opened above: not a replay here
  EXPECT_EQ(fresh.open(std::span<const std::uint8_t>(forged), out).error(), Error::kAuthFailed);
  EXPECT_EQ(out, Bytes(out.size(), 0));
}

TEST_P(RecordRoundTrip, DropsAreCountedByReason) {
  RecordSealer s = sealer();
  RecordOpener o = opener();
  const Bytes pt(20, 0x44);
  Bytes rec(s.sealed_size(pt.size()));
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  const Bytes sealed = rec;
  Bytes forged = sealed;
  forged.back() ^= 0x80;
  EXPECT_EQ(o.open(forged).error(), Error::kAuthFailed);
  Bytes other_epoch = sealed;
  other_epoch[4] ^= 1;  // epoch 1 -> 0
  EXPECT_EQ(o.open(other_epoch).error(), Error::kWrongContext);
  Bytes truncated(sealed.begin(), sealed.begin() + 5);
  EXPECT_EQ(o.open(truncated).error(), Error::kMalformed);
  ASSERT_TRUE(o.open(rec));
  Bytes again = sealed;
  EXPECT_EQ(o.open(again).error(), Error::kReplay);
  const DropCounters& d = o.drop_counters();
  EXPECT_EQ(d.auth, 1u);
  EXPECT_EQ(d.wrong_context, 1u);
  EXPECT_EQ(d.malformed, 1u);
  EXPECT_EQ(d.replay, 1u);
  EXPECT_EQ(d.total(), 4u);
  if (!options_.cid.empty()) {
    Bytes other_cid = sealed;
    other_cid[11] ^= 1;  // the first CID byte
    EXPECT_EQ(o.open(other_cid).error(), Error::kWrongContext);
    EXPECT_EQ(o.drop_counters().wrong_context, 2u);
  }
}

TEST_P(RecordRoundTrip, CreateReportsMisuseInsteadOfThrowing) {
  RecordSealerOptions bad = options_;
  bad.cid_padding = options_.cid.empty() ? 1 : SIZE_MAX;
  Result<RecordSealer> s =
      RecordSealer::create(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1, bad);
  EXPECT_EQ(s.error(), Error::kInvalidArgument);
  Result<RecordSealer> good = RecordSealer::create(
      GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1, options_);
  ASSERT_TRUE(good);
  DirectionKeys short_keys = key_block_->keys(Direction::kClientWrite);
  short_keys.enc_key = short_keys.enc_key.first(short_keys.enc_key.size() / 2);
  short_keys.mac_key = short_keys.mac_key.first(short_keys.mac_key.size() / 2);
  short_keys.iv = short_keys.iv.first(short_keys.iv.size() / 2);
  EXPECT_EQ(RecordOpener::create(GetParam().cipher, short_keys, 1).error(),
            Error::kInvalidArgument);
  Result<RecordOpener> o =
      RecordOpener::create(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1,
                           {.encrypt_then_mac = options_.encrypt_then_mac, .cid = options_.cid});
  ASSERT_TRUE(o);
  const Bytes pt(9, 0x21);
  Bytes rec(good->sealed_size(pt.size()));
  ASSERT_TRUE(good->seal(ContentType::kApplicationData, pt, rec));
  ASSERT_TRUE(o->open(rec));
}

TEST_P(RecordRoundTrip, MaxPlaintextSizeIsTheLargestThatFits) {
  RecordSealer s = sealer();
  for (std::size_t budget : {40u, 60u, 100u, 1200u, 1500u}) {
    const std::size_t n = s.max_plaintext_size(budget);
    if (s.sealed_size(0) > budget) {
      EXPECT_EQ(n, 0u);  // not even an empty record fits
      continue;
    }
    EXPECT_LE(s.sealed_size(n), budget);
    EXPECT_GT(s.sealed_size(n + 1), budget);
  }
}

TEST_P(RecordRoundTrip, SealBatchEqualsOneAtATimeAndOpens) {
  // Deterministic CBC IVs so the two sealers must produce identical bytes.
  std::uint64_t counter_a = 0;
  std::uint64_t counter_b = 0;
  auto fill = [](void* ctx, std::span<std::uint8_t> out) noexcept {
    auto* c = static_cast<std::uint64_t*>(ctx);
    for (auto& b : out) {
      b = static_cast<std::uint8_t>(++*c);
    }
  };
  options_.random = RandomSource{fill, &counter_a};
  RecordSealer batch = sealer(100);
  options_.random = RandomSource{fill, &counter_b};
  RecordSealer single = sealer(100);
  RecordOpener o = opener();
  const std::size_t sizes[] = {0, 1, 16, 100, 1400, 1400, 1400, 1400, 17, 1200, 3, 1400};
  std::vector<Bytes> plaintexts, batch_out, single_out;
  std::vector<RecordSealer::Job> jobs;
  for (std::size_t n : sizes) {
    plaintexts.emplace_back(n, static_cast<std::uint8_t>(n));
    batch_out.emplace_back(batch.sealed_size(n));
    single_out.emplace_back(single.sealed_size(n));
  }
  batch_out[5].resize(10);  // one job with a too-small buffer fails alone, using no sequence
  for (std::size_t i = 0; i < plaintexts.size(); ++i) {
    jobs.push_back({ContentType::kApplicationData, plaintexts[i], batch_out[i], {}, 0});
  }
  batch.seal_batch(jobs);
  for (std::size_t i = 0; i < plaintexts.size(); ++i) {
    if (i == 5) {
      EXPECT_EQ(jobs[i].status.error(), Error::kBufferTooSmall);
      continue;
    }
    ASSERT_TRUE(jobs[i].status) << i;
    Result<std::size_t> len =
        single.seal(ContentType::kApplicationData, plaintexts[i], single_out[i]);
    ASSERT_TRUE(len);
    ASSERT_EQ(jobs[i].record_len, *len);
    ASSERT_EQ(batch_out[i], single_out[i]) << "record " << i;
    Result<OpenedRecord> r = o.open(batch_out[i]);
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(Bytes(r->plaintext.begin(), r->plaintext.end()), plaintexts[i]);
  }
}

TEST_P(RecordRoundTrip, CidPaddingIsBoundedByTheFragmentLimit) {
  if (GetParam().cid_len == 0) {
    RecordSealerOptions o = options_;
    o.cid_padding = 1;
    EXPECT_THROW(RecordSealer(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1, o),
                 std::invalid_argument);
    return;
  }
  // Paddings that leave no room for even an empty record are refused at set-up, however
  // large (they used to wrap the length arithmetic).
  for (std::size_t padding : {kMaxFragmentLength, std::size_t{1} << 31, SIZE_MAX / 2, SIZE_MAX}) {
    RecordSealerOptions o = options_;
    o.cid_padding = padding;
    EXPECT_THROW(RecordSealer(GetParam().cipher, key_block_->keys(Direction::kClientWrite), 1, o),
                 std::invalid_argument)
        << padding;
  }
  for (std::size_t padding : {std::size_t{255}, std::size_t{2048}, std::size_t{16000}}) {
    SCOPED_TRACE("padding " + std::to_string(padding));
    options_.cid_padding = padding;
    RecordSealer s = sealer();
    RecordOpener o = opener();
    const std::size_t n = s.max_plaintext_size(SIZE_MAX / 4);
    ASSERT_GT(n, 0u);
    ASSERT_LE(s.sealed_size(n) - header_size(GetParam().cid_len), kMaxFragmentLength);
    Bytes pt(n + 1, 0x42);
    Bytes rec(s.sealed_size(n + 1) + 64);
    if (n < 16384) {
      // One byte more would exceed the fragment limit: refused, nothing sealed.
      EXPECT_EQ(s.seal(ContentType::kApplicationData, pt, rec).error(), Error::kInvalidArgument);
    }
    Result<std::size_t> len = s.seal(ContentType::kApplicationData, {pt.data(), n}, rec);
    ASSERT_TRUE(len);
    const std::size_t header = header_size(GetParam().cid_len);
    EXPECT_EQ(std::size_t{rec[header - 2]} << 8 | rec[header - 1], *len - header)
        << "the length field is not truncated";
    Result<OpenedRecord> r = o.open({rec.data(), *len});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->plaintext.size(), n);
  }
}

// max_plaintext_size is exact for every record length, including those at or below
// overhead() that still hold plaintexts with less than worst-case CBC padding (a fuzz finding:
// they used to report 0).
TEST_P(RecordRoundTrip, MaxPlaintextSizeIsExactForEveryShortLength) {
  const RecordSealer s = sealer();
  for (std::size_t len = s.sealed_size(0) - 1; len <= s.overhead() + 64; ++len) {
    const std::size_t m = s.max_plaintext_size(len);
    if (m != 0 || s.sealed_size(0) <= len) {
      EXPECT_LE(s.sealed_size(m), len) << len;
    }
    EXPECT_GT(s.sealed_size(m + 1), len) << len;
  }
}

// tls12_cid is never a type a caller seals, and with a CID a zero type could not be found
// again in the inner plaintext: both are refused instead of producing unopenable records.
TEST_P(RecordRoundTrip, RefusesContentTypesItCouldNotOpen) {
  RecordSealer s = sealer();
  RecordOpener o = opener();
  const std::uint8_t pt[3] = {1, 2, 3};
  Bytes rec(s.sealed_size(sizeof(pt)));
  EXPECT_EQ(s.seal(ContentType::kTls12Cid, pt, rec).error(), Error::kInvalidArgument);
  const Result<std::size_t> zero = s.seal(static_cast<ContentType>(0), pt, rec);
  if (GetParam().cid_len != 0) {
    EXPECT_EQ(zero.error(), Error::kInvalidArgument);
  } else {
    ASSERT_TRUE(zero);
    Result<OpenedRecord> r = o.open(rec);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->type, static_cast<ContentType>(0));
  }
  EXPECT_EQ(s.next_sequence(), GetParam().cid_len != 0 ? 0u : 1u);
}

INSTANTIATE_TEST_SUITE_P(AllCiphers, RecordRoundTrip, ::testing::ValuesIn(all_cases()), case_name);

TEST(RecordSealer, RefusesToWrapTheSequenceNumber) {
  Bytes kb(KeyBlock::size(RecordCipher::kAes128Gcm), 1);
  KeyBlock block = *KeyBlock::from_bytes(RecordCipher::kAes128Gcm, kb);
  RecordSealer s(RecordCipher::kAes128Gcm, block.keys(Direction::kServerWrite), 1, {},
                 kMaxSequence);
  Bytes rec(100);
  const std::uint8_t pt[4] = {1, 2, 3, 4};
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  EXPECT_EQ(s.seal(ContentType::kApplicationData, pt, rec).error(), Error::kSequenceExhausted);
}

// CID padding that would push the fragment past 2^14 + 2048 (and the 16-bit length field) is
// refused per record (a fuzz finding: the length wrapped and the record did not parse).
TEST(RecordSealer, RefusesCidPaddingPastTheFragmentLimit) {
  Bytes kb(KeyBlock::size(RecordCipher::kAes128Gcm), 1);
  KeyBlock block = *KeyBlock::from_bytes(RecordCipher::kAes128Gcm, kb);
  RecordSealerOptions options;
  const std::uint8_t cid[2] = {7, 8};
  options.cid = ConnectionId(cid);
  options.cid_padding = 3000;
  RecordSealer s(RecordCipher::kAes128Gcm, block.keys(Direction::kServerWrite), 1, options);
  RecordOpener o(RecordCipher::kAes128Gcm, block.keys(Direction::kServerWrite), 1,
                 {.cid = options.cid});
  const Bytes big(16384, 'b');
  Bytes rec(s.sealed_size(big.size()));
  EXPECT_EQ(s.seal(ContentType::kApplicationData, big, rec).error(), Error::kInvalidArgument);
  const Bytes small(100, 's');
  rec.resize(s.sealed_size(small.size()));
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, small, rec));
  Result<OpenedRecord> r = o.open(rec);
  ASSERT_TRUE(r);
  EXPECT_EQ(Bytes(r->plaintext.begin(), r->plaintext.end()), small);
}

TEST(RecordSealer, GcmExplicitNonceIsEpochAndSequence) {
  Bytes kb(KeyBlock::size(RecordCipher::kAes128Gcm), 1);
  KeyBlock block = *KeyBlock::from_bytes(RecordCipher::kAes128Gcm, kb);
  RecordSealer s(RecordCipher::kAes128Gcm, block.keys(Direction::kServerWrite), 3, {},
                 0x0102030405ULL);
  Bytes rec(100);
  const std::uint8_t pt[4] = {1, 2, 3, 4};
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  const Bytes expected = {0x00, 0x03, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05};
  EXPECT_EQ(Bytes(rec.begin() + 13, rec.begin() + 21), expected);
  EXPECT_EQ(Bytes(rec.begin() + 3, rec.begin() + 11), expected);  // header epoch + sequence
}

TEST(RecordSealer, AKeyBlockSealsEachDirectionOnce) {
  // Two sealers over one direction's keys and epoch would repeat every nonce.
  for (RecordCipher cipher : {RecordCipher::kAes128Gcm, RecordCipher::kChaCha20Poly1305,
                              RecordCipher::kAes128Ccm8, RecordCipher::kAes128CbcSha1}) {
    Bytes kb(KeyBlock::size(cipher), 9);
    KeyBlock block = *KeyBlock::from_bytes(cipher, kb);
    RecordSealer client(block, Direction::kClientWrite, 1);
    RecordSealer server(block, Direction::kServerWrite, 1);
    EXPECT_THROW(RecordSealer(block, Direction::kClientWrite, 1), std::invalid_argument);
    EXPECT_THROW(RecordSealer(block, Direction::kServerWrite, 2), std::invalid_argument);
    // Moving the block carries the claims; the moved-from block seals nothing.
    KeyBlock moved = std::move(block);
    EXPECT_THROW(RecordSealer(moved, Direction::kClientWrite, 1), std::invalid_argument);
    EXPECT_THROW(RecordSealer(block, Direction::kClientWrite, 1), std::invalid_argument);
    // What the claimed sealers produce opens with the block's keys.
    RecordOpener opener(cipher, moved.keys(Direction::kClientWrite), 1);
    const std::uint8_t pt[5] = {1, 2, 3, 4, 5};
    Bytes rec(client.sealed_size(sizeof(pt)));
    ASSERT_TRUE(client.seal(ContentType::kApplicationData, pt, rec));
    EXPECT_TRUE(opener.open(rec));
  }
}

TEST(RecordSealer, ARefusedSealConsumesNoSequence) {
  Bytes kb(KeyBlock::size(RecordCipher::kAes128Gcm), 1);
  KeyBlock block = *KeyBlock::from_bytes(RecordCipher::kAes128Gcm, kb);
  RecordSealer s(block, Direction::kClientWrite, 1);
  Bytes small(10);
  const std::uint8_t pt[4] = {1, 2, 3, 4};
  EXPECT_EQ(s.seal(ContentType::kApplicationData, pt, small).error(), Error::kBufferTooSmall);
  EXPECT_EQ(s.next_sequence(), 0u);  // refused before anything was written: nothing consumed
  Bytes rec(100);
  ASSERT_TRUE(s.seal(ContentType::kApplicationData, pt, rec));
  EXPECT_EQ(s.next_sequence(), 1u);
}

}  // namespace
}  // namespace wireseal::dtls
