// SPNEGO (RFC 4178) tokens for NTLMSSP: DER encoding of NegTokenInit / NegTokenResp and
// bounds-checked parsing of what servers send back.
#include "auth/spnego.h"

#include <algorithm>

#include "common/byte_cursor.h"

namespace wireseal::smb::spnego {
namespace {

// DER identifier octets used here (X.690 §8.1.2): universal primitives, SEQUENCE, and the
// constructed context-specific [n] and [APPLICATION 0] of RFC 4178 / RFC 2743.
constexpr std::uint8_t kTagEnumerated = 0x0a;
constexpr std::uint8_t kTagOctetString = 0x04;
constexpr std::uint8_t kTagOid = 0x06;
constexpr std::uint8_t kTagSequence = 0x30;
constexpr std::uint8_t kTagApplication0 = 0x60;
constexpr std::uint8_t kTagContext0 = 0xa0;
constexpr std::uint8_t kTagContext1 = 0xa1;
constexpr std::uint8_t kTagContext2 = 0xa2;
constexpr std::uint8_t kTagContext3 = 0xa3;
constexpr std::uint8_t kHighTagNumber = 0x1f;
constexpr std::uint8_t kLongLength = 0x80;
// Four length octets allow 4 GiB, far past any token; more would only be an attack on size_t.
constexpr std::size_t kMaxLengthOctets = 4;

// ---- encoding ----

void append_length(std::vector<std::uint8_t>& out, std::size_t length) {
  if (length < kLongLength) {
    out.push_back(static_cast<std::uint8_t>(length));
    return;
  }
  std::size_t octets = 0;
  for (std::size_t rest = length; rest != 0; rest >>= 8) {
    ++octets;
  }
  out.push_back(static_cast<std::uint8_t>(kLongLength | octets));
  for (std::size_t i = octets; i != 0; --i) {
    out.push_back(static_cast<std::uint8_t>(length >> (8 * (i - 1))));
  }
}

void append_tlv(std::vector<std::uint8_t>& out, std::uint8_t tag,
                std::span<const std::uint8_t> contents) {
  out.push_back(tag);
  append_length(out, contents.size());
  out.insert(out.end(), contents.begin(), contents.end());
}

std::vector<std::uint8_t> tlv(std::uint8_t tag, std::span<const std::uint8_t> contents) {
  std::vector<std::uint8_t> out;
  out.reserve(contents.size() + 6);
  append_tlv(out, tag, contents);
  return out;
}

// ---- parsing ----

struct Tlv {
  std::uint8_t tag = 0;
  std::span<const std::uint8_t> contents;
  std::span<const std::uint8_t> encoding;  // identifier, length and contents
};

// read_tlv reads one definite-length TLV with a single-byte tag. On malformed input it fails
// `r` and returns false.
bool read_tlv(ByteReader& r, Tlv& out) {
  const std::span<const std::uint8_t> start = r.rest();
  const std::size_t start_offset = r.offset();
  const std::uint8_t tag = r.u8();
  if ((tag & kHighTagNumber) == kHighTagNumber) {
    r.fail();
    return false;
  }
  std::size_t length = r.u8();
  if ((length & kLongLength) != 0) {
    const std::size_t octets = length & ~std::size_t{kLongLength};
    if (octets == 0 || octets > kMaxLengthOctets) {  // indefinite form is not DER
      r.fail();
      return false;
    }
    length = 0;
    for (std::size_t i = 0; i < octets; ++i) {
      length = (length << 8) | std::size_t{r.u8()};
    }
  }
  out.contents = r.bytes(length);
  if (!r.ok()) {
    return false;
  }
  out.tag = tag;
  out.encoding = start.first(r.offset() - start_offset);
  return true;
}

// read_expected reads one TLV that must carry `tag`.
std::optional<Tlv> read_expected(ByteReader& r, std::uint8_t tag) {
  Tlv t;
  if (!read_tlv(r, t) || t.tag != tag) {
    r.fail();
    return std::nullopt;
  }
  return t;
}

// only_child reads the contents of an explicitly tagged field: exactly one TLV with `tag`.
std::optional<Tlv> only_child(std::span<const std::uint8_t> contents, std::uint8_t tag) {
  ByteReader r(contents);
  std::optional<Tlv> child = read_expected(r, tag);
  if (!child || !r.expect_end()) {
    return std::nullopt;
  }
  return child;
}

bool is_context_tag(std::uint8_t tag) noexcept { return (tag & 0xe0) == kTagContext0; }

// SequenceFields walks the elements of a NegTokenInit/NegTokenResp SEQUENCE: context-tagged
// fields in strictly increasing tag order (DER), so a field cannot appear twice.
class SequenceFields {
 public:
  explicit SequenceFields(std::span<const std::uint8_t> contents) : reader_(contents) {}

  // next reads the next element; false at the end or on malformed input (then !ok()).
  bool next(Tlv& field) {
    if (reader_.empty()) {
      return false;
    }
    if (!read_tlv(reader_, field) || !is_context_tag(field.tag) ||
        (last_tag_ >= 0 && field.tag <= last_tag_)) {
      reader_.fail();
      return false;
    }
    last_tag_ = field.tag;
    return true;
  }
  bool ok() const noexcept { return reader_.ok(); }

 private:
  ByteReader reader_;
  int last_tag_ = -1;
};

// parse_mech_type_list reads a MechTypeList (SEQUENCE OF OID) into `fields`.
bool parse_mech_type_list(std::span<const std::uint8_t> contents, NegTokenInitFields& fields) {
  const std::optional<Tlv> list = only_child(contents, kTagSequence);
  if (!list) {
    return false;
  }
  fields.mech_type_list = list->encoding;
  ByteReader r(list->contents);
  while (!r.empty()) {
    const std::optional<Tlv> oid = read_expected(r, kTagOid);
    if (!oid || oid->contents.empty()) {
      return false;
    }
    fields.mech_types.push_back(oid->contents);
  }
  return r.ok();
}

// unwrap_negotiation_token reads the GSS InitialContextToken framing and returns the
// NegotiationToken inside it (its [0] negTokenInit TLV), or the token itself when bare.
std::optional<Tlv> unwrap_negotiation_token(std::span<const std::uint8_t> token) {
  ByteReader outer(token);
  Tlv t;
  if (!read_tlv(outer, t) || !outer.expect_end()) {
    return std::nullopt;
  }
  if (t.tag == kTagContext0) {
    return t;
  }
  if (t.tag != kTagApplication0) {
    return std::nullopt;
  }
  ByteReader r(t.contents);
  const std::optional<Tlv> mech = read_expected(r, kTagOid);
  if (!mech || !std::ranges::equal(mech->contents, kSpnegoOid)) {
    return std::nullopt;
  }
  std::optional<Tlv> inner = read_expected(r, kTagContext0);
  if (!inner || !r.expect_end()) {
    return std::nullopt;
  }
  return inner;
}

}  // namespace

std::vector<std::uint8_t> ntlmssp_mech_type_list() {
  return tlv(kTagSequence, tlv(kTagOid, kNtlmsspOid));
}

std::vector<std::uint8_t> encode_initial_token(std::span<const std::uint8_t> mech_type_list,
                                               std::span<const std::uint8_t> mech_token) {
  std::vector<std::uint8_t> fields;
  append_tlv(fields, kTagContext0, mech_type_list);
  append_tlv(fields, kTagContext2, tlv(kTagOctetString, mech_token));
  std::vector<std::uint8_t> body = tlv(kTagOid, kSpnegoOid);
  append_tlv(body, kTagContext0, tlv(kTagSequence, fields));
  return tlv(kTagApplication0, body);
}

std::vector<std::uint8_t> encode_neg_token_resp(const NegTokenRespFields& fields) {
  std::vector<std::uint8_t> seq;
  if (fields.neg_state) {
    const std::uint8_t state[] = {static_cast<std::uint8_t>(*fields.neg_state)};
    append_tlv(seq, kTagContext0, tlv(kTagEnumerated, state));
  }
  if (fields.supported_mech) {
    append_tlv(seq, kTagContext1, tlv(kTagOid, *fields.supported_mech));
  }
  if (fields.response_token) {
    append_tlv(seq, kTagContext2, tlv(kTagOctetString, *fields.response_token));
  }
  if (fields.mech_list_mic) {
    append_tlv(seq, kTagContext3, tlv(kTagOctetString, *fields.mech_list_mic));
  }
  return tlv(kTagContext1, tlv(kTagSequence, seq));
}

Result<NegTokenRespFields> parse_neg_token_resp(std::span<const std::uint8_t> token) {
  ByteReader outer(token);
  const std::optional<Tlv> resp = read_expected(outer, kTagContext1);
  if (!resp || !outer.expect_end()) {
    return Error::kMalformed;
  }
  const std::optional<Tlv> seq = only_child(resp->contents, kTagSequence);
  if (!seq) {
    return Error::kMalformed;
  }
  NegTokenRespFields fields;
  SequenceFields walk(seq->contents);
  Tlv field;
  while (walk.next(field)) {
    switch (field.tag) {
      case kTagContext0: {
        const std::optional<Tlv> e = only_child(field.contents, kTagEnumerated);
        if (!e || e->contents.size() != 1 ||
            e->contents[0] > static_cast<std::uint8_t>(NegState::kRequestMic)) {
          return Error::kMalformed;
        }
        fields.neg_state = static_cast<NegState>(e->contents[0]);
        break;
      }
      case kTagContext1: {
        const std::optional<Tlv> oid = only_child(field.contents, kTagOid);
        if (!oid) {
          return Error::kMalformed;
        }
        fields.supported_mech = oid->contents;
        break;
      }
      case kTagContext2:
      case kTagContext3: {
        const std::optional<Tlv> octets = only_child(field.contents, kTagOctetString);
        if (!octets) {
          return Error::kMalformed;
        }
        (field.tag == kTagContext2 ? fields.response_token : fields.mech_list_mic) =
            octets->contents;
        break;
      }
      default:
        break;  // an extension field: skipped unread
    }
  }
  if (!walk.ok()) {
    return Error::kMalformed;
  }
  return fields;
}

Result<NegTokenInitFields> parse_neg_token_init(std::span<const std::uint8_t> token) {
  const std::optional<Tlv> negotiation = unwrap_negotiation_token(token);
  if (!negotiation) {
    return Error::kMalformed;
  }
  const std::optional<Tlv> seq = only_child(negotiation->contents, kTagSequence);
  if (!seq) {
    return Error::kMalformed;
  }
  NegTokenInitFields fields;
  bool have_mech_types = false;
  SequenceFields walk(seq->contents);
  Tlv field;
  while (walk.next(field)) {
    if (field.tag == kTagContext0) {
      if (!parse_mech_type_list(field.contents, fields)) {
        return Error::kMalformed;
      }
      have_mech_types = true;
    } else if (field.tag == kTagContext2) {
      const std::optional<Tlv> octets = only_child(field.contents, kTagOctetString);
      if (!octets) {
        return Error::kMalformed;
      }
      fields.mech_token = octets->contents;
    }
    // [1] reqFlags, [3] negHints (NegTokenInit2) or mechListMIC, [4] mechListMIC: skipped.
  }
  if (!walk.ok() || !have_mech_types) {
    return Error::kMalformed;
  }
  return fields;
}

}  // namespace wireseal::smb::spnego
