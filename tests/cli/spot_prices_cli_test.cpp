// Spot, prices and storage a budget can trust, through the command line: prices with provenance and
// never at a flagged outlier, interruption figures from the public traces, checkpoints that survive a
// reclaim (or a loud warning), every line of the bill adding up (checked by hand), owned machines'
// electricity, the capacity warning, inline clusters under a region filter, and plans that do not
// contradict themselves.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string scenario(const std::string& name) { return std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name + ".json"; }

json read_json(const fs::path& file) { return json::parse(test::read_text(file)); }

std::string written(const fs::path& dir, const std::string& name, const json& j) {
  test::write_text(dir / name, j.dump());
  return (dir / name).string();
}

json run_json(const std::string& args) {
  const test::CliResult r = test::run_preflight(args + " --format json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << args << ": " << r.err;
  return r.out.empty() ? json() : json::parse(r.out);
}

// The catalog's quote for an instance in a region and zone (the catalog file is the independent
// record); Azure prices per region, without zones.
json catalog_quote(const std::string& instance, const std::string& region, const std::string& zone) {
  const std::string provider = instance.substr(0, instance.find('/'));
  const json doc = read_json(std::string(PREFLIGHT_SOURCE_DIR) + "/catalogs/instances/" + provider + ".json");
  for (const json& i : doc.at("instances")) {
    if (i.at("id") != instance) continue;
    for (const json& q : i.at("prices")) {
      const std::string z = q.at("zone").is_string() ? q.at("zone").get<std::string>() : "";
      if (q.at("region") == region && z == zone) return q;
    }
  }
  return json();
}

// No bundled plan rests on a quote the catalog flags as an outlier (p4d's use1-az1 at $2.47/h,
// 11% of on-demand, which priced 10 of 31 cloud plans before), and spot sits at a zone whose quote
// is what the plan says.
TEST(SpotPrices, NoBundledPlanRestsOnAFlaggedOutlier) {
  for (const std::string name : {"llama2-7b-full-weekend", "llama3.1-70b-pretrain-spot-p5", "llama3.1-70b-pretrain-volatile-spot",
                                 "mistral-7b-full-spot-budget"}) {
    const json plan = run_json("plan " + scenario(name) + " --trials 1000");
    ASSERT_FALSE(plan.at("best").is_null()) << name;
    std::vector<json> entries{plan.at("best")};
    for (const json& e : plan.at("alternatives")) entries.push_back(e);
    for (const json& e : entries) {
      const json& cost = e.at("cost");
      if (cost.at("pricing") == "on_demand") continue;
      const json quote = catalog_quote(e.at("config").at("instance"), cost.at("region"), cost.at("zone"));
      ASSERT_FALSE(quote.is_null()) << name << ": " << cost.dump();
      EXPECT_FALSE(quote.at("spot_outlier").get<bool>()) << name << ": " << cost.dump();
      EXPECT_NEAR(quote.at("spot_usd_per_hour").get<double>(), cost.at("usd_per_node_hour").get<double>(), 1e-4) << name;  // JSON keeps 4 decimals
      EXPECT_FALSE(cost.at("as_of").get<std::string>().empty());
      EXPECT_NE(cost.at("price_source").get<std::string>().find("skypilot-catalog"), std::string::npos);
    }
  }
}

// Region, zone, price date and source in every format of a plan, and in a sweep row.
TEST(SpotPrices, WhereAndWhenInEveryFormat) {
  const fs::path dir = test::scratch_dir("prices-formats");
  const std::string s = scenario("llama2-7b-full-weekend");
  const json best = run_json("plan " + s).at("best");
  const std::string region = best.at("cost").at("region"), zone = best.at("cost").at("zone"), as_of = best.at("cost").at("as_of");
  ASSERT_FALSE(region.empty());
  for (const std::string format : {"table", "markdown", "csv", "html"}) {
    const test::CliResult r = test::run_preflight("plan " + s + " --format " + format + " --out " + (dir / ("p." + format)).string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = test::read_text(dir / ("p." + format));
    EXPECT_NE(text.find(region), std::string::npos) << format;
    EXPECT_NE(text.find(zone), std::string::npos) << format;
    EXPECT_NE(text.find(as_of), std::string::npos) << format;
    EXPECT_NE(text.find("skypilot-catalog"), std::string::npos) << format;
  }
  const test::CliResult sweep = test::run_preflight("sweep " + s + " --format json");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const json row = json::parse(sweep.out).at("scenarios").at(0);
  EXPECT_EQ(row.at("region"), region);
  EXPECT_EQ(row.at("zone"), zone);
  EXPECT_EQ(row.at("price_as_of"), as_of);
  EXPECT_NE(row.at("price_source").get<std::string>().find("skypilot-catalog"), std::string::npos);
  fs::remove_all(dir);
}

// Without a rate in the scenario, spot interruptions come from the traces' figures for the machine's
// class (aws multi-GPU nodes: catalogs/fitted/spot_interruptions.json), and a long multi-node spot run
// no longer finishes by its deadline for sure.
TEST(SpotPrices, DefaultInterruptionsComeFromTheTraces) {
  const json figures = read_json(std::string(PREFLIGHT_SOURCE_DIR) + "/catalogs/fitted/spot_interruptions.json");
  double rate = 0.0, wait = 0.0, reclaim = figures.at("reclaim_fraction").at("value");
  for (const json& c : figures.at("classes")) {
    if (c.at("provider") == "aws" && c.at("gpus_per_node") == "multi") {
      rate = c.at("interruptions_per_node_hour").at("value");
      wait = c.at("reacquire_hours").at("value");
    }
  }
  ASSERT_GT(rate, 0.5);  // 0.6-1.3 per instance-hour for the 8-GPU instances traced
  const std::string config =
      R"('{"instance": "aws/p5.48xlarge", "nodes": 8, "framework": "megatron", "parallelism": {"tp": 8, "pp": 2, "sequence_parallel": true}, "sharding": "zero1", "micro_batch": 1, "pricing": "spot"}')";
  const json sim = run_json("simulate " + scenario("llama3.1-70b-pretrain-spot-p5") + " --trials 2000 --config " + config);
  const json& run = sim.at("run");
  EXPECT_DOUBLE_EQ(run.at("interruptions_per_node_hour").get<double>(), rate);
  EXPECT_DOUBLE_EQ(run.at("reacquire_hours").get<double>(), wait);
  EXPECT_DOUBLE_EQ(run.at("reclaim_fraction").get<double>(), reclaim);
  // (rate / f)(1 - (1 - f)^8) interruptions per hour for the job, fewer than 8 x rate.
  EXPECT_NEAR(run.at("job_interruptions_per_hour").get<double>(), rate / reclaim * -std::expm1(8.0 * std::log1p(-reclaim)), 1e-5);
  EXPECT_LT(sim.at("cost").at("p_meets_deadline").get<double>(), 1.0);
  // 8 spot p5 at once is more than any trace of the class ever held: said.
  bool warned = false;
  for (const json& w : run.at("warnings")) warned = warned || w.get<std::string>().find("ever held more than 1") != std::string::npos;
  EXPECT_TRUE(warned) << run.at("warnings").dump();
}

// Spot checkpoints go where a reclaim does not take them (the object store); on local NVMe, or
// without the optimizer state, an interruption restarts the run from step 0, and the run says so.
TEST(SpotPrices, CheckpointsThatSurviveOrALoudWarning) {
  const fs::path dir = test::scratch_dir("prices-storage");
  json s = read_json(scenario("llama2-7b-full-weekend"));
  s["config"] = {{"instance", "aws/p5.48xlarge"}, {"nodes", 1}, {"framework", "megatron"}, {"sharding", "zero1"},
                 {"micro_batch", 1}, {"pricing", "spot"}};
  const json auto_storage = run_json("simulate " + written(dir, "auto.json", s) + " --trials 500").at("run");
  EXPECT_EQ(auto_storage.at("checkpoint").at("storage"), "object_store");
  EXPECT_TRUE(auto_storage.at("checkpoint").at("survives_reclaim").get<bool>());
  EXPECT_GT(auto_storage.at("checkpoint").at("interval_steps").get<int>(), 0);

  s["checkpoint"]["storage"] = "nvme";
  const json nvme = run_json("simulate " + written(dir, "nvme.json", s) + " --trials 500").at("run");
  EXPECT_FALSE(nvme.at("checkpoint").at("survives_reclaim").get<bool>());
  EXPECT_EQ(nvme.at("checkpoint").at("interval_steps"), 0);
  EXPECT_NE(nvme.at("warnings").dump().find("restarts the run from step 0"), std::string::npos);
  EXPECT_GT(nvme.at("hours").at("mean").get<double>(), auto_storage.at("hours").at("mean").get<double>());

  s["checkpoint"]["storage"] = "object_store";
  s["checkpoint"]["resumable"] = false;
  const json weights_only = run_json("simulate " + written(dir, "weights.json", s) + " --trials 500").at("run");
  EXPECT_EQ(weights_only.at("checkpoint").at("interval_steps"), 0);
  EXPECT_NE(weights_only.at("warnings").dump().find("loses the optimizer state"), std::string::npos);
  const test::CliResult text = test::run_preflight("simulate " + written(dir, "weights.json", s) + " --trials 500");
  EXPECT_NE(text.out.find("WARNING: checkpoints hold the weights only"), std::string::npos) << text.out;
  fs::remove_all(dir);
}

// The bill by hand for one spot run of Llama-2-7B on a p5 with its final weights downloaded:
// storage = $0.023/GB-month (S3 Standard) x the kept checkpoints' GB x the run's hours / 730;
// egress = 6,738,415,616 x 2 bytes = 13.48 GB at AWS's first tier, $0.09/GB = $1.21; the machines
// = the billed hours x the spot price; and the lines add up to the total in the JSON, CSV and text.
TEST(SpotPrices, TheBillAddsUpByHand) {
  const fs::path dir = test::scratch_dir("prices-bill");
  json s = read_json(scenario("llama2-7b-full-weekend"));
  s["egress"] = {{"final_weights", true}};
  s["config"] = {{"instance", "aws/p5.48xlarge"}, {"nodes", 1}, {"framework", "megatron"}, {"sharding", "zero1"},
                 {"micro_batch", 1}, {"pricing", "spot"}};
  const std::string file = written(dir, "bill.json", s);
  const json sim = run_json("simulate " + file + " --trials 2000");
  const json& usd = sim.at("cost").at("usd");
  const double gb = sim.at("run").at("checkpoint").at("disk_bytes").get<double>() / 1e9;
  const double hours = sim.at("run").at("hours").at("mean");
  EXPECT_NEAR(usd.at("storage").get<double>(), 0.023 * gb * hours / 730.0, 0.01);
  EXPECT_NEAR(usd.at("egress").get<double>(), 6738415616.0 * 2.0 / 1e9 * 0.09, 0.005);
  EXPECT_NEAR(sim.at("cost").at("egress").at("GB").get<double>(), 13.477, 0.001);
  const double billed = sim.at("run").at("billed_hours_mean");
  EXPECT_NEAR(usd.at("compute").get<double>(), billed * sim.at("cost").at("usd_per_node_hour").get<double>(), 0.05);
  EXPECT_NEAR(usd.at("compute").get<double>() + usd.at("storage").get<double>() + usd.at("egress").get<double>() +
                  usd.at("electricity").get<double>(),
              usd.at("total").get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(usd.at("total").get<double>(), usd.at("mean").get<double>());
  const test::CliResult text = test::run_preflight("simulate " + file + " --trials 2000");
  EXPECT_NE(text.out.find("egress $1.21: the final weights (13.5 GB) to the internet at aws's tiers"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("storage $"), std::string::npos);
  // The plan's CSV: every row's lines add up to its total.
  s.erase("config");
  const test::CliResult csv = test::run_preflight("plan " + written(dir, "plan.json", s) + " --format csv --trials 1000");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  std::vector<std::string> names;
  for (std::size_t at = 0, next; at <= header.size(); at = next + 1) {
    next = header.find(',', at);
    if (next == std::string::npos) next = header.size();
    names.push_back(header.substr(at, next - at));
  }
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  int checked = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    for (std::size_t at = 0, next; at <= line.size(); at = next + 1) {
      if (line[at] == '"') {  // a quoted cell (the price source has commas)
        next = line.find('"', at + 1) + 1;
      } else {
        next = line.find(',', at);
        if (next == std::string::npos) next = line.size();
      }
      cells.push_back(line.substr(at, next - at));
    }
    if (cells[column("total_usd")].empty()) continue;  // pruned before its Monte Carlo
    const double total = std::stod(cells[column("total_usd")]);
    const double parts = std::stod(cells[column("compute_usd")]) + std::stod(cells[column("storage_usd")]) +
                         std::stod(cells[column("egress_usd")]);
    EXPECT_NEAR(parts, total, 0.02) << line;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  fs::remove_all(dir);
}

// A workstation's electricity when the scenario prices a kWh: 2 RTX 4090 at 450 W board power x the
// step's busy share x the hours x $0.30, named as an estimate.
// An owned machine (an inline cluster at $0/h) pays its power: two RTX 4090s (450 W board power)
// in a node rated 1.8 x that, drawing 76% of it while training (energy_use.hpp), at the default PUE
// 1.56 (no provider's figure for an owned site): 2 x 450 x 1.8 x 0.76 x 1.56 = 1.921 kW, x the billed
// hours x $0.30/kWh.
TEST(SpotPrices, OwnedMachinesMayCarryElectricity) {
  const fs::path dir = test::scratch_dir("prices-power");
  json s = read_json(scenario("llama2-7b-lora-dual-rtx4090"));
  s["prices"] = {{"electricity_usd_per_kWh", 0.30}};
  const json sim = run_json("simulate " + written(dir, "power.json", s) + " --trials 200");
  const double hours = sim.at("run").at("billed_hours_mean");
  const double kw = 2 * 450.0 * 1.8 * 0.76 * 1.56 / 1000.0;
  EXPECT_NEAR(sim.at("energy").at("facility_kw").get<double>(), kw, 0.005);
  EXPECT_NEAR(sim.at("cost").at("usd").at("electricity").get<double>(), kw * hours * 0.30, 0.02);
  EXPECT_NEAR(sim.at("energy").at("kwh").get<double>(), kw * hours, 0.1);
  EXPECT_EQ(sim.at("cost").at("usd").at("compute").get<double>(), 0.0);
  const test::CliResult text = test::run_preflight("simulate " + written(dir, "power.json", s) + " --trials 200");
  EXPECT_NE(text.out.find("electricity $"), std::string::npos);
  EXPECT_NE(text.out.find("the energy below at the scenario's kWh price"), std::string::npos);
  EXPECT_NE(text.out.find("energy "), std::string::npos);
  fs::remove_all(dir);
}

// prices.region filters catalog quotes; an inline cluster keeps its own price (a lab plus a region
// used to give NO FEASIBLE PLAN, "lab lists no on_demand price").
TEST(SpotPrices, ARegionLeavesInlineClustersTheirPrice) {
  const fs::path dir = test::scratch_dir("prices-inline");
  json s = read_json(scenario("llama2-7b-full-weekend"));
  s.erase("config");
  s["clusters"] = json::array({{{"id", "lab"}, {"gpu", "a100-80gb"}, {"gpus_per_node", 8}, {"max_nodes", 2},
                                {"intra_node_GBps", 300}, {"inter_node_Gbps", 800}, {"host_memory_GiB", 1024}, {"usd_per_hour", 0}}});
  s["search"] = {{"instances", {"lab"}}, {"max_nodes", 2}};
  s["prices"] = {{"region", "us-east-1"}};
  const test::CliResult r = test::run_preflight("plan " + written(dir, "lab.json", s) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(json::parse(r.out).at("best").at("config").at("instance"), "lab");
  const test::CliResult table = test::run_preflight("plan " + written(dir, "lab.json", s));
  EXPECT_EQ(table.out.find(", , inline"), std::string::npos) << table.out;
  fs::remove_all(dir);
}

// p5e is rented as EC2 Capacity Blocks only: the catalog's spot column is not a spot market.
TEST(SpotPrices, CapacityBlockMachinesAreNotSpot) {
  const fs::path dir = test::scratch_dir("prices-p5e");
  json s = read_json(scenario("llama2-7b-full-weekend"));
  s.erase("config");
  s["search"] = {{"instances", {"aws/p5e.48xlarge"}}, {"max_nodes", 1}};
  const test::CliResult r = test::run_preflight("plan " + written(dir, "p5e.json", s) + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json plan = json::parse(r.out);
  EXPECT_TRUE(plan.at("best").is_null());
  EXPECT_EQ(plan.at("rejected").at("invalid"), plan.at("evaluated"));  // every pricing of it unpriced
  const json quote = catalog_quote("aws/p5e.48xlarge", "us-east-2", "use2-az3");
  EXPECT_TRUE(quote.at("spot_usd_per_hour").is_null());
  EXPECT_NE(quote.at("note").get<std::string>().find("capacity blocks are not spot"), std::string::npos);
  fs::remove_all(dir);
}

// A spot run whose checkpoints a reclaim takes restarts from step 0 at every interruption: with no
// deadline to miss it must still finish, and it never does (it used to win at 21,442 h p50, priced as
// if nothing interrupted it). No plan, the reason, the remedy, and no "inf" or "nan" in any cell.
TEST(SpotPrices, ARunThatNeverFinishesIsNoPlan) {
  const fs::path dir = test::scratch_dir("never-finishes");
  json s = read_json(scenario("llama3.1-70b-pretrain-spot-p5"));
  s["checkpoint"]["storage"] = "nvme";
  s["search"]["pricing"] = {"spot"};
  s["constraints"] = {{"vram_headroom", 0.1}};
  s.erase("config");
  const std::string file = written(dir, "never.json", s);
  const test::CliResult r = test::run_preflight("plan " + file + " --format json --trials 1000");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json plan = json::parse(r.out);
  EXPECT_TRUE(plan.at("best").is_null());
  EXPECT_NE(plan.at("nearest_misses").dump().find("never finishes"), std::string::npos) << plan.at("nearest_misses").dump();
  EXPECT_NE(plan.at("suggestions").dump().find("checkpoints that survive a reclaim"), std::string::npos) << plan.at("suggestions").dump();
  const test::CliResult csv = test::run_preflight("plan " + file + " --format csv --trials 1000");
  for (const std::string bad : {"inf", "nan"}) EXPECT_EQ(csv.out.find(bad), std::string::npos) << bad;
  // The same run simulated: every history cut off at the horizon, so none meets "finishing".
  json one = s;
  one["config"] = {{"instance", "aws/p5.48xlarge"}, {"nodes", 4}, {"sharding", "zero3"}, {"activation_checkpointing", "full"},
                   {"micro_batch", 1}, {"pricing", "spot"}};
  const json sim = run_json("simulate " + written(dir, "one.json", one) + " --trials 500");
  EXPECT_EQ(sim.at("cost").at("p_meets_deadline").get<double>(), 0.0);
  fs::remove_all(dir);
}

// A config that does not fit is not exported: exit 1 with the reason, nothing written.
TEST(SpotPrices, ExportRefusesAConfigThatDoesNotFit) {
  const fs::path dir = test::scratch_dir("export-oom");
  const std::string config = R"('{"instance": "aws/p4d.24xlarge", "nodes": 1, "sharding": "zero2", "micro_batch": 8}')";
  const test::CliResult r = test::run_preflight("export deepspeed " + scenario("llama2-7b-full-weekend") + " --config " + config +
                                                " --out " + (dir / "ds.json").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit: simulated peak"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing written"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "ds.json"));
  fs::remove_all(dir);
}

// When the budget is what binds, a later deadline is not offered as the way out (it would not help).
TEST(SpotPrices, SuggestionsNameWhatBinds) {
  const fs::path dir = test::scratch_dir("suggest-budget");
  json s = read_json(scenario("llama2-7b-full-weekend"));
  s.erase("config");
  s["constraints"]["budget_usd"] = 20;
  const test::CliResult r = test::run_preflight("plan " + written(dir, "tight.json", s) + " --format json --trials 500");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string suggestions = json::parse(r.out).at("suggestions").dump();
  EXPECT_NE(suggestions.find("a budget of"), std::string::npos) << suggestions;
  EXPECT_EQ(suggestions.find("a deadline of"), std::string::npos) << suggestions;
  fs::remove_all(dir);
}

// No reason says a sharding "does not fit" and then that it fits.
TEST(SpotPrices, ReasonsDoNotContradictThemselves) {
  for (const std::string name : {"llama2-7b-full-weekend", "llama3.1-70b-pretrain-spot-p5", "qwen2.5-7b-full-gcp", "llama2-70b-sft-a100"}) {
    const json plan = run_json("plan " + scenario(name) + " --trials 500");
    for (const json& r : plan.at("reasons")) {
      const std::string line = r;
      EXPECT_FALSE(line.find("does not fit") != std::string::npos && line.find("fits only") != std::string::npos) << name << ": " << line;
      EXPECT_FALSE(line.find("does not fit here: it fits") != std::string::npos) << name << ": " << line;
      EXPECT_EQ(line.find("-0."), std::string::npos) << name << ": " << line;  // no "-6.4% more"
    }
  }
}

// The seed article's case (100 h at $32/h on demand against $12.80/h spot): the spot risk explicit.
// At the break-even rate the plan names, the same config's spot run costs what on demand does.
TEST(SpotPrices, TheSeedArticlesCaseSaysWhereSpotStopsPaying) {
  const fs::path dir = test::scratch_dir("seed-article");
  const json plan = run_json("plan " + scenario("spot-vs-on-demand-100h"));
  ASSERT_FALSE(plan.at("best").is_null());
  const json& b = plan.at("spot_break_even");
  ASSERT_FALSE(b.is_null());
  const double rate = b.at("break_even_interruptions_per_node_hour");
  EXPECT_GT(rate, b.at("assumed_interruptions_per_node_hour").get<double>());
  EXPECT_GT(b.at("saving_fraction").get<double>(), 0.0);
  // The same config on spot at that rate, by the Monte Carlo (its own checkpoint interval).
  json s = read_json(scenario("spot-vs-on-demand-100h"));
  json config = plan.at("best").at("config");
  config["pricing"] = "spot";
  config["checkpoint_interval_minutes"] = plan.at("best").at("run").at("checkpoint").at("interval_minutes");
  s["config"] = config;
  s["preemption"] = {{"interruptions_per_node_hour", rate}};
  const json at = run_json("simulate " + written(dir, "at.json", s) + " --trials 4000");
  s["config"]["pricing"] = "on_demand";
  s["config"].erase("checkpoint_interval_minutes");
  const json on_demand = run_json("simulate " + written(dir, "od.json", s) + " --trials 4000");
  // Both Monte Carlos mix the step time over its interval alike, so at the break-even they meet.
  const double od = on_demand.at("cost").at("usd").at("mean");
  EXPECT_NEAR(at.at("cost").at("usd").at("mean").get<double>(), od, 0.05 * od);
  const test::CliResult text = test::run_preflight("plan " + scenario("spot-vs-on-demand-100h"));
  EXPECT_NE(text.out.find("it stays cheaper up to"), std::string::npos) << text.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
