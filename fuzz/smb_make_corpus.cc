// Writes the seed corpora of the SMB targets:
//  - smb_transform_open: transformed messages sealed with the target's fixed key (per cipher:
//    plain message, compound chain, a long message, one for another session);
//  - smb_framing: direct-TCP byte streams of several frames (plain, compound, transformed)
//    read in several chunk sizes, and streams with a bad or oversized prefix;
//  - smb_signing_verify: messages and chains signed with the fixed key, and unsigned ones;
//  - smb_transform_roundtrip, smb_signing_roundtrip, smb_secure_channel, smb_client_engine:
//    scripts (fuzz_input.h, smb_fuzz_setup.h) over every cipher, signing algorithm, dialect
//    and protection.
// Usage: fuzz_smb_make_corpus <fuzz/corpus directory>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "corpus_writer.h"
#include "smb_fuzz_keys.h"
#include "smb_fuzz_setup.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"
#include "wireseal/smb/signing.h"

namespace {

using namespace wireseal;
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
  return 0;
}
