// A sweep of 1,000 scenarios: the bundled ones replicated with token counts and deadlines scaled from
// 0.5x to 2x. Target (sweep issue): under 5 minutes on two cores, with memory flat in the number of
// scenarios (only one row per scenario is kept). Reports the peak resident memory after 100 and after
// 1,000 scenarios.

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <tbb/global_control.h>

#include "planner/sweep/sweep.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// `count` scenarios written under a temporary folder, varied copies of scenarios/*.json.
std::vector<std::string> replicated_scenarios(int count) {
  const fs::path dir = fs::temp_directory_path() / ("preflight-sweep-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<nlohmann::json> bundled;
  for (const auto& e : fs::directory_iterator(fs::path(PREFLIGHT_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    bundled.push_back(nlohmann::json::parse(in));
  }
  std::sort(bundled.begin(), bundled.end(), [](const auto& a, const auto& b) { return a.at("name") < b.at("name"); });
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    nlohmann::json s = bundled[static_cast<std::size_t>(i) % bundled.size()];
    const double scale = 0.5 + 1.5 * static_cast<double>((i * 7919) % 1000) / 999.0;
    s["name"] = s.at("name").get<std::string>() + "-" + std::to_string(i);
    s["training"]["tokens"] = s.at("training").at("tokens").get<double>() * scale;
    if (s.contains("constraints") && s["constraints"].contains("deadline_hours")) {
      s["constraints"]["deadline_hours"] = s["constraints"]["deadline_hours"].get<double>() * (2.5 - scale);
    }
    const fs::path file = dir / ("scenario-" + std::to_string(1000 + i) + ".json");
    std::ofstream(file) << s.dump();
    files.push_back(file.string());
  }
  return files;
}

void BM_Sweep1000ScenariosTwoThreads(benchmark::State& state) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  const Catalog catalog = Catalog::load(PREFLIGHT_CATALOG_DIR);
  const std::vector<std::string> files = replicated_scenarios(1000);
  const std::vector<std::string> first(files.begin(), files.begin() + 100);
  double rss_100 = 0.0;
  std::size_t feasible = 0;
  for (auto _ : state) {
    state.PauseTiming();
    rss_100 = (run_sweep(first, catalog, SweepOptions{}), peak_rss_mib());
    state.ResumeTiming();
    const SweepDocument sweep = run_sweep(files, catalog, SweepOptions{});
    feasible = static_cast<std::size_t>(std::count_if(sweep.rows.begin(), sweep.rows.end(), [](const SweepRow& r) { return r.feasible; }));
  }
  state.counters["scenarios"] = static_cast<double>(files.size());
  state.counters["feasible"] = static_cast<double>(feasible);
  state.counters["peak_rss_MiB_after_100"] = rss_100;
  state.counters["peak_rss_MiB_after_1000"] = peak_rss_mib();
  fs::remove_all(fs::path(files.front()).parent_path());
}
BENCHMARK(BM_Sweep1000ScenariosTwoThreads)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace preflight
