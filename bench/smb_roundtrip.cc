// smb/roundtrip_<mode>: one READ round trip of an SMB 3.x session, both sides' work counted —
// the shape of go-smb2's benchmark (its real conn over an in-memory pipe against an in-process
// fake server answering READ with N bytes). The client engine builds, protects and frames a
// READ request and writes it into a MemoryPipe; the fake server unframes and opens it, "reads"
// N bytes of file data into its response buffer, protects and frames the response; the client
// unframes, opens and matches it to the request. No baseline row: go-smb2 is not run here, so
// these rows claim nothing about it; they measure wireseal's own per-request cost.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/io/pipe.h"
#include "wireseal/smb/client_engine.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::bench {

void register_smb_roundtrip();

namespace {

using smb::Cipher;
using smb::Protection;
using smb::SigningAlgorithm;

constexpr std::size_t kRoundTripSizes[] = {1024, 65536, 1 << 20};
constexpr std::size_t kReadRequestBody = 49;     // MS-SMB2 §2.2.19 (StructureSize 49)
constexpr std::size_t kReadResponseHeader = 16;  // §2.2.20 before the data

struct Mode {
  const char* op;
  Protection protection;
  Cipher cipher;
  SigningAlgorithm signing;
  smb::Dialect dialect;
};

constexpr Mode kModes[] = {
    {"roundtrip_plain", Protection::kNone, Cipher::kAes128Gcm, SigningAlgorithm::kAesGmac,
     smb::Dialect::kSmb311},
    {"roundtrip_signed-cmac", Protection::kSigned, Cipher::kAes128Gcm, SigningAlgorithm::kAesCmac,
     smb::Dialect::kSmb311},
    {"roundtrip_signed-gmac", Protection::kSigned, Cipher::kAes128Gcm, SigningAlgorithm::kAesGmac,
     smb::Dialect::kSmb311},
    {"roundtrip_encrypted-gcm128", Protection::kEncrypted, Cipher::kAes128Gcm,
     SigningAlgorithm::kAesGmac, smb::Dialect::kSmb311},
    {"roundtrip_encrypted-gcm256", Protection::kEncrypted, Cipher::kAes256Gcm,
     SigningAlgorithm::kAesGmac, smb::Dialect::kSmb311},
    {"roundtrip_encrypted-ccm128", Protection::kEncrypted, Cipher::kAes128Ccm,
     SigningAlgorithm::kAesGmac, smb::Dialect::kSmb311},
};

smb::SessionConfig session_config(const Mode& mode, const Bytes& key, const Bytes& preauth,
                                  std::size_t size) {
  smb::SessionConfig c;
  c.protection = mode.protection;
  c.cipher = mode.cipher;
  c.signing = mode.signing;
  c.dialect = mode.dialect;
  c.session_id = 0x100000000025;
  c.session_key = key;
  c.preauth_hash = preauth;
  c.max_message_len = smb::kHeaderSize + kReadResponseHeader + size;
  return c;
}

// RoundTrip is one client, one fake server and the pipe between them.
class RoundTrip {
 public:
  RoundTrip(const Mode& mode, std::size_t size)
      : key_(pattern(32, 7)),
        preauth_(pattern(64, 9)),
        file_(pattern(size, 3)),
        pipe_(2 * (size + 4096)),
        client_(session_config(mode, key_, preauth_, size)),
        server_(server_config(mode, size)),
        charge_(static_cast<std::uint16_t>(1 + (size - 1) / 65536)) {}

  bool operator()() noexcept {
    // Client: READ request for N bytes (MS-SMB2 §2.2.19), credit charge per §3.2.4.1.5.
    std::uint8_t* req = client_.request_body().data();
    std::memset(req, 0, kReadRequestBody);
    req[0] = static_cast<std::uint8_t>(kReadRequestBody);
    req[2] = 0x50;  // Padding: data offset in the response
    const auto n = static_cast<std::uint32_t>(file_.size());
    std::memcpy(req + 4, &n, 4);  // Length (little-endian host)
    const auto sent = client_.send_request(smb::Request{.command = smb::Command::kRead,
                                                        .tree_id = 1,
                                                        .credit_charge = charge_,
                                                        .credit_request = charge_},
                                           kReadRequestBody);
    if (!sent || pipe_.client().write(sent->frame) != sent->frame.size()) {
      return false;
    }
    // Fake server: receive, open, answer with the file data.
    move(pipe_.server(), server_);
    const auto in = server_.receive();
    if (!in || !in->has_value() || (*in)->header.command != smb::Command::kRead) {
      return false;
    }
    smb::Smb2Header h = (*in)->header;
    h.flags = smb::kFlagServerToRedir;
    h.credits = charge_;
    std::uint8_t* body = server_.outgoing_body().data();
    std::memset(body, 0, kReadResponseHeader);
    body[0] = 17;    // StructureSize
    body[2] = 0x50;  // DataOffset
    std::memcpy(body + 4, &n, 4);
    std::memcpy(body + kReadResponseHeader, file_.data(), file_.size());
    const auto frame = server_.send(h, kReadResponseHeader + file_.size());
    if (!frame || pipe_.server().write(*frame) != frame->size()) {
      return false;
    }
    // Client: receive, open, match.
    move(pipe_.client(), client_);
    const auto r = client_.poll();
    return r && r->has_value() && (*r)->message_id == sent->message_id &&
           (*r)->body.size() == kReadResponseHeader + file_.size();
  }

 private:
  smb::SessionConfig server_config(const Mode& mode, std::size_t size) const {
    smb::SessionConfig c = session_config(mode, key_, preauth_, size);
    c.role = smb::Role::kServer;
    return c;
  }
  template <class Sink>
  static void move(io::MemoryPipe::Endpoint& from, Sink& to) noexcept {
    while (from.readable() > 0) {
      const std::span<std::uint8_t> space = to.read_space();
      if (space.empty()) {
        return;
      }
      to.commit(from.read(space));
    }
  }

  Bytes key_;
  Bytes preauth_;
  Bytes file_;
  io::MemoryPipe pipe_;
  smb::ClientEngine client_;
  smb::SecureChannel server_;
  std::uint16_t charge_;
};

}  // namespace

void register_smb_roundtrip() {
  for (const Mode& mode : kModes) {
    register_op(
        "smb", mode.op, kWireseal,
        [&mode](std::size_t size) {
          // RoundTrip is large and holds a pipe with internal pointers: keep it on the heap,
          // built once outside the timed loop.
          auto rt = std::make_shared<RoundTrip>(mode, size);
          return timed([rt]() noexcept { return (*rt)(); }, size);
        },
        kRoundTripSizes);
  }
}

}  // namespace wireseal::bench
