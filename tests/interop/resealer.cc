#include "resealer.h"

#include <algorithm>
#include <utility>

#include "hello_scan.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"
#include "wireseal/io/keylog.h"

namespace wireseal::interop {

bool Resealer::key() {
  if (cipher_) {
    return true;
  }
  std::string error;
  const std::optional<HelloFacts> hello = scan_hellos(history_, &error);
  if (!hello) {
    failures_.push_back("epoch-1 record before the hellos: " + error);
    return false;
  }
  const std::optional<dtls::SuiteInfo> suite = dtls::suite_info(hello->cipher_suite);
  if (!suite) {
    failures_.push_back("suite not supported by wireseal");
    return false;
  }
  // The client logs its master secret before sending its first epoch-1 record, the server
  // before answering it: one of the two logs has the line by now.
  for (const std::string& path : keylogs_) {
    Result<io::KeyLog> log = io::KeyLog::load(path);
    const io::KeyLog::MasterSecret* secret = log ? log->find(hello->client_random) : nullptr;
    if (secret == nullptr) {
      continue;
    }
    Result<dtls::KeyBlock> block = dtls::KeyBlock::derive(
        suite->cipher, suite->prf_hash, *secret, hello->client_random, hello->server_random);
    if (!block) {
      break;
    }
    block_.emplace(std::move(*block));
    encrypt_then_mac_ =
        hello->encrypt_then_mac && dtls::info(suite->cipher).kind == dtls::CipherKind::kCbc;
    const dtls::RecordOpenerOptions options{.encrypt_then_mac = encrypt_then_mac_};
    openers_[0].emplace(suite->cipher, block_->keys(dtls::Direction::kClientWrite), 1, options);
    openers_[1].emplace(suite->cipher, block_->keys(dtls::Direction::kServerWrite), 1, options);
    cipher_ = suite->cipher;
    return true;
  }
  failures_.push_back("no usable key log line when the first epoch-1 record passed");
  return false;
}

std::optional<std::vector<std::uint8_t>> Resealer::reseal(bool from_client,
                                                          std::span<const std::uint8_t> record) {
  if (!key()) {
    return std::nullopt;
  }
  std::vector<std::uint8_t> buffer(record.begin(), record.end());
  const Result<dtls::OpenedRecord> opened = openers_[from_client ? 0 : 1]->open(buffer);
  if (!opened) {
    failures_.push_back(std::string("cannot open OpenSSL's record: ") + to_string(opened.error()));
    return std::nullopt;
  }
  const dtls::Direction dir =
      from_client ? dtls::Direction::kClientWrite : dtls::Direction::kServerWrite;
  dtls::RecordSealer sealer(*cipher_, block_->keys(dir), 1, {.encrypt_then_mac = encrypt_then_mac_},
                            opened->sequence);
  std::vector<std::uint8_t> out(sealer.sealed_size(opened->plaintext.size()));
  const Result<std::size_t> n = sealer.seal(opened->type, opened->plaintext, out);
  if (!n) {
    failures_.push_back(std::string("RecordSealer failed: ") + to_string(n.error()));
    return std::nullopt;
  }
  out.resize(*n);
  return out;
}

std::vector<std::uint8_t> Resealer::operator()(bool from_client,
                                               const std::vector<std::uint8_t>& datagram) {
  history_.push_back(RelayedDatagram{from_client, 0, datagram});
  std::vector<std::uint8_t> out;
  dtls::DatagramReader reader(datagram);
  while (!reader.done()) {
    const Result<dtls::RecordView> r = reader.next();
    if (!r) {
      failures_.push_back("unparseable record from OpenSSL");
      return datagram;
    }
    std::optional<std::vector<std::uint8_t>> replacement;
    if (r->epoch == 1) {
      replacement = reseal(from_client, r->record);
    }
    if (replacement) {
      ++replaced_[from_client ? 0 : 1];
      if (!std::equal(replacement->begin(), replacement->end(), r->record.begin(),
                      r->record.end())) {
        ++differing_[from_client ? 0 : 1];
      }
      out.insert(out.end(), replacement->begin(), replacement->end());
    } else {
      out.insert(out.end(), r->record.begin(), r->record.end());
    }
  }
  return out;
}

}  // namespace wireseal::interop
