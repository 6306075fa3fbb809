// GStreamer's srtpenc and srtpdec (gstreamer1.0-plugins-bad, which links libsrtp2.so.1) on the
// drop-in: gst-launch-1.0 pipelines run by the test with LD_LIBRARY_PATH pointing at it, for
// each cipher and tag GStreamer offers. For each one:
//   - srtpenc ! srtpdec in one pipeline on the drop-in gives back exactly the source audio;
//   - SRTP written by the drop-in (RFC 4571 framing into a file) is decoded by GStreamer on
//     the real libsrtp2 into the source audio, and the other way round;
//   - both libraries write the very same SRTP bytes.
// LD_DEBUG=libs proves, each time, which libsrtp2 the pipeline loaded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "dropin_process.h"

namespace wireseal::test {
namespace {

using interop::find_program;

struct Cipher {
  const char* name;
  const char* rtp_cipher;
  const char* rtp_auth;
  const char* rtcp_auth;  // 80 bits for the 32-bit profiles too (RFC 5764 §4.1.2)
  std::size_t key_len;    // master key + salt
};

constexpr Cipher kCiphers[] = {
    {"aes128_80", "aes-128-icm", "hmac-sha1-80", "hmac-sha1-80", 30},
    {"aes128_32", "aes-128-icm", "hmac-sha1-32", "hmac-sha1-80", 30},
    {"aes256_80", "aes-256-icm", "hmac-sha1-80", "hmac-sha1-80", 46},
    {"aes256_32", "aes-256-icm", "hmac-sha1-32", "hmac-sha1-80", 46},
    {"gcm128", "aes-128-gcm", "null", "null", 28},
    {"gcm256", "aes-256-gcm", "null", "null", 44},
};

constexpr const char* kAudio =
    "audiotestsrc num-buffers=150 samplesperbuffer=160 wave=sine freq=700 ! "
    "audio/x-raw,format=S16BE,rate=8000,channels=1";

std::string key_hex(std::size_t len) {
  std::string k;
  for (std::size_t i = 0; i < len; ++i) {
    static const char* kDigits = "0123456789abcdef";
    k += kDigits[(i * 7 + 3) % 16];
    k += kDigits[(i * 5 + 1) % 16];
  }
  return k;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SrtpGstreamer : public ::testing::TestWithParam<Cipher> {
 protected:
  void SetUp() override {
    if (!kHostLoadsDropIn) {
      GTEST_SKIP() << kForeignDropIn;
    }
    gst_launch_ = find_program("gst-launch-1.0");
    ASSERT_FALSE(gst_launch_.empty()) << "gst-launch-1.0 is not installed (gstreamer1.0-tools)";
    dir_ = std::filesystem::temp_directory_path() /
           ("wireseal-gst-" + std::to_string(::getpid()) + "-" + GetParam().name);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // launch runs one pipeline on the drop-in or the real libsrtp2; the pipeline must end.
  void launch(bool drop_in, const std::string& pipeline, const std::string& tag) {
    std::vector<std::string> argv = {gst_launch_, "-q"};
    std::istringstream words(pipeline);
    for (std::string w; words >> w;) {
      argv.push_back(w);
    }
    const RunResult r = run_on(drop_in ? Library::kDropIn : Library::kReal, argv,
                               {"GST_REGISTRY=" + path("registry.bin")});
    ASSERT_EQ(r.status, 0) << tag << ": " << r.out
                           << r.err.substr(r.err.size() > 4000 ? r.err.size() - 4000 : 0);
    ASSERT_EQ(r.loaded_drop_in, drop_in) << tag << ": loaded the wrong libsrtp2";
  }

  std::string caps() const {
    const Cipher& c = GetParam();
    return "application/x-srtp-stream,media=audio,payload=96,clock-rate=8000,encoding-name=L16,"
           "channels=1,ssrc=(uint)4660,srtp-key=(buffer)" +
           key_hex(c.key_len) + ",srtp-cipher=" + c.rtp_cipher + ",srtp-auth=" + c.rtp_auth +
           ",srtcp-cipher=" + c.rtp_cipher + ",srtcp-auth=" + c.rtcp_auth;
  }

  std::string encoder() const {
    const Cipher& c = GetParam();
    return std::string(kAudio) +
           " ! rtpL16pay ssrc=4660 seqnum-offset=1 timestamp-offset=0 ! srtpenc key=" +
           key_hex(c.key_len) + " rtp-cipher=" + c.rtp_cipher + " rtp-auth=" + c.rtp_auth +
           " rtcp-cipher=" + c.rtp_cipher + " rtcp-auth=" + c.rtcp_auth;
  }

  // encode writes the SRTP stream (RFC 4571 framing) to `file`.
  void encode(bool drop_in, const std::string& file) {
    launch(drop_in, encoder() + " ! rtpstreampay ! filesink location=" + file,
           drop_in ? "encode-ours" : "encode-real");
  }
  void decode(bool drop_in, const std::string& file, const std::string& out) {
    launch(drop_in,
           "filesrc location=" + file + " ! " + caps() +
               " ! rtpstreamdepay ! srtpdec ! rtpL16depay ! filesink location=" + out,
           drop_in ? "decode-ours" : "decode-real");
  }

  std::string gst_launch_;
  std::filesystem::path dir_;
};

TEST_P(SrtpGstreamer, SrtpencToSrtpdecAndAcrossLibraries) {
  launch(false, std::string(kAudio) + " ! filesink location=" + path("source.raw"), "source");
  const std::string source = read_file(path("source.raw"));
  ASSERT_EQ(source.size(), 150u * 320u);

  launch(true, encoder() + " ! srtpdec ! rtpL16depay ! filesink location=" + path("loop.raw"),
         "loop");
  EXPECT_TRUE(read_file(path("loop.raw")) == source) << "srtpenc ! srtpdec on the drop-in";

  encode(true, path("ours.srtp"));
  encode(false, path("real.srtp"));
  const std::string ours = read_file(path("ours.srtp"));
  ASSERT_FALSE(ours.empty());
  EXPECT_TRUE(ours == read_file(path("real.srtp"))) << "the two libraries' SRTP differs";

  decode(false, path("ours.srtp"), path("real-reads-ours.raw"));
  EXPECT_TRUE(read_file(path("real-reads-ours.raw")) == source);
  decode(true, path("real.srtp"), path("ours-reads-real.raw"));
  EXPECT_TRUE(read_file(path("ours-reads-real.raw")) == source);
}

INSTANTIATE_TEST_SUITE_P(Ciphers, SrtpGstreamer, ::testing::ValuesIn(kCiphers),
                         [](const ::testing::TestParamInfo<Cipher>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace wireseal::test
