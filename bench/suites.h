#pragma once
// The suite registry: every benchmark family wireseal has, in run order. The benchmark runner
// (bench_main.cc) registers through here, and `wireseal bench` runs and lists the benchmarks
// through the runner, so a new suite (dtls/, srtp/, smb/) becomes visible to both by adding
// one row to the table in suites.cc.

#include <span>
#include <string>
#include <string_view>

namespace wireseal::bench {

struct Suite {
  std::string_view name;  // "crypto/aead": the family, for --help and docs
  void (*register_fn)();  // registers the family's benchmarks with Google Benchmark
};

// suites lists every suite in run order.
std::span<const Suite> suites();

// register_all_suites registers every suite's benchmarks; calling it again does nothing.
void register_all_suites();

// One registration function per family (bench/<suite>_<family>.cc).
void register_crypto_aead();
void register_crypto_aes();
void register_crypto_mac();
void register_crypto_batch();
void register_dtls_record();
void register_dtls_batch();
void register_dtls_handshake();

// short_profile_filter is the filter `wireseal bench` uses in its short (default) profile when
// no --filter is given (the CLI asks the runner, --short_profile_filter): every registered
// benchmark, except that a suite whose grid is too large for the profile's time budget (dtls/:
// 13 ciphers x 2 directions x 11 sizes x 2 impls) runs only its representative subset from
// kShortSubsets in suites.cc. Empty when nothing is cut.
std::string short_profile_filter();

}  // namespace wireseal::bench
