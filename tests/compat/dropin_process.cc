#include "dropin_process.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "child_process.h"

namespace wireseal::test {

std::string drop_in_path() { return std::string(WIRESEAL_LIBSRTP2_DIR) + "/libsrtp2.so.1"; }

std::string scratch_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("wireseal-compat-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

RunResult run_on(Library library, const std::vector<std::string>& argv,
                 const std::vector<std::string>& env, std::chrono::seconds timeout) {
  std::vector<std::string> full = {"/usr/bin/env", "LD_DEBUG=libs"};
  if (library == Library::kDropIn) {
    full.push_back(std::string("LD_LIBRARY_PATH=") + WIRESEAL_LIBSRTP2_DIR);
  }
  full.insert(full.end(), env.begin(), env.end());
  full.insert(full.end(), argv.begin(), argv.end());
  const std::string err_path = scratch_path("stderr");
  RunResult r;
  {
    interop::ChildProcess child(full, err_path);
    if (child.drain(timeout)) {
      r.status = child.wait_exit(std::chrono::seconds(10)).value_or(-1);
    }
    r.out = child.output();
  }
  std::ifstream in(err_path, std::ios::binary);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_path);
  r.loaded_drop_in =
      r.err.find(std::string(WIRESEAL_LIBSRTP2_DIR) + "/libsrtp2.so.1") != std::string::npos;
  return r;
}

}  // namespace wireseal::test
