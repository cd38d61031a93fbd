#include "planner/whole_run/published_whole_runs.hpp"

#include <algorithm>

#include "planner/validation/validation_csv.hpp"

namespace preflight::whole_run {

namespace {

using validation::CsvRow;

constexpr int kMaxGpus = 1'000'000;
constexpr int kMaxNodes = 4096;  // search.max_nodes' bound

bool yes_no(const CsvRow& row, const std::string& column) {
  const std::string& v = row.text(column);
  if (v != "yes" && v != "no") row.fail(column, "yes or no");
  return v == "yes";
}

nlohmann::json scenario_of(const CsvRow& row, int gpus) {
  nlohmann::json training = {{"tokens", row.number("tokens")},
                             {"seq_len", row.integer("seq_len")},
                             {"global_batch_size", row.integer("global_batch")},
                             {"precision", row.text("precision")},
                             {"optimizer", "adamw"},
                             {"method", "full"}};
  // Whole nodes of the catalog's stand-in; the scenario reader checks the instance, and the search
  // refuses a count its nodes cannot hold.
  nlohmann::json fixed = {{"instance", row.text("instance")}, {"gpus", gpus}, {"pricing", "on_demand"},
                          {"framework", row.text("framework")}};
  nlohmann::json layout = nlohmann::json::object();
  for (const char* column : {"tp", "pp"}) {
    if (!row.empty(column)) layout[column] = row.integer(column);
  }
  if (!layout.empty()) fixed["parallelism"] = layout;
  // What the source publishes of the rest of its configuration; blank cells are searched.
  if (!row.empty("micro_batch")) fixed["micro_batch"] = row.integer("micro_batch");
  if (!row.empty("recompute")) fixed["activation_checkpointing"] = row.text("recompute");
  return {{"name", row.text("id")},
          {"model", row.text("model")},
          {"training", training},
          {"constraints", {{"min_completion_probability", 0.5}}},
          {"search", {{"fixed", fixed}, {"max_nodes", std::min(gpus, kMaxNodes)}}}};
}

}  // namespace

std::vector<PublishedWholeRun> read_whole_runs(const std::filesystem::path& file) {
  std::vector<PublishedWholeRun> out;
  for (const CsvRow& row : validation::read_validation_csv(file)) {
    PublishedWholeRun r;
    r.id = row.text("id");
    r.family = row.text("family");
    const std::int64_t gpus = row.integer("gpus");
    if (gpus > kMaxGpus) row.fail("gpus", "a count of GPUs from 1 to 1,000,000");
    r.gpus = static_cast<int>(gpus);
    r.gpus_published = yes_no(row, "gpus_published");
    r.published_gpu_hours = row.number("published_gpu_hours");
    const std::string& from = row.text("gpu_hours_from");
    if (from != "wall_time" && from != "throughput") row.fail("gpu_hours_from", "wall_time or throughput");
    r.from_throughput = from == "throughput";
    r.basis = row.text("basis");
    r.scenario = scenario_of(row, r.gpus);
    r.file = file;
    out.push_back(std::move(r));
  }
  return out;
}

std::filesystem::path whole_runs_file() {
  const std::filesystem::path here = std::filesystem::path(PREFLIGHT_PUBLISHED_DATA) / "whole_runs.csv";
  if (std::filesystem::exists(here)) return here;
  return std::filesystem::path(PREFLIGHT_INSTALLED_PUBLISHED_DATA) / "whole_runs.csv";
}

}  // namespace preflight::whole_run
