#pragma once
// RecordChecker: what the interop test does with each epoch-1 record OpenSSL produced —
// open it with a RecordOpener, check the plaintext, seal it again with a RecordSealer at the
// same epoch and sequence and compare with OpenSSL's bytes. CBC IVs are random, so for CBC the
// recorded IV is fed back through a deterministic RandomSource, and a fresh-IV record is also
// sealed and re-opened.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::interop {

struct DirectionTally {
  std::size_t records = 0;          // epoch-1 records captured
  std::size_t opened = 0;           // RecordOpener authenticated and decrypted them
  std::size_t identical = 0;        // RecordSealer reproduced OpenSSL's bytes exactly
  std::size_t fresh_roundtrip = 0;  // CBC: sealed with a fresh IV, re-opened by a new opener
  std::size_t finished = 0;         // well-formed Finished messages among them
  // AEAD records whose explicit nonce is not epoch|sequence (OpenSSL's GCM uses a counter
  // from a random start; RFC 5288 allows any unique value). RecordSealer always uses the
  // sequence, so for these the test (a) re-encrypts with wireseal's record construction
  // (header writer, nonce and AAD builders, the crypto core's AEAD) and OpenSSL's explicit
  // nonce, which must reproduce OpenSSL's bytes exactly (counted in `identical`), and (b)
  // checks that RecordSealer's own record re-opens; the active test shows OpenSSL accepting
  // wireseal's records.
  std::size_t foreign_nonce = 0;
  bool cbc = false;
};

struct OpenedRecordInfo {
  bool from_client;
  std::uint64_t sequence;
  dtls::ContentType type;
  std::vector<std::uint8_t> plaintext;
  friend bool operator==(const OpenedRecordInfo&, const OpenedRecordInfo&) = default;
};

class RecordChecker {
 public:
  RecordChecker(dtls::RecordCipher cipher, const dtls::KeyBlock& block, bool encrypt_then_mac);

  // check runs every check on one captured epoch-1 record sent by the client or the server.
  void check(bool from_client, std::span<const std::uint8_t> record);

  const DirectionTally& tally(bool from_client) const { return tally_[from_client ? 0 : 1]; }
  // application_data is the concatenated application data one side sent.
  std::string application_data(bool from_client) const;
  const std::vector<OpenedRecordInfo>& opened() const { return opened_; }
  // failures describes every record that failed a check (direction, sequence, what).
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  dtls::RecordSealerOptions sealer_options() const;
  dtls::RecordOpenerOptions opener_options() const;
  void check_reseal_with_nonce(const OpenedRecordInfo& r, std::span<const std::uint8_t> record,
                               const std::string& name);
  void check_finished(const OpenedRecordInfo& r, const std::string& name);
  void check_reseal(const OpenedRecordInfo& r, std::span<const std::uint8_t> record,
                    const std::string& name);
  // check_fresh_roundtrip seals with a fresh IV and re-opens with a new opener; with
  // `expect_header` it also compares the header (and length) with OpenSSL's record.
  void check_fresh_roundtrip(const OpenedRecordInfo& r, const std::string& name,
                             std::span<const std::uint8_t> expect_header);

  dtls::RecordCipher cipher_;
  dtls::KeyBlock block_;
  bool etm_;
  bool cbc_;
  std::optional<dtls::RecordOpener> openers_[2];
  DirectionTally tally_[2];
  std::vector<OpenedRecordInfo> opened_;
  std::vector<std::string> failures_;
};

}  // namespace wireseal::interop
