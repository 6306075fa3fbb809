#include "support/vector_file.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "support/hex.h"

namespace wireseal::test {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) {
    return "";
  }
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

const std::string& VectorRecord::get(const std::string& key) const {
  auto it = fields.find(key);
  if (it == fields.end()) {
    throw std::out_of_range("vector at line " + std::to_string(line) + " has no field " + key);
  }
  return it->second;
}

std::vector<std::uint8_t> VectorRecord::hex(const std::string& key) const {
  return from_hex(get(key));
}

std::vector<VectorRecord> read_vector_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open vector file " + path.string());
  }
  std::vector<VectorRecord> records;
  std::map<std::string, std::string> section;
  VectorRecord current;
  bool open = false;
  std::string raw;
  int line_no = 0;
  auto flush = [&] {
    if (open) {
      records.push_back(current);
    }
    current = VectorRecord{};
    open = false;
  };
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = trim(raw);
    if (line.empty()) {
      flush();
      continue;
    }
    if (line[0] == '#') {
      continue;
    }
    if (line.front() == '[' && line.back() == ']') {
      flush();
      const std::string inner = line.substr(1, line.size() - 2);
      const auto eq = inner.find('=');
      if (eq == std::string::npos) {
        section[trim(inner)] = "";
      } else {
        section[trim(inner.substr(0, eq))] = trim(inner.substr(eq + 1));
      }
      continue;
    }
    if (!open) {
      current.section = section;
      current.line = line_no;
      open = true;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      current.fields[line] = "";
    } else {
      current.fields[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
  }
  flush();
  return records;
}

std::filesystem::path cavp_dir() {
  if (const char* env = std::getenv("WIRESEAL_CAVP_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return WIRESEAL_DEFAULT_CAVP_DIR;
}

std::filesystem::path vectors_dir() { return WIRESEAL_VECTORS_DIR; }

}  // namespace wireseal::test
