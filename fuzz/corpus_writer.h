#pragma once
// What the corpus generators share: writing one seed file into corpus/<target>/.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

namespace wireseal::fuzz {

inline void write_seed(const std::filesystem::path& root, const std::string& target,
                       const std::string& name, std::span<const std::uint8_t> bytes) {
  const std::filesystem::path dir = root / target;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace wireseal::fuzz
