#include "planner/sweep/sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <tbb/parallel_for.h>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace fs = std::filesystem;

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  Shard s;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    std::size_t used = 0;
    s.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("trailing text");
    s.count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("trailing text");
  } catch (const std::logic_error&) {
    throw InputError("--shard", "$", "\"" + text + "\"", "K/N with integers 1 <= K <= N, for example 2/4");
  }
  if (s.count < 1 || s.index < 1 || s.index > s.count) {
    throw InputError("--shard", "$", "\"" + text + "\"", "K/N with integers 1 <= K <= N, for example 2/4");
  }
  return s;
}

std::vector<std::string> sweep_files(const std::vector<std::string>& arguments) {
  std::vector<std::string> files;
  for (const std::string& a : arguments) {
    const fs::path p(a);
    if (fs::is_regular_file(p)) {
      files.push_back(p.lexically_normal().string());
    } else if (fs::is_directory(p)) {
      std::size_t found = 0;
      for (const fs::directory_entry& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".json") {
          files.push_back(e.path().lexically_normal().string());
          ++found;
        }
      }
      if (found == 0) throw InputError(a, "$", "a folder without *.json files", "a scenario file or a folder of them");
    } else {
      throw InputError(a, "$", "a path that does not exist", "a scenario file or a folder of them");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::vector<std::string> shard_files(const std::vector<std::string>& files, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t i = static_cast<std::size_t>(shard.index - 1); i < files.size(); i += static_cast<std::size_t>(shard.count)) {
    out.push_back(files[i]);
  }
  return out;
}

SweepDocument run_sweep(const std::vector<std::string>& files, const Catalog& catalog, const SweepOptions& options) {
  // Every file is read once up front so bad input fails the sweep before any planning, and again by
  // the worker that plans it, so no more than one scenario per thread is held at a time.
  for (const std::string& f : files) load_scenario(f, catalog);

  SweepDocument sweep;
  sweep.seed = options.run.seed;
  sweep.trials = options.run.trials;
  sweep.rows.resize(files.size());
  std::mutex progress;
  std::size_t done = 0;
  tbb::parallel_for(std::size_t{0}, files.size(), [&](std::size_t i) {
    PlanOptions o;
    o.run = options.run;
    const Scenario scenario = load_scenario(files[i], catalog);
    sweep.rows[i] = sweep_row(files[i], scenario, search_plan(scenario, catalog, o));
    if (options.progress) {
      const std::lock_guard<std::mutex> lock(progress);
      options.progress(++done, files.size());
    }
  });
  return sweep;
}

nlohmann::ordered_json sweep_json(const SweepDocument& sweep) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const SweepRow& r : sweep.rows) rows.push_back(row_json(r));
  j["scenarios"] = rows;
  j["seed"] = sweep.seed;
  j["trials"] = sweep.trials;
  return j;
}

SweepDocument read_sweep_json(const std::string& file) {
  const nlohmann::json j = io::parse_file(file);
  io::ObjectReader o(j, file, "$", io::ObjectReader::Keys::lenient);
  SweepDocument d;
  const nlohmann::json& rows = o.raw("scenarios");
  if (!rows.is_array()) o.fail("scenarios", "a list of sweep rows (the JSON `preflight sweep --format json` writes)");
  for (std::size_t i = 0; i < rows.size(); ++i) d.rows.push_back(row_from_json(rows[i], file, "$.scenarios[" + std::to_string(i) + "]"));
  d.seed = static_cast<std::uint64_t>(o.integer("seed", 0, std::numeric_limits<std::int64_t>::max()));
  d.trials = static_cast<int>(o.integer("trials", 1, 10'000'000));
  return d;
}

SweepDocument merge_sweeps(const std::vector<SweepDocument>& shards, const std::vector<std::string>& files) {
  SweepDocument merged;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const SweepDocument& s = shards[i];
    if (i == 0) {
      merged.seed = s.seed;
      merged.trials = s.trials;
    } else if (s.seed != merged.seed || s.trials != merged.trials) {
      throw InputError(files[i], "$.seed", std::to_string(s.seed) + " with " + std::to_string(s.trials) + " trials",
                       "the seed and trials of " + files[0] + " (" + std::to_string(merged.seed) + ", " +
                           std::to_string(merged.trials) + "): shards of one sweep");
    }
    merged.rows.insert(merged.rows.end(), s.rows.begin(), s.rows.end());
  }
  std::stable_sort(merged.rows.begin(), merged.rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.file < b.file; });
  for (std::size_t i = 1; i < merged.rows.size(); ++i) {
    if (merged.rows[i].file == merged.rows[i - 1].file) {
      throw InputError(files.back(), "$.scenarios", "\"" + merged.rows[i].file + "\" twice", "shards with disjoint scenario files");
    }
  }
  return merged;
}

}  // namespace preflight
