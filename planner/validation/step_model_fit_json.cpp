#include "planner/validation/step_model_fit_json.hpp"

#include <cmath>

namespace preflight::validation {

namespace {

double rounded(double v) { return std::round(v * 1e6) / 1e6; }

nlohmann::ordered_json interval_json(const StepTimeInterval& in) {
  return {{"low", rounded(in.low)}, {"high", rounded(in.high)}, {"rows", in.rows}};
}

}  // namespace

nlohmann::ordered_json sustained_throughput_json(const SustainedThroughput& t) {
  return {{"share", rounded(t.share)},
          {"interval", interval_json(t.interval)},
          {"held_out",
           {{"families", t.families},
            {"median_absolute_error", rounded(t.held_out_median_absolute)},
            {"mean_signed_error", rounded(t.held_out_mean_signed)}}},
          {"basis", t.basis}};
}

nlohmann::ordered_json step_model_fit_json(const FitReport& report, const std::string& as_of) {
  const StepModelFit& f = report.fit;
  nlohmann::ordered_json j;
  j["source"] = f.source;
  j["as_of"] = as_of;
  j["data"] = "../shared/validation: llm_foundry/measured_throughput.csv, vtrain/ground_truth_{single,multi}_node_a100.csv, "
              "korthikanti_2022.csv, narayanan_2021_table1.csv; published/long_sequence_runs.csv (NeMo, torchtitan)";
  nlohmann::ordered_json kernels, attention, host;
  for (const auto& [arch, name] : kGpuArchitectureNames) kernels[std::string(name)] = rounded(f.kernels(arch));
  for (const auto& [arch, name] : kGpuArchitectureNames) attention[std::string(name)] = rounded(f.attention(arch));
  for (const auto& [stack, name] : kFrameworkNames) host[std::string(name)] = rounded(f.host(stack));
  j["kernel_efficiency"] = kernels;
  j["attention_efficiency"] = attention;
  j["host_time"] = host;
  j["overlapped_compute_slowdown"] = rounded(f.overlapped_compute_slowdown.value_or(0.0));
  nlohmann::ordered_json intervals = nlohmann::ordered_json::array();
  for (const auto& [stack, stack_name] : kFrameworkNames) {
    for (const auto& [arch, arch_name] : kGpuArchitectureNames) {
      const StepTimeInterval& in = f.intervals[static_cast<std::size_t>(stack)][static_cast<std::size_t>(arch)];
      if (in.rows == 0) continue;
      nlohmann::ordered_json e{{"framework", std::string(stack_name)}, {"architecture", std::string(arch_name)}};
      e.update(interval_json(in));
      intervals.push_back(e);
    }
  }
  j["intervals"] = intervals;
  j["unseen_interval"] = interval_json(f.unseen_interval);
  j["calibrated_interval"] = interval_json(f.calibrated_interval);
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const FittedParameter& p : report.parameters) {
    params.push_back({{"name", p.name},
                      {"value", rounded(p.value)},
                      {"range", {p.low, p.high}},
                      {"rows", p.rows},
                      {"datasets", p.datasets}});
  }
  j["parameters"] = params;
  if (f.sustained.interval.rows > 0) j["sustained_throughput"] = sustained_throughput_json(f.sustained);
  return j;
}

}  // namespace preflight::validation
