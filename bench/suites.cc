#include "bench/suites.h"

#include <set>
#include <string_view>

#include "bench/bench_util.h"

namespace wireseal::bench {

// SMB suites (bench/smb_*.cc).
void register_smb_transform();
void register_smb_roundtrip();

// SRTP suites (bench/srtp_*.cc).
void register_srtp_protect();
void register_srtcp_protect();
void register_srtp_pion();
void register_srtp_libsrtp2_api();

namespace {

// Add dtls/, srtp/ and smb/ suites here; their benchmark names start with that prefix.
constexpr Suite kSuites[] = {
    {"crypto/aead", &register_crypto_aead},
    {"crypto/aes", &register_crypto_aes},
    {"crypto/mac", &register_crypto_mac},
    {"crypto/batch", &register_crypto_batch},
    {"dtls/record", &register_dtls_record},
    {"dtls/batch", &register_dtls_batch},
    {"dtls/handshake", &register_dtls_handshake},
    {"smb/transform", &register_smb_transform},
    {"smb/roundtrip", &register_smb_roundtrip},
    {"srtp/protect", &register_srtp_protect},
    {"srtp/rtcp", &register_srtcp_protect},
    {"srtp/pion", &register_srtp_pion},
    {"srtp/libsrtp2api", &register_srtp_libsrtp2_api},
};

// The short profile's subset of suites with large grids (POSIX extended regexes over the
// names); suites not listed run whole. dtls/: GCM, CCM, ChaCha20 and CBC-SHA256 (MtE) at 16,
// 256, 1400 and 8192 bytes, the batch rows at 256 and 1400, and GCM single and batched at
// 100 bytes. `--profile full` or any --filter runs the whole grid (bench/dtls_record.cc,
// bench/dtls_batch.cc).
struct ShortSubset {
  std::string_view prefix;   // "dtls/": the names the subset applies to
  std::string_view pattern;  // which of them the short profile runs
};
constexpr ShortSubset kShortSubsets[] = {
    {"dtls/",
     "^dtls/(aes128gcm|aes128ccm|chacha20poly1305|aes128cbcsha256)_(encrypt|decrypt)/[a-z]+/"
     "(16|256|1400|8192)$|^dtls/[a-z0-9]+_encrypt_batch8/[a-z]+/(256|1400)$|"
     "^dtls/aes128gcm_encrypt(_batch8)?/[a-z]+/100$|^dtls/handshake_"},
    // srtp/: the two profiles that matter (AES-CM-128/HMAC-SHA1-80, AES-128-GCM) protected
    // single and batched at 100, 1200 and 1400 bytes, unprotected at 100 and 1200, SRTCP both
    // ways at 100 bytes, and the IV build.
    {"srtp/",
     "^srtp/(aes128cm_sha1_80|aead_aes128gcm)_protect(_batch16)?/[a-z]+/(100|1200|1400)$|"
     "^srtp/(aes128cm_sha1_80|aead_aes128gcm)_unprotect(_batch16)?/[a-z]+/(100|1200)$|"
     "^srtp/(aes128cm_sha1_80|aead_aes128gcm)_rtcp_(un)?protect(_batch16)?/[a-z]+/100$|"
     "^srtp/generate_counter/"},
    // smb/: everything at 1 KB and 64 KB (the 1 MB rows take seconds each; --profile full).
    {"smb/", "^smb/.*/(1024|65536)$"},
};

}  // namespace

std::span<const Suite> suites() { return kSuites; }

void register_all_suites() {
  // Google Benchmark keeps registrations for the life of the process; registering twice
  // would run everything twice.
  static const bool registered = [] {
    for (const Suite& suite : kSuites) {
      suite.register_fn();
    }
    return true;
  }();
  static_cast<void>(registered);
}

std::string short_profile_filter() {
  register_all_suites();
  // Suite prefixes ("crypto/", "dtls/", ...) in first-registration order, each once.
  std::vector<std::string> prefixes;
  std::set<std::string> seen;
  for (const std::string& name : registered_names()) {
    std::string prefix = name.substr(0, name.find('/') + 1);
    if (seen.insert(prefix).second) {
      prefixes.push_back(std::move(prefix));
    }
  }
  std::string filter;
  bool cut = false;
  for (const std::string& prefix : prefixes) {
    std::string alternative = "^" + prefix;
    for (const ShortSubset& subset : kShortSubsets) {
      if (subset.prefix == prefix) {
        alternative = subset.pattern;
        cut = true;
      }
    }
    filter += (filter.empty() ? "" : "|") + alternative;
  }
  return cut ? filter : std::string();
}

}  // namespace wireseal::bench
