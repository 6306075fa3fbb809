// Writes the seed corpora of the SRTP targets:
//  - srtp_unprotect, srtcp_unprotect: for every configuration of srtp_fuzz_keys.h, packets
//    protected with the targets' fixed sessions (CSRCs, one- and two-byte extensions, a
//    sequence rollover; several SSRCs, a duplicate, a late packet, both MKI keys), so fuzzing
//    starts past authentication;
//  - srtp_roundtrip, srtcp_roundtrip, srtp_batch, srtcp_batch: scripts (srtp_fuzz_setup.h)
//    over every profile with and without MKI keys, RFC 6904 IDs and cryptex.
// Usage: fuzz_srtp_make_corpus <fuzz/corpus directory>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus_writer.h"
#include "srtp_fuzz_keys.h"
#include "srtp_fuzz_setup.h"

namespace {

using namespace wireseal;
using Bytes = std::vector<std::uint8_t>;

Bytes rtp(std::uint16_t seq, std::uint8_t cc, int ext, std::uint32_t ssrc = 0xcafebabe) {
  Bytes p = {static_cast<std::uint8_t>(0x80 | (ext != 0 ? 0x10 : 0) | cc),
             96,
             static_cast<std::uint8_t>(seq >> 8),
             static_cast<std::uint8_t>(seq),
             0,
             0,
             0,
             1};
  for (int shift = 24; shift >= 0; shift -= 8) {
    p.push_back(static_cast<std::uint8_t>(ssrc >> shift));
  }
  for (std::size_t i = 0; i < 4u * cc; ++i) {
    p.push_back(static_cast<std::uint8_t>(i));
  }
  if (ext == 1) {
    const Bytes e = {0xbe, 0xde, 0, 2, 0x10, 0xaa, 0x21, 0xbb, 0xcc, 0x30, 0xdd, 0};
    p.insert(p.end(), e.begin(), e.end());
  } else if (ext == 2) {
    const Bytes e = {0x10, 0x00, 0, 2, 0x01, 0x02, 0xaa, 0xbb, 0x03, 0x01, 0xcc, 0};
    p.insert(p.end(), e.begin(), e.end());
  }
  for (int i = 0; i < 40; ++i) {
    p.push_back(static_cast<std::uint8_t>('a' + i % 26));
  }
  return p;
}

Bytes rtcp(std::uint32_t ssrc, std::uint8_t fill) {
  Bytes p = {0x80, 200, 0, 6};
  for (int shift = 24; shift >= 0; shift -= 8) {
    p.push_back(static_cast<std::uint8_t>(ssrc >> shift));
  }
  p.resize(28, fill);
  return p;
}

void append(Bytes& input, const Bytes& packet) {
  input.push_back(static_cast<std::uint8_t>(packet.size() >> 8));
  input.push_back(static_cast<std::uint8_t>(packet.size()));
  input.insert(input.end(), packet.begin(), packet.end());
}

Bytes protect_rtp(srtp::Session& tx, Bytes packet) {
  const std::size_t n = packet.size();
  packet.resize(n + tx.rtp_overhead());
  const Result<std::size_t> r = tx.protect_rtp(packet, n);
  if (!r) {
    std::fprintf(stderr, "protect_rtp failed\n");
    std::exit(1);
  }
  packet.resize(*r);
  return packet;
}

Bytes protect_rtcp(srtp::Session& tx, Bytes packet) {
  const std::size_t n = packet.size();
  packet.resize(tx.protected_rtcp_size(n));
  if (!tx.protect_rtcp(packet, n)) {
    std::fprintf(stderr, "protect_rtcp failed\n");
    std::exit(1);
  }
  return packet;
}

// unprotect_seeds: per configuration, the original sequence (rollover, CSRCs, extensions) and
// a multi-stream one with a duplicate, a late packet and, with an MKI, the second key.
void unprotect_seeds(const std::filesystem::path& root) {
  for (std::size_t sel = 0; sel < fuzz::kSrtpConfigCount; ++sel) {
    const fuzz::SrtpConfig config = fuzz::srtp_config(static_cast<std::uint8_t>(sel));
    srtp::Session tx = fuzz::srtp_session(config);
    Bytes rtp_input{static_cast<std::uint8_t>(sel)};
    Bytes rtcp_input{static_cast<std::uint8_t>(sel)};
    std::uint16_t seq = 65534;
    for (int k = 0; k < 4; ++k, ++seq) {
      append(rtp_input, protect_rtp(tx, rtp(seq, static_cast<std::uint8_t>(k % 3), k % 3)));
      append(rtcp_input, protect_rtcp(tx, rtcp(0xcafebabe, static_cast<std::uint8_t>(k))));
    }
    const std::string name = "seed-" + std::to_string(sel);
    fuzz::write_seed(root, "srtp_unprotect", name, rtp_input);
    fuzz::write_seed(root, "srtcp_unprotect", name, rtcp_input);

    srtp::Session multi = fuzz::srtp_session(config);
    Bytes rtp_streams{static_cast<std::uint8_t>(sel)};
    Bytes rtcp_streams{static_cast<std::uint8_t>(sel)};
    const std::uint32_t ssrcs[] = {1, 2, 3};
    std::vector<Bytes> sent;
    for (std::uint16_t i = 0; i < 9; ++i) {
      const std::uint32_t ssrc = ssrcs[i % 3];
      if (config.mki && i == 6) {
        static_cast<void>(multi.set_active_key(ssrc, 1));
      }
      sent.push_back(protect_rtp(multi, rtp(static_cast<std::uint16_t>(100 + i), 0, 0, ssrc)));
      append(rtcp_streams, protect_rtcp(multi, rtcp(ssrc, static_cast<std::uint8_t>(i))));
    }
    const std::size_t order[] = {0, 1, 2, 4, 3, 5, 5, 7, 8, 6, 0};  // late, duplicate, replay
    for (const std::size_t i : order) {
      append(rtp_streams, sent[i]);
    }
    fuzz::write_seed(root, "srtp_unprotect", name + "-streams", rtp_streams);
    fuzz::write_seed(root, "srtcp_unprotect", name + "-streams", rtcp_streams);
  }
}

// A session of the scripted targets: profile, MKI/keys and header protection.
struct Mode {
  const char* name;
  std::size_t mki_len;
  std::size_t keys;
  bool ids;
  bool cryptex;
};
constexpr Mode kModes[] = {{"plain", 0, 1, false, false},
                           {"mki", 2, 3, false, false},
                           {"rfc6904", 0, 1, true, false},
                           {"cryptex", 1, 2, false, true}};

fuzz::SrtpSetupScript setup_for(std::size_t profile, const Mode& m) {
  fuzz::SrtpSetupScript s;
  s.profile = profile;
  s.mki_len = m.mki_len;
  s.key_count = m.keys;
  s.cryptex = m.cryptex;
  if (m.ids) {
    s.encrypted_ids = {1, 2, 3};
  }
  return s;
}

// add_stream request: SSRC index, ROC, key, cryptex, IDs.
void write_stream_options(fuzz::FuzzScript& s, std::size_t ssrc, std::size_t keys, bool cryptex) {
  s.below(fuzz::kSsrcPool, ssrc).u32(5).below(keys + 1, keys - 1).u8(cryptex ? 1 : 0);
  s.below(5, 2).u8(1).u8(3);
}

Bytes srtp_roundtrip_script(std::size_t profile, const Mode& m) {
  fuzz::FuzzScript s;
  fuzz::write_srtp_setup(s, setup_for(profile, m));
  const fuzz::RtpScript packets[] = {
      {0, 0, 0, 1, 40}, {2, 1, 0, 1, 0}, {1, 0, 0, 1, 17}, {0, 2, 1, 1, 100}};
  for (std::size_t i = 0; i < std::size(packets); ++i) {
    s.u8(i % 2);  // out of place, in place
    fuzz::write_rtp(s, packets[i]);
  }
  s.u8(4);
  write_stream_options(s, 2, m.keys, m.cryptex);
  s.u8(0);
  fuzz::write_rtp(s, {1, 1, 2, 1, 30});
  s.u8(7).below(fuzz::kSsrcPool, 0).below(m.keys + 1, m.keys - 1);  // set_active_key
  s.u8(1);
  fuzz::write_rtp(s, {0, 0, 0, 1, 20});
  s.u8(6).below(fuzz::kSsrcPool, 1).u32(7);  // set_roc
  s.u8(0);
  fuzz::write_rtp(s, {0, 1, 1, 0x80, 10, 0xffff});  // explicit sequence, then a rollover
  s.u8(2);
  fuzz::write_rtp(s, {0, 0, 1, 1, 10});
  s.u8(5).below(fuzz::kSsrcPool, 2);  // remove_stream
  return s.data();
}

Bytes srtcp_roundtrip_script(std::size_t profile, const Mode& m) {
  fuzz::FuzzScript s;
  fuzz::write_srtp_setup(s, setup_for(profile, m));
  for (std::size_t i = 0; i < 4; ++i) {
    s.u8(i % 2);
    fuzz::write_rtcp(s, i % 3, 20 + i);
  }
  s.u8(2);
  write_stream_options(s, 3, m.keys, false);
  s.u8(0);
  fuzz::write_rtcp(s, 3, 0);
  s.u8(3).below(fuzz::kSsrcPool, 3);
  s.u8(1);
  fuzz::write_rtcp(s, 3, 8);
  return s.data();
}

// batch_tweaks writes the receivers' tweak per protected job: keep, duplicate, flip byte 20,
// swap with the next, drop, keep...
void batch_tweaks(fuzz::FuzzScript& s, std::size_t sent) {
  for (std::size_t i = 0; i < sent; ++i) {
    switch (i % 5) {
      case 1:
        s.u8(2);
        break;
      case 2:
        s.u8(4).u8(20).u8(0x10);  // below(len): packets here are shorter than 256 bytes
        break;
      case 3:
        s.u8(8);
        break;
      case 4:
        s.u8(1);
        break;
      default:
        s.u8(0);
        break;
    }
  }
}

Bytes srtp_batch_script(std::size_t profile, const Mode& m) {
  fuzz::FuzzScript s;
  fuzz::write_srtp_setup(s, setup_for(profile, m));
  for (int round = 0; round < 2; ++round) {
    s.u8(0).below(20, 7);  // a batch of 8; jobs 3 and 6 have bad buffers
    for (std::size_t i = 0; i < 8; ++i) {
      s.u8(i == 3 ? 1 : i == 6 ? 2 : 0);
      fuzz::write_rtp(s, {i % 3, static_cast<int>(i % 4 == 1), i % 2, 1, 20 + i});
    }
    batch_tweaks(s, 6);
    s.u8(2);
    write_stream_options(s, 2 + static_cast<std::size_t>(round), m.keys, m.cryptex);
    s.u8(3).below(fuzz::kSsrcPool, 0).u8(0).u32(1);  // set_roc
  }
  return s.data();
}

Bytes srtcp_batch_script(std::size_t profile, const Mode& m) {
  fuzz::FuzzScript s;
  fuzz::write_srtp_setup(s, setup_for(profile, m));
  for (int round = 0; round < 2; ++round) {
    s.u8(0).below(20, 7);
    for (std::size_t i = 0; i < 8; ++i) {
      s.u8(i == 3 ? 1 : i == 6 ? 2 : 0);
      fuzz::write_rtcp(s, i % 3, 10 + i);
    }
    for (std::size_t i = 0; i < 6; ++i) {
      s.u8(i % 3 == 1 ? 2 : i % 3 == 2 ? 4 : 0);
      if (i % 3 == 2) {
        s.u8(9).u8(0x20);
      }
    }
    s.u8(2).u8(static_cast<std::uint64_t>(round));  // add_stream, then remove_stream
    if (round == 0) {
      write_stream_options(s, 3, m.keys, false);
    } else {
      s.below(fuzz::kSsrcPool, 3);
    }
  }
  return s.data();
}

void script_seeds(const std::filesystem::path& root) {
  for (std::size_t profile = 0; profile < srtp::kProfileCount; ++profile) {
    for (const Mode& m : kModes) {
      const std::string name = "seed-" + std::to_string(profile) + "-" + m.name;
      fuzz::write_seed(root, "srtp_roundtrip", name, srtp_roundtrip_script(profile, m));
      fuzz::write_seed(root, "srtcp_roundtrip", name, srtcp_roundtrip_script(profile, m));
      fuzz::write_seed(root, "srtp_batch", name, srtp_batch_script(profile, m));
      fuzz::write_seed(root, "srtcp_batch", name, srtcp_batch_script(profile, m));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  unprotect_seeds(root);
  script_seeds(root);
  return 0;
}
