// `wireseal version`: what this build is, the CPU features it uses (after any
// WIRESEAL_CPU_DISABLE mask), the kernel variants they select and which backend kAuto picks
// per primitive here.
#include <fmt/core.h>

#include "machine_info.h"
#include "subcommand.h"

namespace wireseal::cli {

Run set_up_version(CLI::App& /*command*/) {
  return [] {
    const MachineInfo info = collect_machine_info();
    fmt::print("wireseal {}\ncompiler {}\ncpu {} ({} cores)\n", info.wireseal_version,
               info.compiler, info.cpu_model, info.cores);
    fmt::print("cpu features {}\n", info.cpu_features.empty() ? "none" : info.cpu_features);
    if (!info.cpu_mask.empty()) {
      fmt::print("cpu mask {}\n", info.cpu_mask);
    }
    fmt::print("kernels {}\n", info.kernels);
    for (const auto& [primitive, backend] : info.backends) {
      fmt::print("backend {:<18} {}\n", primitive, backend);
    }
    return 0;
  };
}

}  // namespace wireseal::cli
