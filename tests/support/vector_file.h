#pragma once
// Reader for the "key = value" test-vector files used by NIST CAVP (.rsp), the
// python3-cryptography-vectors package, and our own tests/vectors/*.txt.
//
// A file is a sequence of records separated by blank lines. "[Name = value]" or "[Name]" lines
// set section attributes that apply to every following record until changed. "#" starts a
// comment line. A bare word line (such as CAVP's "FAIL") is stored as a key with empty value.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wireseal::test {

struct VectorRecord {
  std::map<std::string, std::string> fields;   // keys as written in the file (case kept)
  std::map<std::string, std::string> section;  // attributes from the latest [..] lines
  int line = 0;                                // line number of the record's first field

  bool has(const std::string& key) const { return fields.count(key) != 0; }
  // get returns the field or throws std::out_of_range naming the key and line.
  const std::string& get(const std::string& key) const;
  std::vector<std::uint8_t> hex(const std::string& key) const;
};

// read_vector_file parses `path`; throws std::runtime_error if it cannot be opened.
std::vector<VectorRecord> read_vector_file(const std::filesystem::path& path);

// cavp_dir is the root of the python3-cryptography-vectors data (env WIRESEAL_CAVP_DIR
// overrides the Debian location). Tests FAIL, not skip, when it is missing.
std::filesystem::path cavp_dir();
// vectors_dir is tests/vectors in the source tree.
std::filesystem::path vectors_dir();

}  // namespace wireseal::test
