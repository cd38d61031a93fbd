// The catalog reader, Catalog::load(dir): gpus.json, storage.json, fitted/spot_interruptions.json,
// grid_intensity.json and instances/*.json. One input holds the files, split at "--8<--" lines
// (fuzz_support.hpp): gpus.json, storage.json, fitted/spot_interruptions.json, grid_intensity.json
// (each of these three absent when its part is empty), then up to five instances/f1.json ... f5.json. When the catalog reads, what `preflight catalog gpus|
// instances` prints of it (table and JSON), and what `check` and `simulate` run for a small scenario
// (fixtures/small_scenario.json: an inline model, so no models/ folder is needed) on its first
// instance on demand and its last on spot (prices, regions, spot figures, storage and egress prices).

#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/report/catalog_report.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

constexpr std::size_t kInstanceFiles = 5;

const fs::path& catalog_dir() {
  static const fs::path dir = [] {
    const fs::path d = scratch_dir() / "catalog";
    fs::create_directories(d / "instances");
    fs::create_directories(d / "fitted");
    return d;
  }();
  return dir;
}

// A market-data file from its part: absent when the part is empty (a catalog may ship without it).
std::optional<std::string> market_file(const fs::path& file, const std::vector<std::string_view>& parts, std::size_t i) {
  if (i >= parts.size() || parts[i].empty()) {
    fs::remove(file);
    return std::nullopt;
  }
  return write_file(file, parts[i]).string();
}

const Scenario& scenario() {
  static const Scenario s = load_scenario(source_path("tests/fuzz/fixtures/small_scenario.json"), bundled_catalog());
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  catalog_dir();
  scenario();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  constexpr std::size_t kFirstInstance = 4;
  const std::vector<std::string_view> parts = split_files(input, kFirstInstance + kInstanceFiles);
  std::vector<std::string> files{write_file(catalog_dir() / "gpus.json", parts[0]).string()};
  for (const auto& [name, i] : {std::pair{"storage.json", std::size_t{1}}, std::pair{"fitted/spot_interruptions.json", std::size_t{2}},
                                std::pair{"grid_intensity.json", std::size_t{3}}}) {
    if (std::optional<std::string> f = market_file(catalog_dir() / name, parts, i)) files.push_back(*f);
  }
  for (std::size_t i = kFirstInstance; i < kFirstInstance + kInstanceFiles; ++i) {
    const fs::path file = catalog_dir() / "instances" / ("f" + std::to_string(i - kFirstInstance + 1) + ".json");
    if (i < parts.size()) {
      files.push_back(write_file(file, parts[i]).string());
    } else {
      fs::remove(file);  // nothing of an earlier input stays
    }
  }

  std::optional<Catalog> catalog;
  if (!holds_contract("Catalog::load", [&] { catalog.emplace(Catalog::load(catalog_dir())); }, one_of(files))) return 0;

  holds_contract("catalog report", [&] {
    std::ostringstream warnings;
    for (const char* what : {"gpus", "instances"}) {
      catalog_report(*catalog, what, false, warnings);
      catalog_report(*catalog, what, true, warnings);
    }
  }, one_of(files));

  if (catalog->instances().empty()) return 0;
  for (const auto& [node, pricing] : {std::pair{&catalog->instances().front(), "on_demand"},
                                      std::pair{&catalog->instances().back(), "spot"}}) {
    const ConfigSource source{nlohmann::json{{"instance", node->id}, {"pricing", pricing}}, "fuzz-config", "$"};
    read_and_check_config(source, scenario(), *catalog, one_of({"fuzz-config", scenario().file.string()}));
  }
  return 0;
}
