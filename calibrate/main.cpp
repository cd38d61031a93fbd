// preflight-calibrate: measures the machine it runs on and writes a calibration profile
// (simulator/spec/calibration_profile.hpp) that `plan`, `simulate` and `sweep` use with
// --profile in place of named defaults. Exit codes: 0 profile written, 2 bad usage or a failed
// measurement (the message says which).
//
// Host benchmarks (checkpoint write/read bandwidth, the CPU AdamW step of optimizer offload, host
// memory bandwidth) run everywhere. GPU benchmarks (cuBLASLt matmuls, device memory, host<->device
// copies, NCCL collectives) are built where the CUDA toolkit is found and run when a GPU is visible;
// without one the profile has the host sections only (exit 0), unless --gpus demanded GPUs (exit 3).

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "calibrate/from_log.hpp"
#include "calibrate/host/host_benchmarks.hpp"
#if PREFLIGHT_WITH_GPU
#include "calibrate/gpu/gpu_benchmarks.hpp"
#endif
#include "planner/catalog/catalog.hpp"
#include "planner/io/calibration_profile_io.hpp"
#include "planner/io/output_file.hpp"
#include "simulator/spec/errors.hpp"

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The profile to `out`, whole or not at all; stdout when `out` is empty.
void write_profile(const preflight::CalibrationProfile& p, const std::string& out) {
  const std::string profile = preflight::io::calibration_profile_json(p).dump(2) + "\n";
  if (out.empty()) {
    preflight::io::write_standard_output(profile);
  } else {
    preflight::io::write_file_atomically(out, profile);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"preflight-calibrate: measure this machine and write a calibration profile"};
  std::string out;
  std::string gpu;
  std::string checkpoint_dir = std::filesystem::temp_directory_path().string();
  bool quick = false;
  int gpus = 0;
  preflight::calibrate::FromLogOptions from_log;
  app.add_option("--out", out, "Write the profile here (default: stdout)");
  app.add_option("--gpus", gpus, "Use this many GPUs and fail (exit 3) when fewer are visible; default: all visible, if any")
      ->check(CLI::Range(1, 4096));
  app.add_option("--gpu", gpu, "Catalog id of this machine's GPU (`preflight catalog gpus`): the profile applies to machines with it");
  app.add_option("--checkpoint-dir", checkpoint_dir, "Where to time checkpoint writes: the storage checkpoints will use");
  app.add_flag("--quick", quick, "Smaller buffers and fewer repetitions");
  app.add_option("--from-log", from_log.log,
                 "Instead of benchmarks: fit this machine's factors to a trial run's log (Megatron-LM, torchtitan, "
                 "Hugging Face trainer_state.json or Trainer output); needs --scenario");
  app.add_option("--scenario", from_log.scenario, "With --from-log: the scenario the trial ran");
  app.add_option("--config", from_log.config, "With --from-log: the trial's config (default: the scenario's inline config)");
  app.add_option("--catalog", from_log.catalog, "With --from-log: catalog folder (default: the bundled catalogs/)");
  app.set_version_flag("--version", PREFLIGHT_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (app.count("--out") != 0 && out.empty()) throw preflight::InputError("--out", "", "an empty path", "a file path");
    if (!from_log.log.empty() || !from_log.scenario.empty()) {
      if (from_log.log.empty() || from_log.scenario.empty()) {
        throw preflight::InputError("--from-log", "", from_log.log.empty() ? "--scenario without --from-log" : "--from-log without --scenario",
                                    "both: the trial's log and the scenario it ran");
      }
      from_log.measured_at = utc_now();
      write_profile(preflight::calibrate::profile_from_log(from_log, std::cerr), out);
      return 0;
    }
    if (!gpu.empty()) {
      const preflight::Catalog catalog = preflight::Catalog::load(preflight::Catalog::default_dir());
      if (catalog.find_gpu(gpu) == nullptr) {
        throw preflight::InputError("--gpu", "$", "\"" + gpu + "\"", "a catalog GPU id: " + catalog.gpu_ids_text());
      }
    }
    preflight::CalibrationProfile p;
    p.machine.gpu = gpu;
    p.machine.host_cpu = cpu_model();
    p.measured_at = utc_now();
    std::ostringstream how;
    how << "preflight-calibrate " << PREFLIGHT_VERSION << (quick ? " --quick" : "") << ", checkpoints in " << checkpoint_dir;
#if PREFLIGHT_WITH_GPU
    std::string why;
    const auto measured = preflight::calibrate::measure_gpus({quick, gpus, quick ? 120.0 : 600.0}, why);
    if (measured) {
      const std::string detected = measured->machine.gpu;
      p.machine = measured->machine;
      p.machine.host_cpu = cpu_model();
      if (!gpu.empty()) p.machine.gpu = gpu;
      if (p.machine.gpu.empty()) {
        throw preflight::InputError("--gpu", "$", "nothing (\"" + measured->device_name + "\" is not a catalog GPU name)",
                                    "the catalog id of this GPU (`preflight catalog gpus`)");
      }
      p.matmul = measured->matmul;
      p.device_memory = measured->device_memory;
      p.host_device = measured->host_device;
      p.collectives = measured->collectives;
      how << "; " << p.machine.gpu_count << " x " << measured->device_name;
      for (const std::string& note : measured->notes) how << "; " << note;
    } else if (gpus > 0) {
      std::cerr << "error: --gpus " << gpus << ": " << why << "\n";
      return 3;
    } else {
      std::cerr << "preflight-calibrate: " << why << ": host benchmarks only\n";
      how << "; " << why << ": host benchmarks only";
    }
#else
    if (gpus > 0) {
      std::cerr << "error: --gpus " << gpus << ": this build has no GPU benchmarks (no CUDA toolkit at build time)\n";
      return 3;
    }
    how << "; host benchmarks only (built without the CUDA toolkit)";
#endif
    p.source = how.str();
    std::cerr << "preflight-calibrate: measuring host memory, CPU AdamW and checkpoint bandwidth"
              << (quick ? " (quick)" : "") << "...\n";
    p.host = preflight::calibrate::measure_host({quick, checkpoint_dir});
    write_profile(p, out);
    return 0;
  } catch (const preflight::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 2;
}
