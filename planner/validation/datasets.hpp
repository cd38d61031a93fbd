#pragma once
// Every shipped set of published measurements, each row ready to simulate: llm-foundry's 201 MPT runs,
// vTrain's 1,440 single-node and 109 multi-node Megatron-DeepSpeed iterations, Korthikanti et al.
// 2022's iteration times and Narayanan et al. 2021's Table 1. The settings each publication states
// (and what the tests assume where it is silent) are in the dataset's file.

#include <filesystem>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/validation/validation_case.hpp"

namespace preflight::validation {

// The published measurements beside the checkout (../shared/validation), else an installed copy.
std::filesystem::path default_data_dir();

Dataset llm_foundry_dataset(const std::filesystem::path& data_dir, const Catalog& catalog);
Dataset vtrain_single_node_dataset(const std::filesystem::path& data_dir, const Catalog& catalog);
Dataset vtrain_multi_node_dataset(const std::filesystem::path& data_dir, const Catalog& catalog);
Dataset korthikanti_dataset(const std::filesystem::path& data_dir, const Catalog& catalog);
Dataset narayanan_dataset(const std::filesystem::path& data_dir, const Catalog& catalog);

// The long-sequence runs this repository ships (published/long_sequence_runs.csv): one dataset per
// source, nemo-h100, nemo-b200 and torchtitan-h100.
std::filesystem::path published_runs_file();
std::vector<Dataset> long_sequence_datasets(const std::filesystem::path& file, const Catalog& catalog);

// The RL post-training runs this repository ships (published/rl_runs.csv, models it names under
// published/rl_models/): one dataset, checked by `validate` and never fitted.
std::filesystem::path rl_runs_file();
std::vector<Dataset> rl_datasets(const std::filesystem::path& file, const Catalog& catalog);
// Each RL row's prediction by phase, as CSV (what scripts/fit_rl_trainer_share.py fits the trainer
// shares to): id, trainer, placement, quantity, measured, then the step and its phases in seconds, the
// trainer share they were simulated at and the step's tokens per GPU.
std::string rl_rows_csv(const std::filesystem::path& file, const Catalog& catalog, const StepModelFit* fit);

// All of them, in that order, the long-sequence runs last. Throws InputError naming a missing or malformed file.
std::vector<Dataset> load_datasets(const std::filesystem::path& data_dir, const Catalog& catalog);

}  // namespace preflight::validation
