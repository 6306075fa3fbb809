// Fuzz target: the server's stateless cookie check (HelloVerifier), run on every datagram
// from an address without an association: it reads a ClientHello whole or in fragments over
// several records. Input: the datagram, whole. It must never crash or read out of bounds, and
// a reply is one whole HelloVerifyRequest in one epoch-0 record, within kMaxReplySize.
#include <array>

#include "fuzz_target.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/hello_verifier.h"
#include "wireseal/dtls/record.h"

namespace {

using namespace wireseal;

constexpr std::array<std::uint8_t, 6> kAddress{192, 0, 2, 1, 0x13, 0x88};

std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> fixed_secret() {
  std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
  secret.fill(0x5c);
  return secret;
}

const dtls::HelloVerifier& verifier() {
  static const std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret = fixed_secret();
  static const dtls::HelloVerifier v(secret);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> datagram(data, size);
  std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
  const dtls::HelloVerifier::Outcome o = verifier().check(kAddress, datagram, reply);
  if (o.verdict != dtls::HelloVerifier::Verdict::kReply) {
    return 0;
  }
  fuzz::require(o.size <= reply.size(), "a reply over kMaxReplySize");
  const Result<dtls::RecordView> record = dtls::parse_record(std::span(reply).first(o.size));
  fuzz::require(record && record->type == dtls::ContentType::kHandshake && record->epoch == 0 &&
                    record->record.size() == o.size,
                "the reply is not one epoch-0 handshake record");
  dtls::HandshakeReader reader(record->fragment);
  const Result<dtls::HandshakeFragment> request = reader.next();
  fuzz::require(
      request && request->complete() && reader.done() &&
          request->msg_type == static_cast<std::uint8_t>(dtls::HandshakeType::kHelloVerifyRequest),
      "the reply is not one whole HelloVerifyRequest");
  return 0;
}
