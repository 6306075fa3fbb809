// Writes seed corpora for the fuzz targets: valid records sealed with the targets' fixed keys
// (one datagram of three records per configuration), so fuzzing starts past authentication.
// Usage: fuzz_make_corpus <fuzz/corpus directory>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_keys.h"

int main(int argc, char** argv) {
  using namespace wireseal;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / "dtls_record_open";
  std::filesystem::create_directories(dir);
  std::uint64_t fixed_random = 0;
  RandomSource counter_random{[](void* ctx, std::span<std::uint8_t> out) noexcept {
                                auto* c = static_cast<std::uint64_t*>(ctx);
                                for (auto& b : out) {
                                  b = static_cast<std::uint8_t>(++*c);
                                }
                              },
                              &fixed_random};
  for (std::size_t sel = 0; sel < fuzz::kDtlsConfigCount; ++sel) {
    const fuzz::DtlsConfig config = fuzz::dtls_config(static_cast<std::uint8_t>(sel));
    if (config.encrypt_then_mac != ((sel & 1) != 0)) {
      continue;  // non-CBC ciphers map odd selectors onto even ones
    }
    const dtls::KeyBlock kb = fuzz::dtls_key_block(config.cipher);
    dtls::RecordOptions options = fuzz::dtls_options(config);
    options.random = counter_random;
    dtls::RecordSealer sealer(config.cipher, kb.keys(dtls::Direction::kClientWrite), 1, options, 5);
    std::vector<std::uint8_t> input{static_cast<std::uint8_t>(sel)};
    for (std::size_t n : {0u, 17u, 64u}) {
      std::vector<std::uint8_t> plaintext(n, static_cast<std::uint8_t>('a' + n % 26));
      std::vector<std::uint8_t> record(sealer.sealed_size(n));
      if (!sealer.seal(dtls::ContentType::kApplicationData, plaintext, record)) {
        return 1;
      }
      input.insert(input.end(), record.begin(), record.end());
    }
    std::ofstream(dir / ("seed-" + std::to_string(sel)), std::ios::binary)
        .write(reinterpret_cast<const char*>(input.data()), static_cast<std::streamsize>(input.size()));
  }
  return 0;
}
