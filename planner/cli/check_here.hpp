#pragma once
// `check --here`: the step-0 check on the training machine itself. The machine is the one preflight
// runs on (its GPUs and their free memory through the CUDA driver, host memory, the disk), the model
// a local model folder (`--model DIR`: its config.json, and whether its tokenizer can pad a batch),
// the job the `--from` files. Without a GPU the catalog knows it says so and checks on the
// scenario's machine.

#include <iosfwd>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "planner/catalog/catalog.hpp"
#include "planner/cli/job_input.hpp"

namespace preflight::cli {

struct HereOptions {
  bool here = false;
  std::string model_dir;  // a Hugging Face model folder (or its config.json)
};

void add_here_options(CLI::App& command, HereOptions& options);

// --model as one more source of the job: the folder's config.json is the scenario's model; a
// tokenizer that cannot pad is a warning on `err`.
void add_model_folder(const HereOptions& options, ImportedSetup& imported, std::ostream& err);

// With --here and a GPU the catalog knows: this machine, added to the scenario as machine "local",
// and the config moved onto it (source.json's instance). Says on `err` what it found or why it
// uses the scenario's machine. The JSON report's "here" object.
nlohmann::ordered_json use_this_machine(const HereOptions& options, JobInput& job, ConfigSource& source, const Catalog& catalog,
                                        std::ostream& err);

}  // namespace preflight::cli
