#pragma once
// run_on runs a program on the real libsrtp2.so.1 or on wireseal's drop-in (LD_LIBRARY_PATH),
// each time in its own process, and reports what it printed and which library the dynamic
// loader mapped (LD_DEBUG=libs), so a test can never compare libsrtp with itself unawares.
#include <chrono>
#include <string>
#include <vector>

namespace wireseal::test {

enum class Library { kReal, kDropIn };

struct RunResult {
  int status = -1;  // exit status; -1 if it did not end in time
  std::string out;  // stdout
  std::string err;  // stderr, the loader's trace included
  bool loaded_drop_in = false;
};

// run_on runs argv (argv[0] an absolute path) with `env` (NAME=value entries) added.
RunResult run_on(Library library, const std::vector<std::string>& argv,
                 const std::vector<std::string>& env = {},
                 std::chrono::seconds timeout = std::chrono::seconds(60));

// drop_in_path is the drop-in's libsrtp2.so.1 in the build tree.
std::string drop_in_path();

// kHostLoadsDropIn is false in a cross build: the drop-in is then built for the target, and
// the programs these tests run it under (gst-launch-1.0, python3) are the build machine's, whose
// loader cannot map a foreign library. Their tests are reported as skipped there, with this
// reason; the drop-in itself is still tested on the target through srtp_api_driver.
inline constexpr bool kHostLoadsDropIn = WIRESEAL_CROSS_BUILD == 0;
inline constexpr const char* kForeignDropIn =
    "cross build: the host's gst-launch-1.0 and python3 cannot load the target's libsrtp2.so.1";

// scratch_path is a per-process path under the temporary directory.
std::string scratch_path(const std::string& name);

}  // namespace wireseal::test
