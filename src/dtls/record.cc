#include "wireseal/dtls/record.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common/bytes.h"
#include "record_layout.h"

namespace wireseal::dtls {

ConnectionId::ConnectionId(std::span<const std::uint8_t> bytes) : len_(bytes.size()) {
  if (bytes.size() > kMaxCidLength) {
    throw std::invalid_argument("wireseal::dtls: connection ID longer than 255 bytes");
  }
  std::copy(bytes.begin(), bytes.end(), bytes_.begin());
}

Result<RecordView> parse_record(std::span<const std::uint8_t> bytes, std::size_t cid_len) noexcept {
  if (bytes.size() < kHeaderSize) {
    return Error::kMalformed;
  }
  RecordView r{};
  r.type = static_cast<ContentType>(bytes[0]);
  r.version = load_be16(&bytes[1]);
  r.epoch = load_be16(&bytes[3]);
  r.sequence = load_be48(&bytes[5]);
  std::size_t pos = 11;
  if (r.type == ContentType::kTls12Cid) {
    if (cid_len == 0 || bytes.size() < kHeaderSize + cid_len) {
      return Error::kMalformed;
    }
    r.cid = bytes.subspan(pos, cid_len);
    pos += cid_len;
  }
  const std::size_t length = load_be16(&bytes[pos]);
  pos += 2;
  if (length > kMaxFragmentLength || bytes.size() - pos < length) {
    return Error::kMalformed;
  }
  r.header = bytes.first(pos);
  r.fragment = bytes.subspan(pos, length);
  r.record = bytes.first(pos + length);
  return r;
}

Result<RecordView> DatagramReader::next() noexcept {
  if (rest_.empty()) {
    return Error::kBadState;
  }
  Result<RecordView> r = parse_record(rest_, cid_len_);
  if (!r) {
    rest_ = {};
    return r;
  }
  rest_ = rest_.subspan(r->record.size());
  return r;
}

void write_header(ContentType type, std::uint16_t version, std::uint16_t epoch,
                  std::uint64_t sequence, std::span<const std::uint8_t> cid, std::uint16_t length,
                  std::uint8_t* out) noexcept {
  // epoch (16 bits) and sequence (48 bits) form one big-endian 64-bit field.
  const std::uint64_t epoch_seq = detail::epoch_seq(epoch, sequence & kMaxSequence);
  if (cid.empty()) {
    detail::write_header_without_cid(type, version, epoch_seq, length, out);
    return;
  }
  out[0] = static_cast<std::uint8_t>(ContentType::kTls12Cid);
  store_be16(out + 1, version);
  store_be64(out + 3, epoch_seq);
  std::memcpy(out + 11, cid.data(), cid.size());
  store_be16(out + 11 + cid.size(), length);
}

}  // namespace wireseal::dtls
