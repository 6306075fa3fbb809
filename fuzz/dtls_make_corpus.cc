// Writes the seed corpora of the DTLS targets and of aead_batch:
//  - dtls_record_open: datagrams of valid records sealed with the target's fixed keys, for
//    every (cipher, encrypt-then-MAC, CID) selector: plaintext sizes around block and padding
//    boundaries, several content types, CID padding, and sequence numbers that exercise the
//    replay window (old, duplicate, out of order), so fuzzing starts past authentication;
//  - dtls_roundtrip, dtls_seal_batch, aead_batch: scripts (fuzz_input.h) over every cipher or
//    algorithm with the options and call patterns each target reads;
//  - dtls_handshake_codec: one well-formed body of every handshake message (and a fragmented
//    handshake record, and an extensions block with every extension), written by the codec;
//  - dtls_connected: spoofed records for each side of an established association;
//  - dtls_hello_verifier: a client's first and second hello, whole and in fragments;
//  - dtls_endpoint: what each side of a recorded in-memory handshake received (certificate
//    and PSK configurations), under the target's counting randomness (dtls_endpoint.h).
// Usage: fuzz_dtls_make_corpus <fuzz/corpus directory>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "corpus_writer.h"
#include "dtls_endpoint.h"
#include "dtls_fuzz_setup.h"
#include "dtls_handshake_codec.h"
#include "fuzz_keys.h"
#include "wireseal/crypto/aead.h"
#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"
#include "wireseal/dtls/hello_verifier.h"

namespace {

using namespace wireseal;
using Bytes = std::vector<std::uint8_t>;

struct Record {
  dtls::ContentType type;
  std::size_t size;
  std::uint64_t sequence;
};

void counter_fill(void* ctx, std::span<std::uint8_t> out) noexcept {
  auto* c = static_cast<std::uint64_t*>(ctx);
  for (auto& b : out) {
    b = static_cast<std::uint8_t>(++*c);
  }
}

// datagram seals `records` for selector `sel` (each at its own sequence number) after the
// selector byte.
Bytes datagram(std::size_t sel, std::size_t cid_padding, const std::vector<Record>& records) {
  const fuzz::DtlsConfig config = fuzz::dtls_config(static_cast<std::uint8_t>(sel));
  const dtls::KeyBlock kb = fuzz::dtls_key_block(config.cipher);
  std::uint64_t counter = 0;
  dtls::RecordSealerOptions options = fuzz::dtls_options(config);
  options.random = {counter_fill, &counter};
  options.cid_padding = config.cid_len != 0 ? cid_padding : 0;
  Bytes input{static_cast<std::uint8_t>(sel)};
  for (const Record& r : records) {
    dtls::RecordSealer sealer(config.cipher, kb.keys(dtls::Direction::kClientWrite), 1, options,
                              r.sequence);
    const Bytes plaintext(r.size, static_cast<std::uint8_t>('a' + r.size % 26));
    Bytes record(sealer.sealed_size(r.size));
    if (!sealer.seal(r.type, plaintext, record)) {
      std::fprintf(stderr, "seal failed for selector %zu\n", sel);
      std::exit(1);
    }
    input.insert(input.end(), record.begin(), record.end());
  }
  return input;
}

void record_open_seeds(const std::filesystem::path& root) {
  using dtls::ContentType;
  const ContentType app = ContentType::kApplicationData;
  for (std::size_t sel = 0; sel < fuzz::kDtlsConfigCount; ++sel) {
    if (fuzz::dtls_config(static_cast<std::uint8_t>(sel)).encrypt_then_mac != ((sel & 1) != 0)) {
      continue;  // non-CBC ciphers map odd selectors onto even ones
    }
    const std::string name = "seed-" + std::to_string(sel);
    fuzz::write_seed(root, "dtls_record_open", name,
                     datagram(sel, 0, {{app, 0, 5}, {app, 17, 6}, {app, 64, 7}}));
    fuzz::write_seed(root, "dtls_record_open", name + "-sizes",
                     datagram(sel, 0,
                              {{ContentType::kAlert, 1, 1},
                               {ContentType::kHandshake, 15, 2},
                               {app, 16, 3},
                               {ContentType::kHeartbeat, 31, 4},
                               {app, 255, 5},
                               {app, 1500, 6}}));
    fuzz::write_seed(root, "dtls_record_open", name + "-replay",
                     datagram(sel, 0, {{app, 8, 100}, {app, 8, 30}, {app, 8, 99}, {app, 8, 99}}));
    if (fuzz::dtls_config(static_cast<std::uint8_t>(sel)).cid_len != 0) {
      fuzz::write_seed(root, "dtls_record_open", name + "-cid-padding",
                       datagram(sel, 13, {{app, 0, 1}, {ContentType::kAlert, 2, 2}, {app, 40, 3}}));
    }
  }
}

// One record of a dtls_roundtrip script: op (0 out of place, 1 in place), type, plaintext.
void roundtrip_record(fuzz::FuzzScript& s, unsigned op, std::size_t type, std::size_t n) {
  s.u8(op).u8(type).below(16386, n);
  s.bytes(Bytes(n, static_cast<std::uint8_t>(n % 7 == 0 ? 0 : 'p')));
}

Bytes roundtrip_script(const fuzz::DtlsSetupScript& setup, bool big) {
  fuzz::FuzzScript s;
  fuzz::write_dtls_setup(s, setup);
  roundtrip_record(s, 0, 23, 0);
  roundtrip_record(s, 1, 22, 17);
  s.u8(11);  // 11 % 3 == 2: seal_batch of 1 + (11 >> 2) % 16 = 3 records
  for (std::size_t n : {1u, 16u, 100u}) {
    s.u8(n % 2).u8(23).below(16386, n).bytes(Bytes(n, 'b'));
  }
  roundtrip_record(s, 0, 21, 2);
  if (big) {
    s.u8(1).u8(23).below(16386, 16384);  // the plaintext: the pattern
  }
  return s.data();
}

Bytes seal_batch_script(const fuzz::DtlsSetupScript& setup, std::size_t count) {
  fuzz::FuzzScript s;
  fuzz::write_dtls_setup(s, setup);
  s.below(24, count - 1);
  for (std::size_t i = 0; i < count; ++i) {
    // flags: exact / in place / one short / slack / overlapping, in turn
    const std::uint8_t flags[] = {0, 1, 2, 4, 8};
    const std::size_t n = i * 13 % 97;
    s.u8(flags[i % 5]).u8(i % 7 == 6 ? 25 : 23).below(16386, n).bytes(Bytes(n, 'c'));
  }
  return s.data();
}

void dtls_script_seeds(const std::filesystem::path& root) {
  for (std::size_t cipher = 0; cipher < fuzz::kRecordCipherCount; ++cipher) {
    const bool cbc =
        dtls::info(static_cast<dtls::RecordCipher>(cipher)).kind == dtls::CipherKind::kCbc;
    std::vector<std::pair<std::string, fuzz::DtlsSetupScript>> setups = {
        {"plain", {cipher, false, 0, 0, dtls::kDtls12Version, 1, 0}},
        {"cid", {cipher, false, 4, 0, dtls::kDtls12Version, 1, 7}},
        {"cid-padded", {cipher, false, 8, 13, dtls::kDtls10Version, 2, 1000}},
        {"exhausted", {cipher, false, 0, 0, dtls::kDtls12Version, 1, dtls::kMaxSequence - 1}}};
    if (cbc) {
      setups.push_back({"etm", {cipher, true, 0, 0, dtls::kDtls12Version, 1, 0}});
      setups.push_back({"etm-cid", {cipher, true, 4, 3, dtls::kDtls12Version, 1, 0}});
    }
    for (const auto& [label, setup] : setups) {
      const std::string name = "seed-" + std::to_string(cipher) + "-" + label;
      fuzz::write_seed(root, "dtls_roundtrip", name, roundtrip_script(setup, label == "plain"));
      fuzz::write_seed(root, "dtls_seal_batch", name,
                       seal_batch_script(setup, label == "plain" ? 20 : 6));
    }
  }
}

// aead_batch: algorithm, tag and nonce choices, backend index, key; then one batch of jobs
// in every layout (the overlapping and short ones fail to seal), and their opens, one with a
// flipped byte.
Bytes aead_script(std::size_t alg, std::size_t tag_choice, std::size_t nonce_choice,
                  std::size_t backend) {
  const auto algorithm = static_cast<crypto::AeadAlgorithm>(alg);
  const bool ccm = algorithm == crypto::AeadAlgorithm::kAes128Ccm ||
                   algorithm == crypto::AeadAlgorithm::kAes192Ccm ||
                   algorithm == crypto::AeadAlgorithm::kAes256Ccm;
  const std::size_t nonce_len = ccm ? 7 + nonce_choice : 12;
  fuzz::FuzzScript s;
  s.below(7, alg).below(7, tag_choice).below(7, nonce_choice).u8(backend);
  s.bytes(Bytes(crypto::info(algorithm).key_len, 0x4b));
  const std::size_t sizes[] = {0, 1, 16, 100, 1000, 33};
  s.below(20, std::size(sizes) - 1);
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    s.u8(i % 4).bytes(Bytes(nonce_len, static_cast<std::uint8_t>(i)));  // layout, nonce
    s.below(64, i * 5).bytes(Bytes(i * 5, 'a'));                        // AAD
    s.below(2048, sizes[i]).bytes(Bytes(sizes[i], 'm'));                // plaintext
  }
  // Opens of the sealed jobs (layouts 0 and 1: jobs 0, 1, 4, 5): out of place, in place,
  // one byte short, and the last with its byte 3 flipped.
  s.u8(0).u8(1 << 2).u8(3 << 2).u8(1).u8(3).u8(0x40);
  return s.data();
}

void aead_seeds(const std::filesystem::path& root) {
  for (std::size_t alg = 0; alg < 7; ++alg) {
    for (std::size_t backend = 0; backend < 3; ++backend) {
      const std::string name = "seed-" + std::to_string(alg) + "-" + std::to_string(backend);
      fuzz::write_seed(root, "aead_batch", name,
                       aead_script(alg, backend * 2, 6 - backend, backend));
    }
  }
}

// codec_seed writes selector `kind` and the body `write` produces.
template <class Write>
void codec_seed(const std::filesystem::path& root, fuzz::CodecKind kind, const std::string& name,
                Write write) {
  Bytes out(4096);
  const Result<std::size_t> n = write(std::span<std::uint8_t>(out));
  if (!n) {
    std::fprintf(stderr, "dtls_handshake_codec seed %s: %s\n", name.c_str(), to_string(n.error()));
    std::exit(1);
  }
  Bytes input{static_cast<std::uint8_t>(kind)};
  input.insert(input.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*n));
  fuzz::write_seed(root, "dtls_handshake_codec", "seed-" + name, input);
}

void handshake_codec_seeds(const std::filesystem::path& root) {
  using fuzz::CodecKind;
  static const std::array<std::uint16_t, 3> groups = {29, 23, 24};
  static const std::array<std::uint16_t, 3> schemes = {0x0403, 0x0804, 0x0401};
  static const std::array<std::uint16_t, 2> profiles = {7, 1};
  static const std::array<std::uint16_t, 3> suites = {0xC02B, 0xC02F, 0x00FF};
  static const Bytes host = {'h', 'o', 's', 't'};
  static const Bytes alpn = {2, 'h', '2', 4, 'w', 'e', 'b', 'r'};
  static const Bytes point_formats = {0};
  static const Bytes mki = {1, 2};
  static const Bytes cid = {9, 9, 9};
  static const Bytes session_id(32, 0x51);
  static const Bytes cookie(20, 0xC0);
  static const Bytes null_compression = {0};
  static const Bytes point(65, 0x04);
  static const Bytes signature(70, 0x30);
  static const Bytes hint = {'h', 'i', 'n', 't'};
  static const Bytes der(120, 0x30);
  static const Bytes ticket(48, 0x7A);
  dtls::HelloExtensions e;
  e.has_server_name = true;
  e.host_name = host;
  e.supported_groups = groups;
  e.ec_point_formats = point_formats;
  e.signature_algorithms = schemes;
  e.has_use_srtp = true;
  e.srtp_profiles = profiles;
  e.srtp_mki = mki;
  e.alpn_protocols = alpn;
  e.encrypt_then_mac = true;
  e.extended_master_secret = true;
  e.has_session_ticket = true;
  e.has_connection_id = true;
  e.connection_id = cid;
  e.has_renegotiation_info = true;

  dtls::ClientHello ch;
  ch.version = 0xFEFD;
  ch.random.fill(0x11);
  ch.session_id = session_id;
  ch.cookie = cookie;
  ch.cipher_suites = suites;
  ch.compression_methods = null_compression;
  ch.extensions = e;
  codec_seed(root, CodecKind::kClientHello, "client-hello",
             [&](std::span<std::uint8_t> out) { return dtls::write_client_hello(ch, out); });
  dtls::ServerHello sh;
  sh.version = 0xFEFD;
  sh.random.fill(0x22);
  sh.session_id = session_id;
  sh.cipher_suite = 0xC02B;
  sh.extensions = e;
  codec_seed(root, CodecKind::kServerHello, "server-hello",
             [&](std::span<std::uint8_t> out) { return dtls::write_server_hello(sh, out); });
  codec_seed(root, CodecKind::kExtensions, "extensions", [&](std::span<std::uint8_t> out) {
    Result<std::size_t> n = dtls::write_hello_extensions(e, out);
    if (n) {  // the target reads the block's contents, without its length
      std::copy(out.begin() + 2, out.begin() + static_cast<std::ptrdiff_t>(*n), out.begin());
      return Result<std::size_t>(*n - 2);
    }
    return n;
  });
  codec_seed(root, CodecKind::kHelloVerifyRequest, "hello-verify-request",
             [&](std::span<std::uint8_t> out) {
               return dtls::write_hello_verify_request({0xFEFF, cookie}, out);
             });
  const std::array<std::span<const std::uint8_t>, 2> chain = {der, der};
  codec_seed(root, CodecKind::kCertificate, "certificate",
             [&](std::span<std::uint8_t> out) { return dtls::write_certificate(chain, out); });
  dtls::ServerKeyExchange ske;
  ske.psk_identity_hint = hint;
  ske.named_group = 23;
  ske.public_key = point;
  ske.signature_scheme = 0x0403;
  ske.signature = signature;
  const std::pair<CodecKind, dtls::KeyExchange> ske_kinds[] = {
      {CodecKind::kServerKeyExchangeEcdhe, dtls::KeyExchange::kEcdhe},
      {CodecKind::kServerKeyExchangePsk, dtls::KeyExchange::kPsk},
      {CodecKind::kServerKeyExchangeEcdhePsk, dtls::KeyExchange::kEcdhePsk}};
  const std::pair<CodecKind, dtls::KeyExchange> cke_kinds[] = {
      {CodecKind::kClientKeyExchangeEcdhe, dtls::KeyExchange::kEcdhe},
      {CodecKind::kClientKeyExchangePsk, dtls::KeyExchange::kPsk},
      {CodecKind::kClientKeyExchangeEcdhePsk, dtls::KeyExchange::kEcdhePsk}};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string suffix = std::to_string(i);
    codec_seed(root, ske_kinds[i].first, "server-key-exchange-" + suffix,
               [&](std::span<std::uint8_t> out) {
                 return dtls::write_server_key_exchange(ske_kinds[i].second, ske, out);
               });
    codec_seed(root, cke_kinds[i].first, "client-key-exchange-" + suffix,
               [&](std::span<std::uint8_t> out) {
                 return dtls::write_client_key_exchange(cke_kinds[i].second, {hint, point}, out);
               });
  }
  static const Bytes types = {64, 1};
  static const Bytes authorities = {0, 2, 0x30, 0x00};
  codec_seed(root, CodecKind::kCertificateRequest, "certificate-request",
             [&](std::span<std::uint8_t> out) {
               return dtls::write_certificate_request({types, schemes, authorities}, out);
             });
  codec_seed(root, CodecKind::kServerHelloDone, "server-hello-done",
             [](std::span<std::uint8_t>) { return Result<std::size_t>(std::size_t{0}); });
  codec_seed(root, CodecKind::kCertificateVerify, "certificate-verify",
             [&](std::span<std::uint8_t> out) {
               return dtls::write_certificate_verify({0x0804, signature}, out);
             });
  codec_seed(root, CodecKind::kFinished, "finished", [](std::span<std::uint8_t> out) {
    std::fill_n(out.begin(), 12, std::uint8_t{0xF1});
    return Result<std::size_t>(std::size_t{12});
  });
  codec_seed(root, CodecKind::kNewSessionTicket, "new-session-ticket",
             [&](std::span<std::uint8_t> out) {
               return dtls::write_new_session_ticket({7200, ticket}, out);
             });
  // A plaintext handshake record: a whole ServerHelloDone and two fragments of a Certificate.
  codec_seed(root, CodecKind::kHandshakeRecord, "handshake-record",
             [&](std::span<std::uint8_t> out) {
               std::size_t at = 0;
               for (const auto& [offset, length] : {std::pair<std::size_t, std::size_t>{0, 50},
                                                    std::pair<std::size_t, std::size_t>{50, 70}}) {
                 const Result<std::size_t> n =
                     dtls::write_handshake_fragment(11, 3, der, offset, length, out.subspan(at));
                 at += n ? *n : 0;
               }
               const Result<std::size_t> done =
                   dtls::write_handshake_fragment(14, 4, {}, 0, 0, out.subspan(at));
               return Result<std::size_t>(at + (done ? *done : 0));
             });
}

// endpoint_seeds runs a handshake between the target's client and server configurations and
// writes, per side, the datagrams that side received in the target's input format.
void endpoint_seeds(const std::filesystem::path& root) {
  for (const std::uint8_t selector :
       {std::uint8_t{0}, fuzz::kEndpointPsk, fuzz::kEndpointResume,
        static_cast<std::uint8_t>(fuzz::kEndpointResume | fuzz::kEndpointPsk)}) {
    const bool psk = (selector & fuzz::kEndpointPsk) != 0;
    const bool resume = (selector & fuzz::kEndpointResume) != 0;
    fuzz::CountingRandom client_random;
    fuzz::CountingRandom server_random;
    dtls::Endpoint client(fuzz::fuzz_endpoint_config(selector, client_random));
    dtls::Endpoint server(
        fuzz::fuzz_endpoint_config(selector | fuzz::kEndpointServer, server_random));
    if (resume) {
      (void)client.offer_session(fuzz::fuzz_saved_session(psk));
    }
    std::array<Bytes, 2> inputs{Bytes{selector},
                                Bytes{static_cast<std::uint8_t>(selector | fuzz::kEndpointServer)}};
    const dtls::Instant now{std::chrono::seconds(100)};
    (void)client.start(now);
    (void)server.start(now);
    std::array<std::uint8_t, 600> buffer{};
    std::array<bool, 2> up{false, false};
    const std::array<dtls::Endpoint*, 2> sides{&client, &server};
    for (int round = 0; round < 16 && !(up[0] && up[1]); ++round) {
      for (std::size_t from = 0; from < 2; ++from) {
        for (int guard = 0; guard < 64; ++guard) {
          const Result<dtls::Output> out = sides[from]->poll_output(buffer);
          if (!out || out->kind == dtls::Output::Kind::kTimeout ||
              out->kind == dtls::Output::Kind::kIdle) {
            break;
          }
          if (out->kind == dtls::Output::Kind::kConnected) {
            up[from] = true;
          }
          if (out->kind != dtls::Output::Kind::kDatagram) {
            continue;
          }
          Bytes& seed = inputs[1 - from];
          seed.push_back(static_cast<std::uint8_t>(out->size >> 8));
          seed.push_back(static_cast<std::uint8_t>(out->size));
          seed.insert(seed.end(), buffer.begin(),
                      buffer.begin() + static_cast<std::ptrdiff_t>(out->size));
          (void)sides[1 - from]->handle_datagram(now, std::span(buffer).first(out->size));
        }
      }
    }
    if (!(up[0] && up[1])) {
      std::fprintf(stderr, "dtls_endpoint seeds: the recorded handshake did not complete\n");
      std::exit(1);
    }
    if (resume && !client.negotiated().resumed) {
      std::fprintf(stderr, "dtls_endpoint seeds: the recorded resumption did not resume\n");
      std::exit(1);
    }
    const std::string kind = std::string(psk ? "psk" : "ecdsa") + (resume ? "-resumed" : "");
    fuzz::write_seed(root, "dtls_endpoint", "seed-client-" + kind, inputs[0]);
    fuzz::write_seed(root, "dtls_endpoint", "seed-server-" + kind, inputs[1]);
  }
}

// spoofed_record frames one plaintext-header record: type, DTLS 1.2, epoch, sequence, body.
Bytes spoofed_record(std::uint8_t type, std::uint16_t epoch, std::uint8_t sequence,
                     const Bytes& body) {
  Bytes r = {type,
             0xfe,
             0xfd,
             static_cast<std::uint8_t>(epoch >> 8),
             static_cast<std::uint8_t>(epoch),
             0,
             0,
             0,
             0,
             0,
             sequence,
             static_cast<std::uint8_t>(body.size() >> 8),
             static_cast<std::uint8_t>(body.size())};
  r.insert(r.end(), body.begin(), body.end());
  return r;
}

// whole_message is one unfragmented handshake message of `length` zero bytes.
Bytes whole_message(std::uint8_t msg_type, std::uint8_t message_seq, std::uint8_t length) {
  Bytes m = {msg_type, 0, 0, length, 0, message_seq, 0, 0, 0, 0, 0, length};
  m.resize(m.size() + length);
  return m;
}

// connected_seeds: for each side and authentication of the dtls_connected target, what a
// spoofer tries first: a repeated Finished and new messages in epoch 0, a ClientHello and a
// HelloRequest (renegotiation), alerts, an unknown content type, a ChangeCipherSpec, forged
// records of the keyed epoch and one with a connection ID, and a timer tick.
void connected_seeds(const std::filesystem::path& root) {
  std::vector<Bytes> spoofs;
  for (std::uint8_t seq = 0; seq < 8; ++seq) {
    spoofs.push_back(spoofed_record(22, 0, seq, whole_message(20, seq, 12)));  // Finished
  }
  spoofs.push_back(spoofed_record(22, 0, 20, whole_message(1, 0, 40)));  // ClientHello
  spoofs.push_back(spoofed_record(22, 0, 21, whole_message(0, 0, 0)));   // HelloRequest
  spoofs.push_back(spoofed_record(21, 0, 22, {2, 40}));                  // fatal alert
  spoofs.push_back(spoofed_record(21, 0, 23, {1, 0}));                   // close_notify
  spoofs.push_back(spoofed_record(99, 0, 24, Bytes(16, 0xab)));          // unknown type
  spoofs.push_back(spoofed_record(20, 0, 25, {1}));                      // ChangeCipherSpec
  spoofs.push_back(spoofed_record(23, 0, 26, Bytes(16, 0x17)));          // plaintext data
  spoofs.push_back(spoofed_record(23, 1, 27, Bytes(40, 0x17)));          // forged, epoch 1
  spoofs.push_back(spoofed_record(25, 1, 28, Bytes(40, 0x19)));          // forged CID record
  for (std::uint8_t selector = 0; selector < 4; ++selector) {
    Bytes input{selector};
    for (const Bytes& d : spoofs) {
      input.push_back(static_cast<std::uint8_t>(d.size() >> 8));
      input.push_back(static_cast<std::uint8_t>(d.size()));
      input.insert(input.end(), d.begin(), d.end());
    }
    input.insert(input.end(), {0, 0});  // 1.5 s pass
    const std::string side = (selector & 1) != 0 ? "server" : "client";
    const std::string auth = (selector & 2) != 0 ? "ecdsa" : "psk";
    fuzz::write_seed(root, "dtls_connected", "seed-" + side + "-" + auth, input);
  }
}

// in_fragments rewrites a datagram holding one whole handshake message in one record as
// records of `piece` bytes of body each, in one datagram.
Bytes in_fragments(const Bytes& d, std::size_t piece) {
  constexpr std::size_t kRecord = 13;
  constexpr std::size_t kMessage = 12;
  const std::size_t length = d.size() - kRecord - kMessage;
  Bytes out;
  std::uint8_t sequence = d[10];
  for (std::size_t at = 0; at < length; at += piece) {
    const std::size_t n = std::min(piece, length - at);
    out.insert(out.end(), d.begin(), d.begin() + 10);  // type, version, epoch, sequence
    out.push_back(sequence++);
    out.push_back(static_cast<std::uint8_t>((kMessage + n) >> 8));
    out.push_back(static_cast<std::uint8_t>(kMessage + n));
    out.insert(out.end(), d.begin() + kRecord, d.begin() + kRecord + 6);  // type, length, seq
    for (const std::size_t v : {at, n}) {
      out.insert(out.end(), {static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8),
                             static_cast<std::uint8_t>(v)});
    }
    const auto from = d.begin() + static_cast<std::ptrdiff_t>(kRecord + kMessage + at);
    out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(n));
  }
  return out;
}

// hello_verifier_seeds: a client's first hello and, after the target's HelloVerifyRequest
// (same secret and address), its second one with the cookie, each whole and in fragments.
void hello_verifier_seeds(const std::filesystem::path& root) {
  fuzz::CountingRandom random;
  dtls::Endpoint client(fuzz::fuzz_endpoint_config(0, random));
  (void)client.start(dtls::Instant{});
  std::array<std::uint8_t, 600> buffer{};
  const Result<dtls::Output> first = client.poll_output(buffer);
  if (!first || first->kind != dtls::Output::Kind::kDatagram) {
    std::fprintf(stderr, "dtls_hello_verifier seeds: no hello\n");
    std::exit(1);
  }
  const Bytes hello(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(first->size));
  std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
  secret.fill(0x5c);
  const dtls::HelloVerifier verifier(secret);
  const std::array<std::uint8_t, 6> address{192, 0, 2, 1, 0x13, 0x88};
  std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
  const dtls::HelloVerifier::Outcome o = verifier.check(address, hello, reply);
  Bytes request(reply.begin(), reply.begin() + static_cast<std::ptrdiff_t>(o.size));
  (void)client.handle_datagram(dtls::Instant{}, request);
  const Result<dtls::Output> second = client.poll_output(buffer);
  if (o.verdict != dtls::HelloVerifier::Verdict::kReply || !second ||
      second->kind != dtls::Output::Kind::kDatagram) {
    std::fprintf(stderr, "dtls_hello_verifier seeds: no second hello\n");
    std::exit(1);
  }
  const Bytes with_cookie(buffer.begin(),
                          buffer.begin() + static_cast<std::ptrdiff_t>(second->size));
  fuzz::write_seed(root, "dtls_hello_verifier", "seed-first-hello", hello);
  fuzz::write_seed(root, "dtls_hello_verifier", "seed-first-hello-fragments",
                   in_fragments(hello, 100));
  fuzz::write_seed(root, "dtls_hello_verifier", "seed-second-hello", with_cookie);
  fuzz::write_seed(root, "dtls_hello_verifier", "seed-second-hello-fragments",
                   in_fragments(with_cookie, 64));
}

// certificate_key_seeds: a self-signed certificate of each key type the handshake uses.
void certificate_key_seeds(const std::filesystem::path& root) {
  for (const crypto::KeyType type : {crypto::KeyType::kEcP256, crypto::KeyType::kEcP384,
                                     crypto::KeyType::kRsa, crypto::KeyType::kEd25519}) {
    const Result<crypto::CertifiedKey> made = crypto::generate_self_signed(type);
    if (!made) {
      std::fprintf(stderr, "cannot make a %s certificate\n", crypto::to_string(type));
      std::exit(1);
    }
    std::string name = std::string("seed-") + crypto::to_string(type);
    std::transform(name.begin(), name.end(), name.begin(), [](char c) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
    fuzz::write_seed(root, "certificate_key", name, made->chain.der(0));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  record_open_seeds(root);
  dtls_script_seeds(root);
  aead_seeds(root);
  handshake_codec_seeds(root);
  endpoint_seeds(root);
  connected_seeds(root);
  hello_verifier_seeds(root);
  certificate_key_seeds(root);
  return 0;
}
