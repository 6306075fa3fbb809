// pylibsrtp (python3-pylibsrtp, through which aiortc does SRTP) on the drop-in: the same script
// (tests/compat/pylibsrtp_peer.py) protects on one library and unprotects on the other, in
// separate processes, for each profile pylibsrtp offers; a template stream, a stream added for
// its own SSRC and removed, replays, a forgery, an unknown stream.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dropin_process.h"

namespace wireseal::test {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string run(Library library, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kPython, WIRESEAL_PYLIBSRTP_PEER};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run_on(library, argv);
  EXPECT_EQ(r.status, 0) << r.out << r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0);
  EXPECT_EQ(r.loaded_drop_in, library == Library::kDropIn) << "the wrong libsrtp2 was loaded";
  return r.out;
}

std::string unprotect(Library library, const std::string& profile, const std::string& packets) {
  const std::string file = scratch_path("pylibsrtp-" + profile);
  std::ofstream(file) << packets;
  std::string out = run(library, {"unprotect", profile, file});
  std::filesystem::remove(file);
  return out;
}

class SrtpPylibsrtp : public ::testing::TestWithParam<const char*> {};

TEST_P(SrtpPylibsrtp, EachLibraryReadsTheOther) {
  if (!kHostLoadsDropIn) {
    GTEST_SKIP() << kForeignDropIn;
  }
  ASSERT_TRUE(std::filesystem::exists(kPython));
  const std::string profile = GetParam();
  const std::string real = run(Library::kReal, {"protect", profile});
  const std::string ours = run(Library::kDropIn, {"protect", profile});
  ASSERT_FALSE(real.empty()) << "is python3-pylibsrtp installed?";
  EXPECT_TRUE(real == ours) << "the protected packets differ";
  const std::string reference = unprotect(Library::kReal, profile, real);
  EXPECT_NE(reference.find("rtp ok 400\nrtcp ok 40\n"), std::string::npos) << reference;
  EXPECT_NE(reference.find("replay: replay check failed"), std::string::npos) << reference;
  EXPECT_EQ(unprotect(Library::kDropIn, profile, real), reference) << "drop-in reading libsrtp";
  EXPECT_EQ(unprotect(Library::kReal, profile, ours), reference) << "libsrtp reading the drop-in";
}

// pylibsrtp's profile numbers: AES-CM-128 with 80- and 32-bit tags, AEAD AES-128/256-GCM.
INSTANTIATE_TEST_SUITE_P(Profiles, SrtpPylibsrtp, ::testing::Values("1", "2", "7", "8"));

}  // namespace
}  // namespace wireseal::test
