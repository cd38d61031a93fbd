// A SkyPilot task (docs.skypilot.co, reference/yaml-spec): the machine (an instance type, or
// accelerators SkyPilot's optimizer turns into the cheapest machine that has them), the node count,
// spot or on-demand (and failing over from one to the other), the region, and the `run` script
// with the heredocs its `setup` writes.

#include <algorithm>
#include <limits>

#include "planner/catalog/skypilot_accelerators.hpp"
#include "planner/import/foreign_object.hpp"
#include "planner/import/importers.hpp"
#include "planner/import/shell_script.hpp"
#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

const char* const kNotRead = "not modelled: does not change what fits or how fast in preflight's model";

double cheapest_price(const NodeSpec& n, const std::optional<std::string>& region) {
  double best = std::numeric_limits<double>::infinity();
  for (const PriceQuote& q : n.prices) {
    if ((!region || q.region == *region) && q.on_demand_usd_per_hour) best = std::min(best, *q.on_demand_usd_per_hour);
  }
  return best;
}

// "H100:8" -> the cheapest catalog machine with 8 H100s (on the cloud and in the region when given)
// that can make up the task's `nodes` (a machine without a documented network holds one): what
// SkyPilot's optimizer launches. Marketplace offers (one host's bid) are not taken for a task.
std::string machine_for(const std::string& accelerator, int count, const std::optional<std::string>& cloud,
                        const std::optional<std::string>& region, const Catalog& catalog, const std::string& file, const std::string& key,
                        int nodes) {
  const std::optional<std::string> gpu = gpu_of_skypilot_name(accelerator);
  if (!gpu) throw InputError(file, key, "\"" + accelerator + "\"", "a SkyPilot accelerator preflight's catalog has: " + skypilot_names_text());
  const NodeSpec* best = nullptr;
  for (const NodeSpec& n : catalog.instances()) {
    if (n.gpu.id != *gpu || n.gpus_per_node != count || (cloud && n.provider != *cloud)) continue;
    if (n.marketplace || n.node_limit() < nodes) continue;
    if (!std::isfinite(cheapest_price(n, region))) continue;
    if (best == nullptr || cheapest_price(n, region) < cheapest_price(*best, region)) best = &n;
  }
  if (best == nullptr) {
    throw InputError(file, key, "\"" + accelerator + ":" + std::to_string(count) + "\"",
                     "accelerators some catalog machine has" + (cloud ? " on " + *cloud : std::string()) + " (see `preflight catalog instances`)");
  }
  return best->id;
}

struct Accelerator {
  std::string name;
  int count = 1;
};

std::vector<Accelerator> accelerators(const nlohmann::json& v, const std::string& file, const std::string& key) {
  std::vector<Accelerator> out;
  const auto one = [&](const std::string& text) {
    const std::size_t colon = text.find(':');
    Accelerator a{text.substr(0, colon), 1};
    if (colon != std::string::npos) {
      a.count = static_cast<int>(integer_text(text.substr(colon + 1), file, key, 1, 64));
    }
    out.push_back(a);
  };
  if (v.is_string()) {
    one(v.get<std::string>());
  } else if (v.is_object()) {
    for (const auto& [name, count] : v.items()) one(name + (count.is_null() ? "" : ":" + (count.is_string() ? count.get<std::string>() : count.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
  } else if (v.is_array()) {
    for (const nlohmann::json& e : v) {
      if (!e.is_string()) throw InputError(file, key, io::describe(v), "accelerators: \"H100:8\", a list or a set of them");
      one(e.get<std::string>());
    }
  } else {
    throw InputError(file, key, io::describe(v), "accelerators: \"H100:8\", a list or a set of them");
  }
  return out;
}

struct Resources {
  std::vector<std::string> machines;
  std::optional<bool> spot;
  std::optional<std::string> cloud;
  std::optional<std::string> region;
  int gpus_per_node = 0;
  std::string spot_key;  // where the pricing was said
};

// `outer`: the fields around an any_of/ordered list, which each candidate takes unless it says otherwise.
Resources read_resources(ForeignObject& r, ImportedSetup& setup, const ImportContext& context, int nodes,
                         const Resources* outer = nullptr) {
  Resources out;
  std::optional<std::string> cloud = r.string("cloud");
  out.region = r.string("region");
  if (outer != nullptr) {
    if (!cloud) cloud = outer->cloud;
    if (!out.region) out.region = outer->region;
  }
  if (const std::optional<std::string> infra = r.string("infra")) {
    // infra: <cloud>[/<region>[/<zone>]]
    const std::size_t slash = infra->find('/');
    cloud = infra->substr(0, slash);
    if (slash != std::string::npos) out.region = infra->substr(slash + 1, infra->find('/', slash + 1) - slash - 1);
  }
  const std::optional<std::string> type = r.string("instance_type");
  if (type) {
    const std::string id = cloud ? *cloud + "/" + *type : *type;
    const NodeSpec* n = context.catalog->find_instance(id);
    for (const NodeSpec& candidate : context.catalog->instances()) {
      if (n == nullptr && !cloud && candidate.id.ends_with("/" + *type)) n = &candidate;
    }
    if (n == nullptr) r.fail("instance_type", "an instance type of preflight's catalog (see `preflight catalog instances`)");
    out.machines.push_back(n->id);
    out.gpus_per_node = n->gpus_per_node;
  }
  if (const nlohmann::json* acc = r.take("accelerators"); acc != nullptr) {
    for (const Accelerator& a : accelerators(*acc, r.file(), r.key_of("accelerators"))) {
      if (type) {
        // Beside an instance type they must agree with it (SkyPilot refuses a mismatch).
        if (a.count != out.gpus_per_node) r.fail("accelerators", std::to_string(out.gpus_per_node) + " GPUs, as instance_type " + *type + " has");
        continue;
      }
      out.machines.push_back(machine_for(a.name, a.count, cloud, out.region, *context.catalog, r.file(), r.key_of("accelerators"), nodes));
      out.gpus_per_node = a.count;
    }
  }
  out.cloud = cloud;
  out.spot = r.boolean("use_spot");
  if (out.spot) out.spot_key = r.key_of("use_spot");
  r.ignore(setup, {"spot_recovery", "job_recovery"}, "a managed job restarts from its last checkpoint after a reclaim, as preflight's spot model assumes");
  r.ignore(setup, {"disk_size", "disk_tier", "network_tier", "image_id", "cpus", "memory", "ports", "labels", "zone", "autostop"},
           "no effect on memory or step time");
  return out;
}

}  // namespace

void import_skypilot(const nlohmann::json& json, const std::string& file, ImportedSetup& setup, const ImportContext& outer) {
  ForeignObject doc(json, file, "");
  ImportContext context = outer;
  Resources res;
  // The node count picks machines that can make it up; read (and checked) below with the rest.
  const nlohmann::json* count = json.is_object() && json.contains("num_nodes") ? &json.at("num_nodes") : nullptr;
  const int task_nodes = count != nullptr && count->is_number_integer() ? static_cast<int>(std::clamp<std::int64_t>(count->get<std::int64_t>(), 1, 100'000)) : 1;
  if (std::optional<ForeignObject> r = doc.object("resources")) {
    res = read_resources(*r, setup, context, task_nodes);
    // Alternatives: `ordered` fails over in order, `any_of` takes the cheapest available.
    for (const char* key : {"ordered", "any_of"}) {
      const nlohmann::json* list = r->take(key);
      if (list == nullptr || !list->is_array()) continue;
      std::set<bool> spot;
      for (std::size_t i = 0; i < list->size(); ++i) {
        ForeignObject alt((*list)[i], file, r->key_of(key) + "[" + std::to_string(i) + "]");
        Resources a = read_resources(alt, setup, context, task_nodes, &res);
        spot.insert(a.spot.value_or(res.spot.value_or(false)));
        for (const std::string& m : a.machines) {
          if (std::find(res.machines.begin(), res.machines.end(), m) == res.machines.end()) res.machines.push_back(m);
        }
        if (a.gpus_per_node > 0) res.gpus_per_node = a.gpus_per_node;
        if (!res.region) res.region = a.region;
        alt.finish(setup, kNotRead);
      }
      if (spot.size() == 2) {
        setup.set("config.pricing", "spot_with_fallback", file, r->key_of(key));  // spot, and on-demand when spot is gone
      } else if (spot.size() == 1) {
        res.spot = *spot.begin();
        if (res.spot_key.empty()) res.spot_key = r->key_of(key);
      }
    }
    r->finish(setup, kNotRead);
  }
  if (res.machines.size() == 1) {
    setup.set("config.instance", res.machines.front(), file, "resources");
  } else if (res.machines.size() > 1) {
    setup.set("search.instances", res.machines, file, "resources");  // SkyPilot picks among them: so does plan
  }
  if (res.spot && !setup.has("config.pricing")) setup.set("config.pricing", *res.spot ? "spot" : "on_demand", file, res.spot_key);
  if (res.region) setup.set("config.region", *res.region, file, "resources.region");
  const std::optional<std::int64_t> nodes = doc.integer("num_nodes", 1, 100'000);
  if (nodes) setup.set("config.nodes", *nodes, file, "num_nodes");
  context.environment["SKYPILOT_NUM_NODES"] = std::to_string(nodes.value_or(1));
  if (res.gpus_per_node > 0) context.environment["SKYPILOT_NUM_GPUS_PER_NODE"] = std::to_string(res.gpus_per_node);
  if (std::optional<ForeignObject> envs = doc.object("envs")) {
    for (const auto& [k, v] : json["envs"].items()) {
      envs->take(k);
      if (!v.is_null()) context.environment[k] = v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    envs->finish(setup, kNotRead);  // every variable is the run script's
  }
  // What `setup` writes (heredocs) is there when `run` runs.
  if (const std::optional<std::string> s = doc.string("setup")) {
    for (const auto& [name, body] : parse_shell(*s, file, context.environment).heredocs) context.inline_files[name] = body;
  }
  if (const std::optional<std::string> run = doc.string("run")) import_shell(*run, file + " (run)", setup, context);
  doc.ignore(setup, {"file_mounts", "storage_mounts", "workdir"},
             "where code, data and checkpoints live: checkpoint storage comes from the scenario's checkpoint settings");
  doc.ignore(setup, {"name", "secrets", "service", "config", "event_callback", "volumes"}, "no effect on memory or step time");
  doc.finish(setup, kNotRead);
}

}  // namespace preflight
