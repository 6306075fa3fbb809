#pragma once
// MachineInfo: what a benchmark result depends on besides the code, saved with every run so
// two result files can be judged comparable (same CPU, compiler, backends) before comparing.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace wireseal::cli {

struct MachineInfo {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  unsigned cores = 0;     // hardware threads
  std::string date;       // UTC, ISO 8601
  std::string compiler;   // compiler that built this tool
  std::string wireseal_version;
  std::string cpu_features;                     // the ISA extensions wireseal uses (masked)
  std::string cpu_mask;                         // WIRESEAL_CPU_DISABLE and what it disabled
  std::string kernels;                          // which kernel variants those features select
  std::map<std::string, std::string> backends;  // primitive -> backend kAuto resolves to
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MachineInfo, cpu_model, cores, date, compiler,
                                                wireseal_version, cpu_features, cpu_mask, kernels,
                                                backends)

MachineInfo collect_machine_info();

}  // namespace wireseal::cli
