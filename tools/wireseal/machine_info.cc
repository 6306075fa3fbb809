#include "machine_info.h"

#include <fmt/chrono.h>
#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <exception>
#include <fstream>
#include <thread>
#include <utility>

#include "wireseal/crypto/backend.h"

namespace wireseal::cli {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) {
        return line.substr(colon + 2);
      }
    }
  }
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}", __VERSION__);
#else
  return "unknown";
#endif
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

// cpu_mask says what WIRESEAL_CPU_DISABLE asked for and took away ("" when unset), so a run
// made with a mask can never pass for one on the full CPU.
std::string cpu_mask(const crypto::KernelReport& report) {
  if (report.mask_spec.empty()) {
    return "";
  }
  std::string out =
      fmt::format("WIRESEAL_CPU_DISABLE={} disables: {}", report.mask_spec, report.mask_disabled);
  if (!report.mask_unknown.empty()) {
    out += fmt::format(" (unknown, ignored: {})", report.mask_unknown);
  }
  return out;
}

// kernels names the variant each feature-dependent kernel family runs here.
std::string kernels(const crypto::KernelReport& report) {
  std::string out = fmt::format("native {}, hmac {}, hmac batches {}, ipsec-mb {}",
                                report.native_aes, report.hmac, report.hmac_batch, report.ipsec_mb);
  if (report.aes_gcm_batch_max != 0) {
    out += fmt::format(", gcm batches vaes-x8 (<= {} B)", report.aes_gcm_batch_max);
  }
  return out;
}

}  // namespace

MachineInfo collect_machine_info() {
  MachineInfo info;
  info.cpu_model = cpu_model();
  info.cores = std::thread::hardware_concurrency();
  info.date = utc_now();
  info.compiler = compiler();
  info.wireseal_version = WIRESEAL_VERSION;
  const crypto::KernelReport report = crypto::kernel_report();
  info.cpu_features = report.cpu_features;
  info.cpu_mask = cpu_mask(report);
  info.kernels = kernels(report);
  const std::pair<crypto::Primitive, const char*> primitives[] = {
      {crypto::Primitive::kAesGcm, "aes-gcm"},
      {crypto::Primitive::kAesCcm, "aes-ccm"},
      {crypto::Primitive::kChaCha20Poly1305, "chacha20-poly1305"},
      {crypto::Primitive::kAesCtr, "aes-ctr"},
      {crypto::Primitive::kAesCbc, "aes-cbc"},
      {crypto::Primitive::kAesCmac, "aes-cmac"},
  };
  for (const auto& [primitive, name] : primitives) {
    try {
      info.backends[name] =
          std::string(crypto::to_string(crypto::resolve(primitive, crypto::Backend::kAuto)));
    } catch (const std::exception& e) {
      info.backends[name] = fmt::format("unavailable ({})", e.what());
    }
  }
  return info;
}

}  // namespace wireseal::cli
