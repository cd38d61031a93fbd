#include "planner/validation/datasets.hpp"

namespace preflight::validation {

std::filesystem::path default_data_dir() {
  const std::filesystem::path beside(PREFLIGHT_VALIDATION_DATA);
  if (std::filesystem::is_directory(beside)) return beside;
  return std::filesystem::path(PREFLIGHT_INSTALLED_VALIDATION_DATA);
}

std::filesystem::path published_runs_file() {
  const std::filesystem::path here = std::filesystem::path(PREFLIGHT_PUBLISHED_DATA) / "long_sequence_runs.csv";
  if (std::filesystem::exists(here)) return here;
  return std::filesystem::path(PREFLIGHT_INSTALLED_PUBLISHED_DATA) / "long_sequence_runs.csv";
}

std::vector<Dataset> load_datasets(const std::filesystem::path& dir, const Catalog& catalog) {
  std::vector<Dataset> out;
  out.push_back(llm_foundry_dataset(dir, catalog));
  out.push_back(vtrain_single_node_dataset(dir, catalog));
  out.push_back(vtrain_multi_node_dataset(dir, catalog));
  out.push_back(korthikanti_dataset(dir, catalog));
  out.push_back(narayanan_dataset(dir, catalog));
  // A copy beside the other measurements (--data) wins over the repository's own.
  const std::filesystem::path beside = dir / "long_sequence_runs.csv";
  const std::filesystem::path runs = std::filesystem::exists(beside) ? beside : published_runs_file();
  for (Dataset& d : long_sequence_datasets(runs, catalog)) out.push_back(std::move(d));
  return out;
}

}  // namespace preflight::validation
