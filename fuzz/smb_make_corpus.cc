// Writes the seed corpora of the SMB fuzz targets: transformed messages sealed with the
// targets' fixed key (one per cipher, plain message and compound chain), and direct-TCP byte
// streams of several frames (plain, compound, transformed).
// Usage: fuzz_smb_make_corpus <fuzz/corpus directory>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "smb_fuzz_keys.h"
#include "wireseal/smb/framing.h"
#include "wireseal/smb/header.h"

namespace {

using Bytes = std::vector<std::uint8_t>;

void write_file(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Bytes chain_of(std::size_t count, std::size_t body) {
  using namespace wireseal;
  Bytes buf(count * (smb::kHeaderSize + body + 8));
  smb::ChainBuilder b(buf);
  for (std::size_t i = 0; i < count; ++i) {
    smb::Smb2Header h;
    h.command = smb::Command::kRead;
    h.message_id = 10 + i;
    h.session_id = fuzz::kSmbSessionId;
    const auto span = b.append(h, body);
    if (span) {
      std::fill(span->begin(), span->end(), static_cast<std::uint8_t>('a' + i));
    }
  }
  buf.resize(b.size());
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wireseal;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  const std::filesystem::path open_dir = root / "smb_transform_open";
  const std::filesystem::path framing_dir = root / "smb_framing";
  std::filesystem::create_directories(open_dir);
  std::filesystem::create_directories(framing_dir);
  const auto key = fuzz::smb_key();
  Bytes stream{3};
  for (std::size_t sel = 0; sel < 4; ++sel) {
    const smb::Cipher c = fuzz::kSmbCiphers[sel];
    smb::TransformSealer sealer(c, std::span(key).first(smb::cipher_key_length(c)),
                                fuzz::kSmbSessionId);
    for (std::size_t count : {1u, 3u}) {
      const Bytes message = chain_of(count, 13);
      Bytes input{static_cast<std::uint8_t>(sel)};
      Bytes sealed(smb::kTransformHeaderSize + message.size());
      if (!sealer.seal(message, sealed)) {
        return 1;
      }
      input.insert(input.end(), sealed.begin(), sealed.end());
      write_file(open_dir / ("seed-" + std::to_string(sel) + "-" + std::to_string(count)), input);
      Bytes prefix(smb::kFramePrefixSize);
      static_cast<void>(smb::encode_frame_prefix(sealed.size(), prefix));
      stream.insert(stream.end(), prefix.begin(), prefix.end());
      stream.insert(stream.end(), sealed.begin(), sealed.end());
      Bytes plain_prefix(smb::kFramePrefixSize);
      static_cast<void>(smb::encode_frame_prefix(message.size(), plain_prefix));
      stream.insert(stream.end(), plain_prefix.begin(), plain_prefix.end());
      stream.insert(stream.end(), message.begin(), message.end());
    }
  }
  write_file(framing_dir / "seed-stream", stream);
  stream[0] = 0;  // byte-at-a-time reads
  write_file(framing_dir / "seed-stream-bytewise", stream);
  return 0;
}
