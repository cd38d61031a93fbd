#include "planner/sweep/sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <tbb/parallel_for.h>

#include "planner/io/input_file.hpp"
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
  const std::string allowed = "a scenario file or a folder of them (every *.json in it a readable scenario)";
  for (const std::string& a : arguments) {
    const fs::path p(a);
    std::error_code error;
    if (fs::is_directory(p, error)) {
      std::size_t found = 0;
      fs::recursive_directory_iterator it(p, error), end;
      for (; !error && it != end; it.increment(error)) {
        if (it->path().extension() != ".json") continue;
        // A *.json the sweep cannot read (a dangling link, a folder, a device) fails it: skipping it
        // would let a gate pass on fewer scenarios than the folder holds.
        if (const std::string problem = io::input_file_problem(it->path()); !problem.empty()) {
          throw InputError(it->path().string(), "", problem, allowed);
        }
        files.push_back(it->path().lexically_normal().string());
        ++found;
      }
      if (error) throw InputError(a, "", "a folder that cannot be listed (" + error.message() + ")", allowed);
      if (found == 0) throw InputError(a, "$", "a folder without *.json files", allowed);
    } else if (const std::string problem = io::input_file_problem(p); !problem.empty()) {
      throw InputError(a, "", problem, allowed);
    } else {
      files.push_back(p.lexically_normal().string());
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
  for (const std::string& f : files) {
    try {
      load_scenario(f, catalog);
    } catch (const InputError& e) {
      if (e.file() == f) throw;
      // A file the scenario names (its model's config.json, its trace): say which scenario.
      throw InputError(e.file(), e.json_path(), e.value(), e.allowed() + " (read for the scenario " + f + ")");
    }
  }

  SweepDocument sweep;
  sweep.seed = options.run.seed;
  sweep.trials = options.run.trials;
  sweep.rows.resize(files.size());
  std::mutex progress;
  std::size_t done = 0;
  tbb::parallel_for(std::size_t{0}, files.size(), [&](std::size_t i) {
    PlanOptions o;
    o.run = options.run;
    o.profile = options.profile;
    o.fit = catalog.step_model_fit();
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
  j["shard"] = {{"index", sweep.shard.index}, {"count", sweep.shard.count}, {"scenario_files", sweep.scenario_files}};
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
  d.scenario_files = d.rows.size();
  if (std::optional<io::ObjectReader> s = o.optional_object("shard")) {  // absent from sweeps before shards were recorded
    d.shard.count = static_cast<int>(s->integer("count", 1, 1'000'000));
    d.shard.index = static_cast<int>(s->integer("index", 1, d.shard.count));
    d.scenario_files = static_cast<std::size_t>(s->integer("scenario_files", static_cast<std::int64_t>(d.rows.size()), 100'000'000));
    s->finish();
  }
  if (d.shard.count == 1 && d.scenario_files != d.rows.size()) {
    o.fail("shard", "the whole sweep (1/1) with one row per scenario file (" + std::to_string(d.rows.size()) + " rows)");
  }
  return d;
}

SweepDocument merge_sweeps(const std::vector<SweepDocument>& shards, const std::vector<std::string>& files) {
  SweepDocument merged;
  const SweepDocument& first = shards.front();
  merged.seed = first.seed;
  merged.trials = first.trials;
  merged.scenario_files = first.scenario_files;
  const int count = first.shard.count;
  std::vector<int> seen(static_cast<std::size_t>(count) + 1, -1);  // which argument holds each index
  std::vector<std::pair<SweepRow, int>> rows;                      // with the index of the shard it came from
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const SweepDocument& s = shards[i];
    if (s.seed != merged.seed || s.trials != merged.trials) {
      throw InputError(files[i], "$.seed", std::to_string(s.seed) + " with " + std::to_string(s.trials) + " trials",
                       "the seed and trials of " + files[0] + " (" + std::to_string(merged.seed) + ", " +
                           std::to_string(merged.trials) + "): shards of one sweep");
    }
    const std::string split = std::to_string(count) + " shards of " + std::to_string(merged.scenario_files) + " scenario files";
    if (s.shard.count != count || s.scenario_files != merged.scenario_files) {
      throw InputError(files[i], "$.shard", "shard " + std::to_string(s.shard.index) + "/" + std::to_string(s.shard.count) +
                                                " of " + std::to_string(s.scenario_files) + " scenario files",
                       "a shard of the same split as " + files[0] + " (" + split + ")");
    }
    int& holder = seen[static_cast<std::size_t>(s.shard.index)];
    if (holder >= 0) {
      throw InputError(files[i], "$.shard.index", std::to_string(s.shard.index) + ", also in " + files[static_cast<std::size_t>(holder)],
                       "each shard of the split once");
    }
    holder = static_cast<int>(i);
    for (const SweepRow& r : s.rows) rows.emplace_back(r, s.shard.index);
  }
  for (int k = 1; k <= count; ++k) {
    if (seen[static_cast<std::size_t>(k)] < 0) {
      throw InputError(files.back(), "$.shard", "no shard " + std::to_string(k) + "/" + std::to_string(count) + " among the files",
                       "every shard 1.." + std::to_string(count) + " of the split");
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first.file < b.first.file; });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i].first;
    if (i > 0 && r.file == rows[i - 1].first.file) {
      throw InputError(files.back(), "$.scenarios", "\"" + r.file + "\" twice", "shards with disjoint scenario files");
    }
    // shard_files gives shard K the files K, K + N, K + 2N, ... of the sorted list.
    const int expected = static_cast<int>(i % static_cast<std::size_t>(count)) + 1;
    if (rows[i].second != expected) {
      throw InputError(files.back(), "$.scenarios", "\"" + r.file + "\" in shard " + std::to_string(rows[i].second),
                       "shard " + std::to_string(expected) + " (the slices `sweep --shard K/N` makes of one file list)");
    }
    merged.rows.push_back(r);
  }
  if (merged.rows.size() != merged.scenario_files) {
    throw InputError(files.back(), "$.scenarios", std::to_string(merged.rows.size()) + " scenarios in all the shards",
                     std::to_string(merged.scenario_files) + ", every scenario file of the sweep");
  }
  return merged;
}

}  // namespace preflight
