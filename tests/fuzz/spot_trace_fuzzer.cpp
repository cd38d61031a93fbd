// The spot-trace reader, io::read_spot_trace(path): Bamboo CSV (`time_ms,add|remove,node`), Bamboo's
// gcloud counts (`YYYY-MM-DD, HH:MM:SS, count`) and Parcae JSON lines, sniffed line by line. Built
// three times (spot_trace_bamboo_fuzzer, spot_trace_gcloud_fuzzer, spot_trace_parcae_fuzzer), each
// run on its format's corpus and dictionary (scripts/fuzz.sh).
//
// The bytes are written as trace.csv; when the trace reads, it replaces the trace of a fixed scenario
// (fixtures/trace_scenario.json, loaded once) and what `simulate` runs with it follows, for spot jobs
// of 1, 4 and 32 nodes: the trace's statistics, each job size's exposure to its events, the run in
// closed form and the replay Monte Carlo (200 trials), and both renderings. The step is simulated
// once per job size at start-up: the trace does not change it. (scenario_fuzzer covers a scenario
// naming its trace.)

#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/spot_trace_reader.hpp"
#include "planner/report/simulate_report.hpp"
#include "planner/run/run_estimate.hpp"
#include "simulator/economics/job_exposure.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

constexpr int kTrials = 200;

struct Job {
  StrategyConfig config;
  Evaluation evaluation;
};

struct Setup {
  fs::path trace;
  Scenario scenario;  // its trace replaced by each input's
  std::vector<Job> jobs;
};

Setup& setup() {
  static Setup s = [] {
    const fs::path dir = scratch_dir() / "trace";
    Setup s;
    s.trace = dir / "trace.csv";
    write_file(s.trace, "0,add,node1\n0,add,node2\n3600000,remove,node1\n");
    write_file(dir / "scenario.json", io::read_input_file(source_path("tests/fuzz/fixtures/trace_scenario.json"), "a fixture"));
    s.scenario = load_scenario(dir / "scenario.json", bundled_catalog());
    const NodeSpec& node = s.scenario.clusters.front();
    for (const int nodes : {1, 4, 32}) {
      Job job;
      const nlohmann::json config{{"instance", node.id}, {"nodes", nodes}, {"pricing", "spot"}};
      job.config = read_strategy_config({config, "fuzz-config", "$"}, s.scenario, bundled_catalog());
      const Machine machine(node, s.scenario.training().precision);
      job.evaluation = evaluate(s.scenario.workload, machine, job.config, s.scenario.constraints.vram_headroom);
      s.jobs.push_back(std::move(job));
    }
    return s;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  Setup& s = setup();
  write_file(s.trace, input);

  std::optional<SpotTrace> trace;
  if (!holds_contract("read_spot_trace", [&] { trace = io::read_spot_trace(s.trace); }, one_of({s.trace.string()}))) {
    return 0;
  }
  // What load_scenario makes of a scenario naming the trace (scenario_fuzzer covers the naming).
  Scenario& scenario = s.scenario;
  scenario.preemption.trace = std::move(*trace);
  const SpotTrace& replayed = *scenario.preemption.trace;
  holds_contract("simulate with the trace", [&] {
    if (replayed.total_removals() < 0 || replayed.removals_per_node_hour() < 0.0 || replayed.per_node_hazard_per_hour() < 0.0) {
      violation("a trace with negative statistics");
    }
    const NodeSpec& node = scenario.clusters.front();
    const Machine machine(node, scenario.training().precision);
    for (const Job& job : s.jobs) {
      exposure_of(replayed, job.config.nodes);
      const RunEstimate run = estimate_run(scenario, machine, job.config, *job.evaluation.step, {1, kTrials});
      if (simulate_text(scenario, node, job.evaluation, run).empty() ||
          simulate_json(scenario, node, job.evaluation, run, 1, kTrials).dump(2).empty()) {
        violation("simulate rendered nothing");
      }
    }
  }, any_file());
  return 0;
}
