#pragma once
// Published whole pre-training runs (published/whole_runs.csv): what a team reports having paid in
// GPU-hours for a run of known model, tokens, batch, sequence length and GPUs, each row turned into the
// scenario a user would write for it: the published machine fixed (the catalog's stand-in), the
// layout where published, on demand, no deadline. `validate` plans each and compares.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace preflight::whole_run {

struct PublishedWholeRun {
  std::string id;
  std::string family;           // the runs of one report ("llama-2"), summarised together
  int gpus = 0;
  bool gpus_published = false;  // false: the count is the file's stated assumption
  double published_gpu_hours = 0.0;
  // true: the team's GPU-hours are its tokens over a throughput it measured (LLaMA's Table 15), so
  // they hold the steps alone and are compared with the plan's stepping time; false: the GPU time
  // the run took, compared with the plan's expected hours (faults, checkpoints, start-up).
  bool from_throughput = false;
  std::string basis;            // where in the source the figure is
  nlohmann::json scenario;      // the scenario document of the run
  std::filesystem::path file;   // the CSV, which anchors the rows' relative model paths
};

// The file's rows; an InputError names the file, the line, the column and the bad value.
std::vector<PublishedWholeRun> read_whole_runs(const std::filesystem::path& file);

// published/whole_runs.csv in the source tree, else where `cmake --install` put it.
std::filesystem::path whole_runs_file();

}  // namespace preflight::whole_run
