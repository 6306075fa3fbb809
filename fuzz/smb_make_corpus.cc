// Writes the seed corpora of the SMB targets:
//  - smb_transform_open: transformed messages sealed with the target's fixed key (per cipher:
//    plain message, compound chain, a long message, one for another session);
//  - smb_framing: direct-TCP byte streams of several frames (plain, compound, transformed)
//    read in several chunk sizes, and streams with a bad or oversized prefix;
//  - smb_signing_verify: messages and chains signed with the fixed key, and unsigned ones;
//  - smb_transform_roundtrip, smb_signing_roundtrip, smb_secure_channel, smb_client_engine:
//    scripts (fuzz_input.h, smb_fuzz_setup.h) over every cipher, signing algorithm, dialect
//    and protection;
//  - smb_responses: a well-formed response body per command parser (after the target's own
//    header, and as a whole message), FileDirectoryInformation entries and UTF-16 strings;
//  - smb_auth_tokens: a server's NegTokenResp carrying a CHALLENGE_MESSAGE with target info
//    (with and without MsvAvTimestamp, key exchange), for each credential kind, followed by
//    final tokens: accept-completed with the mechListMIC the target's client expects, none,
//    reject, accept-completed alone; and NegTokenInit tokens.
// Usage: fuzz_smb_make_corpus <fuzz/corpus directory>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bytes.h"
#include "corpus_writer.h"
#include "smb/auth/spnego.h"
#include "smb_fuzz_keys.h"
#include "smb_fuzz_setup.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/ntlm.h"
#include "wireseal/smb/signing.h"

namespace {

using namespace wireseal;
namespace spnego = wireseal::smb::spnego;
using Bytes = std::vector<std::uint8_t>;

void fixed_fill(void* /*ctx*/, std::span<std::uint8_t> out) noexcept {
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(0x5a + i);
  }
}

Bytes chain_of(std::size_t count, std::size_t body,
               std::uint64_t session_id = fuzz::kSmbSessionId) {
  Bytes buf(count * (smb::kHeaderSize + body + 8));
  smb::ChainBuilder b(buf);
  for (std::size_t i = 0; i < count; ++i) {
    smb::Smb2Header h;
    h.command = smb::Command::kRead;
    h.message_id = 10 + i;
    h.session_id = session_id;
    const auto span = b.append(h, body);
    if (span) {
      std::fill(span->begin(), span->end(), static_cast<std::uint8_t>('a' + i));
    }
  }
  buf.resize(b.size());
  return buf;
}

Bytes seal(smb::TransformSealer& sealer, const Bytes& message) {
  Bytes sealed(smb::transformed_size(message.size()));
  if (!sealer.seal(message, sealed)) {
    std::fprintf(stderr, "transform seal failed\n");
    std::exit(1);
  }
  return sealed;
}

void append_frame(Bytes& stream, const Bytes& message) {
  Bytes prefix(smb::kFramePrefixSize);
  static_cast<void>(smb::encode_frame_prefix(message.size(), prefix));
  stream.insert(stream.end(), prefix.begin(), prefix.end());
  stream.insert(stream.end(), message.begin(), message.end());
}

void transform_and_framing_seeds(const std::filesystem::path& root) {
  const auto key = fuzz::smb_key();
  Bytes stream{3};
  for (std::size_t sel = 0; sel < 4; ++sel) {
    const smb::Cipher c = fuzz::kSmbCiphers[sel];
    const auto k = std::span(key).first(smb::info(c).key_len);
    smb::TransformSealer sealer(c, k, fuzz::kSmbSessionId, {.random = {fixed_fill, nullptr}});
    smb::TransformSealer other(c, k, fuzz::kSmbSessionId + 1, {.random = {fixed_fill, nullptr}});
    const std::string prefix = "seed-" + std::to_string(sel) + "-";
    for (const std::size_t count : {1u, 3u}) {
      const Bytes message = chain_of(count, 13);
      const Bytes sealed = seal(sealer, message);
      Bytes input{static_cast<std::uint8_t>(sel)};
      input.insert(input.end(), sealed.begin(), sealed.end());
      fuzz::write_seed(root, "smb_transform_open", prefix + std::to_string(count), input);
      append_frame(stream, sealed);
      append_frame(stream, message);
    }
    Bytes longer{static_cast<std::uint8_t>(sel)};
    const Bytes long_sealed = seal(sealer, chain_of(1, 2000));
    longer.insert(longer.end(), long_sealed.begin(), long_sealed.end());
    fuzz::write_seed(root, "smb_transform_open", prefix + "long", longer);
    Bytes foreign{static_cast<std::uint8_t>(sel)};
    const Bytes foreign_sealed = seal(other, chain_of(2, 5, fuzz::kSmbSessionId + 1));
    foreign.insert(foreign.end(), foreign_sealed.begin(), foreign_sealed.end());
    fuzz::write_seed(root, "smb_transform_open", prefix + "other-session", foreign);
  }
  fuzz::write_seed(root, "smb_framing", "seed-stream", stream);
  for (const int selector : {0, 1, 37, 200}) {  // reads of 7 * selector + 1 bytes
    stream[0] = static_cast<std::uint8_t>(selector);
    fuzz::write_seed(root, "smb_framing", "seed-stream-chunk-" + std::to_string(selector), stream);
  }
  Bytes bad = {5};
  append_frame(bad, chain_of(1, 4));
  bad.insert(bad.end(), {1, 0, 0, 64});  // a prefix whose first byte is not zero
  fuzz::write_seed(root, "smb_framing", "seed-bad-prefix", bad);
  Bytes oversized = {9};
  oversized.insert(oversized.end(), {0, 0, 0x20, 0});  // 8192 bytes: over the 4096 limit
  fuzz::write_seed(root, "smb_framing", "seed-oversized", oversized);
}

void signing_verify_seeds(const std::filesystem::path& root) {
  const auto key = fuzz::smb_key();
  for (std::size_t alg = 0; alg < 3; ++alg) {
    smb::Signer signer(static_cast<smb::SigningAlgorithm>(alg), std::span(key).first(16));
    const std::string prefix = "seed-" + std::to_string(alg) + "-";
    Bytes single = chain_of(1, 24);
    static_cast<void>(signer.sign(single));
    Bytes chain = chain_of(3, 11);
    smb::ChainCursor cursor(chain);
    while (!cursor.done()) {
      const auto member = cursor.next();
      if (!member) {
        break;
      }
      static_cast<void>(signer.sign(*member));
    }
    for (const auto& [name, message] : {std::pair<std::string, Bytes>{"signed", single},
                                        {"chain", chain},
                                        {"unsigned", chain_of(1, 7)}}) {
      Bytes input{static_cast<std::uint8_t>(alg)};
      input.insert(input.end(), message.begin(), message.end());
      fuzz::write_seed(root, "smb_signing_verify", prefix + name, input);
    }
  }
}

Bytes transform_roundtrip_script(std::size_t cipher, bool in_place, bool near_exhaustion) {
  fuzz::FuzzScript s;
  s.below(4, cipher).bytes(Bytes(32, 0x61)).u64(fuzz::kSmbSessionId);
  s.flag(near_exhaustion);
  if (near_exhaustion) {
    s.u64(std::numeric_limits<std::uint64_t>::max() - 1);
  }
  s.u64(0x5eed).u8(0);  // nonce-salt seed, backend
  for (const std::size_t n : {1u, 64u, 1000u, 0u, 3u}) {
    s.u8(in_place ? 1 : 0).below(8192, n).bytes(Bytes(n, 'm'));
  }
  return s.data();
}

// A signing_roundtrip message: an encoded header and a body, then the mutation.
void signing_message(fuzz::FuzzScript& s, std::size_t body, std::size_t flip_at) {
  smb::Smb2Header h;
  h.command = smb::Command::kWrite;
  h.message_id = 77;
  h.flags = smb::kFlagServerToRedir;
  Bytes m(smb::kHeaderSize + body, 'w');
  static_cast<void>(smb::encode_header(h, m));
  s.u8(0).below(4096, body).bytes(m);
  s.below(m.size(), flip_at).u8(0x04);
}

Bytes signing_roundtrip_script(std::size_t alg, std::size_t key_len) {
  fuzz::FuzzScript s;
  s.below(3, alg);
  if (alg == 0) {
    s.below(65, key_len);
  }
  s.bytes(Bytes(alg == 0 ? key_len : 16, 0x6b)).u8(0);  // key, backend
  signing_message(s, 0, 16);
  signing_message(s, 1, 49);
  signing_message(s, 300, 400);
  s.u8(2).below(smb::kHeaderSize, 10).bytes(Bytes(10, 'x'));  // shorter than a header
  return s.data();
}

// Channel scripts: messages (header, body mode, body), a chain, and deliveries.
void channel_header(fuzz::FuzzScript& s, std::size_t command, std::uint32_t flags,
                    std::uint64_t message_id, std::uint32_t status = 0) {
  fuzz::write_smb_header(s, command, flags, message_id, status);
}

Bytes secure_channel_script(const fuzz::ChannelSetupScript& setup, bool client) {
  fuzz::FuzzScript s;
  fuzz::write_channel_setup(s, setup);
  s.flag(client);
  const std::size_t limit = setup.max_body;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t n = i * 37;
    s.u8(0);
    channel_header(s, 8 + i, smb::kFlagServerToRedir, 20 + i);
    s.below(3, i).below(limit + 2, n).bytes(Bytes(n, 'b'));
  }
  s.u8(1).below(4, 2);  // a chain of three
  for (std::size_t i = 0; i < 3; ++i) {
    channel_header(s, 5, 0, 30 + i);
    s.below(512, 3 + i).bytes(Bytes(3 + i, 'c'));
  }
  s.u8(4).below(4096, 9);     // deliver 10 bytes
  s.u8(5).below(4096, 4095);  // then 4096
  return s.data();
}

Bytes client_engine_script(const fuzz::ChannelSetupScript& setup) {
  fuzz::FuzzScript s;
  fuzz::write_channel_setup(s, setup);
  s.flag(false).u16(64).below(16, 7);  // first MessageId 2, 64 credits, 8 in flight
  const std::size_t limit = setup.max_body;
  for (std::size_t i = 0; i < 3; ++i) {  // requests 2, 3 (charge 1) and 4 (charge 2)
    s.u8(0).below(fuzz::kSmbCommandCount, 8).below(5, i == 2 ? 2 : 1).u16(4).u32(1).u32(0);
    s.below(limit + 2, 20).bytes(Bytes(20, 'q'));
  }
  const auto respond = [&s](std::uint32_t flags, std::uint64_t id, std::uint32_t status) {
    s.u8(1);
    channel_header(s, 8, flags, id, status);
    s.u8(0).below(257, 12).bytes(Bytes(12, 'r'));
  };
  respond(smb::kFlagServerToRedir | smb::kFlagAsyncCommand, 3, smb::kStatusPending);  // interim
  respond(smb::kFlagServerToRedir, 3, 0);
  respond(smb::kFlagServerToRedir, 2, 0);
  respond(smb::kFlagServerToRedir, 2, 0);  // a duplicate: kReplay
  respond(0, 4, 0);                        // request-shaped: kMalformed
  respond(smb::kFlagServerToRedir, 4, 0);
  s.u8(4).below(4096, 30);
  s.u8(4).below(4096, 4095);
  return s.data();
}

void script_seeds(const std::filesystem::path& root) {
  for (std::size_t cipher = 0; cipher < 4; ++cipher) {
    for (const bool in_place : {false, true}) {
      const std::string name = "seed-" + std::to_string(cipher) + (in_place ? "-in-place" : "");
      fuzz::write_seed(root, "smb_transform_roundtrip", name,
                       transform_roundtrip_script(cipher, in_place, false));
    }
    fuzz::write_seed(root, "smb_transform_roundtrip", "seed-" + std::to_string(cipher) + "-exhaust",
                     transform_roundtrip_script(cipher, false, true));
  }
  for (std::size_t alg = 0; alg < 3; ++alg) {
    for (const std::size_t key_len : {0u, 16u, 64u}) {
      if (alg != 0 && key_len != 16) {
        continue;
      }
      fuzz::write_seed(root, "smb_signing_roundtrip",
                       "seed-" + std::to_string(alg) + "-" + std::to_string(key_len),
                       signing_roundtrip_script(alg, key_len));
    }
  }
  // protection x dialect (x cipher / signing for 3.1.1)
  std::vector<std::pair<std::string, fuzz::ChannelSetupScript>> setups;
  const char* protections[] = {"none", "signed", "encrypted"};
  for (std::size_t p = 0; p < 3; ++p) {
    for (std::size_t d = p == 2 ? 2 : 0; d < 5; ++d) {
      fuzz::ChannelSetupScript s;
      s.protection = p;
      s.dialect = d;
      setups.push_back({std::string(protections[p]) + "-" + std::to_string(d), s});
    }
  }
  for (std::size_t c = 1; c < 4; ++c) {
    fuzz::ChannelSetupScript s;
    s.protection = 2;
    s.cipher = c;
    setups.push_back({"encrypted-4-cipher-" + std::to_string(c), s});
  }
  fuzz::ChannelSetupScript gmac;
  gmac.protection = 1;
  gmac.gmac = true;
  setups.push_back({"signed-4-gmac", gmac});
  for (const auto& [label, setup] : setups) {
    fuzz::write_seed(root, "smb_secure_channel", "seed-" + label + "-client",
                     secure_channel_script(setup, true));
    fuzz::write_seed(root, "smb_secure_channel", "seed-" + label + "-server",
                     secure_channel_script(setup, false));
    fuzz::write_seed(root, "smb_client_engine", "seed-" + label, client_engine_script(setup));
  }
}

// ---- smb_responses: selector byte (the target's table), then a body or a whole message ----

struct Body {
  Bytes b;
  explicit Body(std::size_t n) : b(n) {}
  Body& u8(std::size_t at, std::uint8_t v) {
    b[at] = v;
    return *this;
  }
  Body& u16(std::size_t at, std::uint16_t v) {
    store_le16(b.data() + at, v);
    return *this;
  }
  Body& u32(std::size_t at, std::uint32_t v) {
    store_le32(b.data() + at, v);
    return *this;
  }
  Body& u64(std::size_t at, std::uint64_t v) {
    store_le64(b.data() + at, v);
    return *this;
  }
  Body& append(std::span<const std::uint8_t> more) {
    b.insert(b.end(), more.begin(), more.end());
    return *this;
  }
  Body& pad8() {  // to a multiple of 8 from the message start (the body starts at 64)
    b.resize((b.size() + 7) / 8 * 8);
    return *this;
  }
};

Bytes utf16le(std::string_view ascii) {
  Bytes out;
  for (const char c : ascii) {
    out.push_back(static_cast<std::uint8_t>(c));
    out.push_back(0);
  }
  return out;
}

// FileDirectoryInformation entries, 8-byte aligned, the last with NextEntryOffset 0.
Bytes directory_entries(std::initializer_list<std::string_view> names) {
  Bytes out;
  std::size_t i = 0;
  for (const std::string_view name : names) {
    const Bytes n = utf16le(name);
    Body e(64);
    e.u32(4, static_cast<std::uint32_t>(i)).u64(8, 0x01d9000000000000 + i).u64(40, 100 * i);
    e.u32(56, i < 2 ? 0x10 : 0x80).u32(60, static_cast<std::uint32_t>(n.size())).append(n);
    if (++i < names.size()) {
      e.pad8();
      e.u32(0, static_cast<std::uint32_t>(e.b.size()));
    }
    out.insert(out.end(), e.b.begin(), e.b.end());
  }
  return out;
}

Bytes challenge_token(std::uint32_t flags, bool timestamp);

// A response body and the target's selector (mode) of its parser.
struct Response {
  std::string name;
  std::uint8_t mode;
  Bytes body;
};

std::vector<Response> response_bodies() {
  std::vector<Response> out;
  const Bytes sec = spnego::encode_initial_token(spnego::ntlmssp_mech_type_list(), {});
  for (const std::uint16_t dialect : {std::uint16_t{0x0302}, std::uint16_t{0x0311}}) {
    Body n(64);
    n.u16(0, 65).u16(2, 1).u16(4, dialect).u32(24, 0x44).u32(28, 65536).u32(32, 65536);
    n.u32(36, 65536).u16(56, 128).u16(58, static_cast<std::uint16_t>(sec.size())).append(sec);
    if (dialect == 0x0311) {
      n.pad8().u16(6, 3).u32(60, static_cast<std::uint32_t>(64 + n.b.size()));
      const std::size_t preauth = n.b.size();
      n.append(Bytes(8 + 38)).u16(preauth, 1).u16(preauth + 2, 38).u16(preauth + 8, 1);
      n.u16(preauth + 10, 32).u16(preauth + 12, 1).pad8();
      const std::size_t cipher = n.b.size();
      n.append(Bytes(12)).u16(cipher, 2).u16(cipher + 2, 4).u16(cipher + 8, 1).u16(cipher + 10, 2);
      n.pad8();
      const std::size_t signing = n.b.size();
      n.append(Bytes(12)).u16(signing, 8).u16(signing + 2, 4).u16(signing + 8, 1);
      n.u16(signing + 10, 1);
    }
    out.push_back({dialect == 0x0311 ? "negotiate-311" : "negotiate-302", 0, n.b});
  }
  const Bytes token = challenge_token(0xe28a8235, true);
  Body ss(8);
  ss.u16(0, 9).u16(4, 72).u16(6, static_cast<std::uint16_t>(token.size())).append(token);
  out.push_back({"session-setup", 1, ss.b});
  out.push_back({"empty", 2, Body(4).u16(0, 4).b});
  out.push_back(
      {"tree-connect", 3, Body(16).u16(0, 16).u8(2, 1).u32(4, 0x8000).u32(12, 0x001f01ff).b});
  Body create(88);
  create.u16(0, 89).u32(4, 1).u64(8, 0x01d9a2b3c4d5e6f7).u64(40, 4096).u64(48, 1234);
  create.u32(56, 0x80).u64(64, 0x1122334455667788).u64(72, 0x99aabbccddeeff00);
  out.push_back({"create", 4, create.b});
  out.push_back({"close", 5, Body(60).u16(0, 60).b});
  out.push_back({"flush", 6, Body(4).u16(0, 4).b});
  const std::string_view data = "read data";
  out.push_back({"read", 7,
                 Body(16)
                     .u16(0, 17)
                     .u8(2, 80)
                     .u32(4, static_cast<std::uint32_t>(data.size()))
                     .append(Bytes(data.begin(), data.end()))
                     .b});
  out.push_back({"write", 8, Body(16).u16(0, 17).u32(4, 4096).b});
  const Bytes entries = directory_entries({".", "..", "file.txt"});
  out.push_back({"query-directory", 9,
                 Body(8)
                     .u16(0, 9)
                     .u16(2, 72)
                     .u32(4, static_cast<std::uint32_t>(entries.size()))
                     .append(entries)
                     .b});
  Body info(8 + 56);
  info.u16(0, 9).u16(2, 72).u32(4, 56).u64(8, 0x01d9a2b3c4d5e6f7).u64(8 + 40, 77).u32(8 + 48, 0x20);
  out.push_back({"query-info", 10, info.b});
  out.push_back({"set-info", 11, Body(2).u16(0, 2).b});
  Body ioctl(48 + 24);
  ioctl.u16(0, 49).u32(4, 0x00140204).u64(8, ~std::uint64_t{0}).u64(16, ~std::uint64_t{0});
  ioctl.u32(24, 112).u32(32, 112).u32(36, 24).u32(48, 0x44).u16(48 + 20, 1).u16(48 + 22, 0x0302);
  out.push_back({"validate-negotiate", 12, ioctl.b});
  return out;
}

// The command of each parser's header, in the target's order (smb_responses.cc).
constexpr smb::Command kResponseCommands[] = {
    smb::Command::kNegotiate,      smb::Command::kSessionSetup, smb::Command::kEcho,
    smb::Command::kTreeConnect,    smb::Command::kCreate,       smb::Command::kClose,
    smb::Command::kFlush,          smb::Command::kRead,         smb::Command::kWrite,
    smb::Command::kQueryDirectory, smb::Command::kQueryInfo,    smb::Command::kSetInfo,
    smb::Command::kIoctl};

void response_seeds(const std::filesystem::path& root) {
  for (const auto& [name, mode, body] : response_bodies()) {
    Bytes input{mode};
    input.insert(input.end(), body.begin(), body.end());
    fuzz::write_seed(root, "smb_responses", "seed-" + name, input);
    // The whole message: a header of the parser's command, as the target would write it.
    Bytes whole(1 + smb::kHeaderSize);
    whole[0] = static_cast<std::uint8_t>(mode | 0x80);
    smb::Smb2Header h;
    h.command = kResponseCommands[mode];
    h.flags = smb::kFlagServerToRedir;
    h.message_id = 7;
    static_cast<void>(smb::encode_header(h, std::span(whole).subspan(1)));
    whole.insert(whole.end(), body.begin(), body.end());
    fuzz::write_seed(root, "smb_responses", "seed-" + name + "-whole", whole);
  }
  Bytes raw{13};
  const Bytes entries = directory_entries({"a", "bb", "\xc3\xa9", "last"});
  raw.insert(raw.end(), entries.begin(), entries.end());
  fuzz::write_seed(root, "smb_responses", "seed-directory-entries", raw);
  // UTF-16: ASCII, U+00E9, U+20AC, a surrogate pair (U+1F600), unpaired high and low.
  Bytes utf16{14,   'h',  0,    0xe9, 0,   0xac, 0x20, 0x3d, 0xd8,
              0x00, 0xde, 0x00, 0xd8, 'x', 0,    0x00, 0xdc};
  fuzz::write_seed(root, "smb_responses", "seed-utf16", utf16);
  // As UTF-8: valid 1-4 byte sequences, an overlong one, a surrogate, a truncated one.
  const std::string_view utf8 =
      "a/b\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80\xe2\x82";
  Bytes text{14};
  text.insert(text.end(), utf8.begin(), utf8.end());
  fuzz::write_seed(root, "smb_responses", "seed-utf8", text);
}

// ---- smb_auth_tokens: credentials below(3) | first token length u16 | first | second ----

// The target's client: CounterRandom(kAuthRandomSeed), clock kAuthClientTime, credentials.
constexpr std::uint64_t kAuthRandomSeed = 0x5eed;
constexpr std::uint64_t kAuthClientTime = 0x01d0000000000001;
std::uint64_t auth_clock(void* /*context*/) noexcept { return kAuthClientTime; }
smb::NtlmCredentials auth_credentials(std::size_t which) {
  if (which == 1) {
    return {};
  }
  return {which == 0 ? "alice" : "al\xff\xfe", "SAMBA", "Secret-1", "WS1"};
}

void append_av(Bytes& out, std::uint16_t id, std::span<const std::uint8_t> value) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_le16(out.data() + at, id);
  store_le16(out.data() + at + 2, static_cast<std::uint16_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
}

// challenge_token: NegTokenResp{accept-incomplete, NTLMSSP, CHALLENGE_MESSAGE} as a server
// sends it: header, VERSION, TargetName "SAMBA", TargetInfo (names, maybe MsvAvTimestamp).
Bytes challenge_token(std::uint32_t flags, bool timestamp) {
  Bytes av;
  append_av(av, 2, utf16le("SAMBA"));
  append_av(av, 1, utf16le("SMBD"));
  append_av(av, 4, utf16le("samba.example"));
  append_av(av, 3, utf16le("smbd.samba.example"));
  if (timestamp) {
    std::array<std::uint8_t, 8> t{};
    store_le64(t.data(), 0x01d9a2b3c4d5e6f7);
    append_av(av, 7, t);
  }
  append_av(av, 0, {});
  const Bytes target_name = utf16le("SAMBA");
  Body m(56);
  std::copy_n("NTLMSSP", 8, m.b.begin());
  m.u32(8, 2).u16(12, static_cast<std::uint16_t>(target_name.size()));
  m.u16(14, static_cast<std::uint16_t>(target_name.size())).u32(16, 56).u32(20, flags);
  m.u64(24, 0xefcdab8967452301).u16(40, static_cast<std::uint16_t>(av.size()));
  m.u16(42, static_cast<std::uint16_t>(av.size()));
  m.u32(44, static_cast<std::uint32_t>(56 + target_name.size())).u64(48, 0x0f0000001db10106);
  m.append(target_name).append(av);
  spnego::NegTokenRespFields resp;
  resp.neg_state = spnego::NegState::kAcceptIncomplete;
  resp.supported_mech = std::span<const std::uint8_t>(spnego::kNtlmsspOid);
  resp.response_token = std::span<const std::uint8_t>(m.b);
  return spnego::encode_neg_token_resp(resp);
}

// server_final: accept-completed with the mechListMIC the target's client verifies, computed
// by running that client on `challenge` (none when it does not get that far or is anonymous).
std::optional<Bytes> server_final(std::size_t which, const Bytes& challenge) {
  fuzz::CounterRandom random(kAuthRandomSeed);
  smb::NtlmClient client(auth_credentials(which), random.source(), {&auth_clock, nullptr});
  if (!client.initial_token()) {
    return std::nullopt;
  }
  const Result<Bytes> reply = client.respond(challenge);
  if (!reply || client.session_key().size() != smb::ntlm::kKeySize) {
    return std::nullopt;
  }
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  if (!resp || !resp->response_token || resp->response_token->size() < 64) {
    return std::nullopt;
  }
  const std::uint32_t flags = load_le32(resp->response_token->data() + 60);
  Result<smb::ntlm::MessageSecurity> s2c =
      smb::ntlm::MessageSecurity::create(client.session_key().first<smb::ntlm::kKeySize>(),
                                         smb::ntlm::Direction::kServerToClient, flags);
  std::array<std::uint8_t, smb::ntlm::kSignatureSize> mic{};
  if (!s2c || !s2c->sign(spnego::ntlmssp_mech_type_list(), mic)) {
    return std::nullopt;
  }
  spnego::NegTokenRespFields done;
  done.neg_state = spnego::NegState::kAcceptCompleted;
  done.mech_list_mic = std::span<const std::uint8_t>(mic);
  return spnego::encode_neg_token_resp(done);
}

void auth_seed(const std::filesystem::path& root, const std::string& name, std::size_t which,
               const Bytes& first, const Bytes& second) {
  fuzz::FuzzScript s;
  s.below(3, which).u16(first.size()).bytes(first).bytes(second);
  fuzz::write_seed(root, "smb_auth_tokens", "seed-" + name, s.data());
}

void auth_seeds(const std::filesystem::path& root) {
  // What Samba sends (UNICODE REQUEST_TARGET SIGN NTLM ALWAYS_SIGN TARGET_TYPE_SERVER ESS
  // TARGET_INFO VERSION 128 KEY_EXCH 56), and the same without key exchange.
  constexpr std::uint32_t kServerFlags = 0xe28a8215;
  const Bytes with_time = challenge_token(kServerFlags, true);
  const Bytes without_time = challenge_token(kServerFlags, false);
  const Bytes no_key_exch = challenge_token(kServerFlags & ~0x40000000u, true);
  spnego::NegTokenRespFields reject;
  reject.neg_state = spnego::NegState::kReject;
  spnego::NegTokenRespFields bare;
  bare.neg_state = spnego::NegState::kAcceptCompleted;
  const char* kinds[] = {"user", "anonymous", "bad-utf8"};
  for (std::size_t which = 0; which < 3; ++which) {
    const std::string kind = kinds[which];
    for (const auto& [label, challenge] :
         {std::pair<std::string, const Bytes&>{"timestamp", with_time},
          {"no-timestamp", without_time},
          {"no-key-exch", no_key_exch}}) {
      const std::optional<Bytes> final_token = server_final(which, challenge);
      std::string name = kind;
      name.append("-").append(label).append("-mic");
      auth_seed(root, name, which, challenge, final_token.value_or(Bytes{}));
    }
    auth_seed(root, kind + "-no-final", which, with_time, {});
    auth_seed(root, kind + "-reject", which, with_time, spnego::encode_neg_token_resp(reject));
    auth_seed(root, kind + "-bare", which, with_time, spnego::encode_neg_token_resp(bare));
  }
  // NegTokenInit: a server's NEGOTIATE hint (mechTypes only) and a client's initial token.
  const Bytes hint = spnego::encode_initial_token(spnego::ntlmssp_mech_type_list(), {});
  fuzz::CounterRandom random(kAuthRandomSeed);
  smb::NtlmClient client(auth_credentials(0), random.source(), {&auth_clock, nullptr});
  const Result<Bytes> initial = client.initial_token();
  auth_seed(root, "init-hint", 0, hint, initial ? *initial : Bytes{});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  transform_and_framing_seeds(root);
  signing_verify_seeds(root);
  script_seeds(root);
  response_seeds(root);
  auth_seeds(root);
  return 0;
}
