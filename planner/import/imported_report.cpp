#include "planner/import/imported_report.hpp"

#include <map>

#include "planner/io/json_reader.hpp"

namespace preflight {

nlohmann::ordered_json imported_json(const ImportedSetup& s) {
  nlohmann::ordered_json j;
  j["files"] = nlohmann::ordered_json::array();
  for (const ReadFile& f : s.files()) j["files"].push_back({{"file", f.file}, {"format", f.format}});
  j["read"] = nlohmann::ordered_json::array();
  for (const auto& [field, f] : s.facts()) j["read"].push_back({{"field", field}, {"value", f.value}, {"file", f.file}, {"key", f.key}});
  const WorldSize& w = s.world();
  for (const auto& [field, f] : {std::pair{"world.gpus", &w.gpus}, std::pair{"world.gpus_per_node", &w.gpus_per_node}}) {
    if (*f) j["read"].push_back({{"field", field}, {"value", (*f)->value}, {"file", (*f)->file}, {"key", (*f)->key}});
  }
  j["ignored"] = nlohmann::ordered_json::array();
  for (const IgnoredKey& i : s.ignored()) j["ignored"].push_back({{"file", i.file}, {"key", i.key}, {"why", i.why}});
  j["notes"] = s.notes();
  return j;
}

std::string imported_text(const ImportedSetup& s) {
  std::string out = "Read from";
  for (const ReadFile& f : s.files()) out += " " + f.file + " (" + f.format + ")";
  out += ":\n";
  for (const auto& [field, f] : s.facts()) out += "  " + field + " = " + io::describe(f.value) + "  <- " + f.file + ": " + f.key + "\n";
  const WorldSize& w = s.world();
  if (w.gpus) out += "  GPUs in the job = " + io::describe(w.gpus->value) + "  <- " + w.gpus->file + ": " + w.gpus->key + "\n";
  if (w.gpus_per_node) {
    out += "  GPUs per node = " + io::describe(w.gpus_per_node->value) + "  <- " + w.gpus_per_node->file + ": " + w.gpus_per_node->key + "\n";
  }
  for (const std::string& n : s.notes()) out += "  note: " + n + "\n";
  // Ignored keys grouped by why, so forty irrelevant keys read as one line.
  std::map<std::string, std::vector<std::string>> by_why;
  std::vector<std::string> order;
  const bool several = s.files().size() > 1;
  for (const IgnoredKey& i : s.ignored()) {
    if (!by_why.contains(i.why)) order.push_back(i.why);
    by_why[i.why].push_back(several ? i.file + ": " + i.key : i.key);
  }
  for (const std::string& why : order) {
    std::string keys;
    for (const std::string& k : by_why[why]) keys += (keys.empty() ? "" : ", ") + k;
    out += "  ignored (" + why + "): " + keys + "\n";
  }
  return out;
}

}  // namespace preflight
