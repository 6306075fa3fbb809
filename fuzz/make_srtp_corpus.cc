// Writes seed corpora for srtp_unprotect and srtcp_unprotect: for every configuration, a few
// packets protected with the targets' fixed sessions (with CSRCs and one-/two-byte extensions,
// and a sequence rollover), so fuzzing starts past authentication.
// Usage: fuzz_make_srtp_corpus <fuzz/corpus directory>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "srtp_fuzz_keys.h"

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes rtp(std::uint16_t seq, std::uint8_t cc, int ext) {
  Bytes p = {static_cast<std::uint8_t>(0x80 | (ext != 0 ? 0x10 : 0) | cc), 96,
             static_cast<std::uint8_t>(seq >> 8), static_cast<std::uint8_t>(seq), 0, 0, 0, 1,
             0xca, 0xfe, 0xba, 0xbe};
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

void append(Bytes& input, const Bytes& packet) {
  input.push_back(static_cast<std::uint8_t>(packet.size() >> 8));
  input.push_back(static_cast<std::uint8_t>(packet.size()));
  input.insert(input.end(), packet.begin(), packet.end());
}

void write(const std::filesystem::path& path, const Bytes& b) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wireseal;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path rtp_dir = std::filesystem::path(argv[1]) / "srtp_unprotect";
  const std::filesystem::path rtcp_dir = std::filesystem::path(argv[1]) / "srtcp_unprotect";
  std::filesystem::create_directories(rtp_dir);
  std::filesystem::create_directories(rtcp_dir);
  for (std::size_t sel = 0; sel < fuzz::kSrtpConfigCount; ++sel) {
    srtp::Session tx = fuzz::srtp_session(fuzz::srtp_config(static_cast<std::uint8_t>(sel)));
    Bytes rtp_input{static_cast<std::uint8_t>(sel)};
    Bytes rtcp_input{static_cast<std::uint8_t>(sel)};
    std::uint16_t seq = 65534;
    for (int k = 0; k < 4; ++k, ++seq) {
      Bytes buf = rtp(seq, static_cast<std::uint8_t>(k % 3), k % 3);
      const std::size_t n = buf.size();
      buf.resize(n + 64);
      Result<std::size_t> r = tx.protect_rtp(buf, n);
      if (!r) {
        return 1;
      }
      buf.resize(*r);
      append(rtp_input, buf);
      Bytes rtcp = {0x80, 200, 0, 6, 0xca, 0xfe, 0xba, 0xbe};
      rtcp.resize(28, static_cast<std::uint8_t>(k));
      rtcp.resize(28 + 64);
      Result<std::size_t> m = tx.protect_rtcp(rtcp, 28);
      if (!m) {
        return 1;
      }
      rtcp.resize(*m);
      append(rtcp_input, rtcp);
    }
    write(rtp_dir / ("seed-" + std::to_string(sel)), rtp_input);
    write(rtcp_dir / ("seed-" + std::to_string(sel)), rtcp_input);
  }
  return 0;
}
