// Input a hostile user (or a mutation fuzzer) writes: every case exits 2 without a crash, a hang or
// a partial output, and the message is ours: it names the file, the path and what is allowed, never
// the JSON library's or the file system library's text. The device inputs are symlinks made in a
// scratch folder to /dev/zero and /dev/urandom, which are only ever stat()ed, never read.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json scenario() {
  return json::parse(R"({
    "name": "hostile-base",
    "model": "gpt2",
    "training": { "tokens": 1.0e8, "seq_len": 1024, "global_batch_size": 32 },
    "constraints": { "deadline_hours": 24 },
    "search": { "instances": ["aws/g6.xlarge"], "max_nodes": 1 },
    "config": { "instance": "aws/g6.xlarge", "micro_batch": 4 }
  })");
}

std::string nested(int levels) { return std::string(static_cast<std::size_t>(levels), '[') + std::string(static_cast<std::size_t>(levels), ']'); }

struct Hostile {
  std::string name;
  // Writes what the case needs into `dir` (scenario.json at least); returns the arguments after the binary.
  std::function<std::string(const fs::path& dir)> setup;
  std::vector<std::string> expected;  // in stderr
  std::vector<std::string> absent = {};  // not in stderr
};

void PrintTo(const Hostile& c, std::ostream* os) { *os << c.name; }

// The scenario (edited) in dir/scenario.json; `command` is run on it.
std::function<std::string(const fs::path&)> with_scenario(std::function<void(json&, const fs::path&)> edit,
                                                         std::string command = "check") {
  return [edit = std::move(edit), command = std::move(command)](const fs::path& dir) {
    json s = scenario();
    edit(s, dir);
    test::write_text(dir / "scenario.json", s.dump(2));
    return command + " " + (dir / "scenario.json").string();
  };
}

// The scenario as raw text.
std::function<std::string(const fs::path&)> raw_scenario(std::string text, std::string command = "check") {
  return [text = std::move(text), command = std::move(command)](const fs::path& dir) {
    test::write_text(dir / "scenario.json", text);
    return command + " " + (dir / "scenario.json").string();
  };
}

// A spot trace of `lines` for the scenario.
std::function<std::string(const fs::path&)> with_trace(std::string lines) {
  return with_scenario([lines](json& s, const fs::path& dir) {
    test::write_text(dir / "trace.csv", lines);
    s["preemption"] = {{"trace", (dir / "trace.csv").string()}};
    s["config"]["pricing"] = "spot";
  }, "simulate");
}

// The placeholders some commands carry stand for files the setup wrote.
std::string resolve(std::string args, const fs::path& dir) {
  for (const auto& [placeholder, file] : {std::pair{"PLACEHOLDER", "config.json"}, std::pair{"PROFILE", "p.json"}, std::pair{"CATALOG", "cat"}}) {
    if (const std::size_t at = args.find(placeholder); at != std::string::npos) args.replace(at, std::strlen(placeholder), (dir / file).string());
  }
  return args;
}

class HostileInput : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileInput, ExitsTwoWithOurMessage) {
  const Hostile& c = GetParam();
  const fs::path dir = test::scratch_dir("hostile-" + c.name);
  const std::string args = resolve(c.setup(dir), dir);
  const bool prices_a_run = args.rfind("simulate", 0) == 0 || args.rfind("plan", 0) == 0;
  const test::CliResult r = test::run_preflight(args + (prices_a_run ? " --trials 100" : ""));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << "partial output: " << r.out.substr(0, 200);
  for (const std::string& e : c.expected) EXPECT_NE(r.err.find(e), std::string::npos) << "missing \"" << e << "\" in: " << r.err;
  for (const std::string& a : c.absent) EXPECT_EQ(r.err.find(a), std::string::npos) << "\"" << a << "\" in: " << r.err;
  for (const char* library : {"[json.exception", "filesystem error", "std::bad_alloc", "basic_string"}) {
    EXPECT_EQ(r.err.find(library), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find("allowed"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

const std::string kDeep = nested(70000);

// gcloud counts of a million instances and none, alternately: `pairs` times at one moment, or at
// successive seconds (tests/fuzz/regressions/spot_trace_gcloud/ holds the same inputs).
std::string gcloud_up_and_down(int pairs, bool one_moment) {
  std::string lines;
  for (int i = 0; i < 2 * pairs; ++i) {
    const int t = one_moment ? 0 : i;
    lines += "2021-1-1," + std::to_string(t / 3600) + ":" + std::to_string(t / 60 % 60) + ":" + std::to_string(t % 60) +
             (i % 2 == 0 ? ",1000000\n" : ",0\n");
  }
  return lines;
}

const Hostile kCases[] = {
    // Nesting deep enough to overflow a recursive reader or printer, in every JSON input.
    {"deep_scenario", raw_scenario(R"({"name": "x", "description": )" + kDeep + "}"),
     {"scenario.json: $.description", "nested more than 64 levels deep"}},
    {"deep_config_file", with_scenario([](json& s, const fs::path& dir) {
       s.erase("config");
       test::write_text(dir / "config.json", R"({"instance": )" + kDeep + "}");
     }, "check --config PLACEHOLDER"),
     {"config.json: $.instance", "nested more than 64 levels deep"}},
    {"deep_model_file", with_scenario([](json& s, const fs::path& dir) {
       test::write_text(dir / "config.json", R"({"model_type": "llama", "vocab_size": )" + kDeep + "}");
       s["model"] = (dir / "config.json").string();
     }), {"config.json: $.vocab_size", "nested more than 64 levels deep"}},
    {"deep_profile", with_scenario([](json&, const fs::path& dir) { test::write_text(dir / "p.json", R"({"machine": )" + kDeep + "}"); },
                                   "simulate --profile PROFILE"),
     {"p.json: $.machine", "nested"}},
    {"deep_catalog", with_scenario([](json&, const fs::path& dir) { test::write_text(dir / "cat" / "gpus.json", R"({"gpus": )" + kDeep + "}"); },
                                   "check --catalog CATALOG"),
     {"gpus.json: $.gpus", "nested"}},
    // Widths, layers, experts and vocabulary each in range, but a model whose parameters a 64-bit
    // count cannot hold (tests/fuzz/regressions/hf_config/).
    {"model_parameters_overflow", with_scenario([](json& s, const fs::path&) {
       s["model"] = {{"hidden_size", 1000000}, {"num_hidden_layers", 10000}, {"num_attention_heads", 1000000},
                     {"intermediate_size", 16000000}, {"vocab_size", 10000000}, {"max_position_embeddings", 100000000},
                     {"num_local_experts", 4096}, {"num_experts_per_tok", 4096}};
     }), {"scenario.json: $.model", "parameters", "at most 1e+15 parameters"}},
    // An integer past int64 that a double rounds to 2^63, which compares equal to INT64_MAX
    // (tests/fuzz/regressions/sweep/).
    {"baseline_seed_past_int64", with_scenario([](json&, const fs::path& dir) {
       test::write_text(dir / "config.json", R"({"scenarios": [], "seed": 9223372036854775808, "trials": 100})");
     }, "sweep --baseline PLACEHOLDER"),
     {"config.json: $.seed", "an integer from 0 to 9223372036854775807"}},
    // Numbers a double cannot hold; a key given twice.
    {"number_overflow", raw_scenario(R"({"name": "x", "model": "gpt2", "training": {"tokens": 1e400}})"),
     {"$.training.tokens", "number overflow"}},
    {"duplicate_key", raw_scenario(R"({"name": "x", "model": "gpt2", "model": "llama-2-7b"})"),
     {"$.model", "a second time", "each key once"}},
    // What is not a regular file is refused without reading it.
    {"scenario_is_a_directory", [](const fs::path& dir) { fs::create_directories(dir / "s.json"); return "check " + (dir / "s.json").string(); },
     {"s.json: got a directory"}},
    {"scenario_is_a_fifo", [](const fs::path& dir) { ::mkfifo((dir / "s.json").c_str(), 0600); return "check " + (dir / "s.json").string(); },
     {"s.json: got a FIFO"}},
    {"scenario_is_dev_zero", [](const fs::path& dir) { fs::create_symlink("/dev/zero", dir / "s.json"); return "check " + (dir / "s.json").string(); },
     {"s.json: got a device"}},
    {"model_is_dev_urandom", with_scenario([](json& s, const fs::path& dir) {
       fs::create_symlink("/dev/urandom", dir / "config.json");
       s["model"] = (dir / "config.json").string();
     }), {"scenario.json: $.model", "is a device"}},
    {"model_is_a_symlink_loop", with_scenario([](json& s, const fs::path& dir) {
       fs::create_symlink("b.json", dir / "a.json");
       fs::create_symlink("a.json", dir / "b.json");
       s["model"] = (dir / "a.json").string();
     }), {"scenario.json: $.model", "is a symlink loop"}},
    {"model_is_a_directory", with_scenario([](json& s, const fs::path& dir) {
       fs::create_directories(dir / "model.json");
       s["model"] = (dir / "model.json").string();
     }), {"scenario.json: $.model", "is a directory"}},
    {"trace_is_dev_zero", with_scenario([](json& s, const fs::path& dir) {
       fs::create_symlink("/dev/zero", dir / "trace.csv");
       s["preemption"] = {{"trace", (dir / "trace.csv").string()}};
     }), {"$.preemption.trace", "is a device"}},
    {"profile_is_a_fifo", with_scenario([](json&, const fs::path& dir) { ::mkfifo((dir / "p.json").c_str(), 0600); }, "simulate --profile PROFILE"),
     {"p.json: got a FIFO"}},
    // Trace times are finite non-negative whole numbers; counts are bounded.
    {"trace_nan_time", with_trace("0,add,n1\nnan,remove,n1\n"), {"trace.csv: line 2", "whole number"}},
    {"trace_inf_time", with_trace("0,add,n1\ninf,remove,n1\n"), {"line 2"}},
    {"trace_hex_time", with_trace("0,add,n1\n0x10,remove,n1\n"), {"line 2"}},
    {"trace_fractional_time", with_trace("0,add,n1\n1.5,remove,n1\n"), {"line 2"}},
    {"trace_huge_time", with_trace("0,add,n1\n1e308,remove,n1\n"), {"line 2"}},
    {"trace_out_of_order", with_trace("0,add,n1\n5000,add,n2\n10,remove,n1\n"), {"line 3", "time order"}},
    {"parcae_fractional_time", with_trace("[0, \"add\", {\"nodes\": [\"a\", \"b\"]}]\n[0.5, \"remove\", {\"nodes\": [\"a\"]}]\n"), {"line 2"}},
    {"gcloud_huge_count", with_trace("2021-12-11, 11:11:30, 99999999999999\n"), {"line 1", "up to 1000000"}},
    {"gcloud_bad_month", with_trace("2021-13-11, 11:11:30, 5\n"), {"line 1"}},
    // Counts that go up and down add up: at one moment (folded into one change), or over the trace
    // (its removals), they must not pass what an int holds (tests/fuzz/regressions/spot_trace_gcloud/).
    {"gcloud_up_and_down_at_one_moment", with_trace(gcloud_up_and_down(2148, true)),
     {"trace.csv: line 3", "at most 1000000 nodes added and 1000000 removed at one moment"}},
    {"gcloud_two_billion_removals", with_trace(gcloud_up_and_down(2148, false)),
     {"trace.csv: line 2002", "a trace of at most 1000000000 removals"}},
    // A trace error quotes a short prefix of the line, never the whole of whatever file was named.
    {"trace_quotes_little", with_trace("API_TOKEN=0123456789abcdefghijklmnopqrstuvwxyz-SECRET-TAIL\n"),
     {"line 1", "API_TOKEN=0123456789abcdefghijklmnopqrst"}, {"SECRET-TAIL"}},
    // Subnormal rates: bounded to plausible ranges instead of printing "step inf s".
    {"subnormal_write_bandwidth", with_scenario([](json& s, const fs::path&) { s["checkpoint"] = {{"write_GBps", 5e-324}}; }, "simulate"),
     {"$.checkpoint.write_GBps", "from 0.001"}},
    {"subnormal_profile_tflops", with_scenario([](json&, const fs::path& dir) {
       test::write_text(dir / "p.json", json{{"schema_version", 2}, {"machine", {{"gpu", "l4"}, {"gpu_count", 1}}},
                                             {"measured_at", "2026"}, {"source", "test"},
                                             {"matmul", {{{"dtype", "bf16"}, {"m", 1024}, {"n", 1024}, {"k", 1024}, {"tflops", 5e-324}}}}}
                                            .dump());
     }, "simulate --profile PROFILE"),
     {"p.json: $.matmul[0].tflops", "from 0.001"}},
    // Control characters in a value are escaped, so the message is not cut short at a NUL.
    {"nul_in_instance", with_scenario([](json& s, const fs::path&) { s["config"]["instance"] = std::string("aws/g6\0-after-nul", 17); }),
     {"$.config.instance", "-after-nul"}},
    {"nul_in_lora_target", with_scenario([](json& s, const fs::path&) {
       s["training"]["method"] = "lora";
       s["training"]["lora"] = {{"targets", {std::string("q_proj\0tail", 11)}}};
     }), {"$.training.lora.targets[0]", "tail"}},
    {"bidi_override_in_name", with_scenario([](json& s, const fs::path&) { s["name"] = "budget\u202ekcehc"; }),
     {"$.name", "bidirectional override"}},
    {"catalog_skipped_not_a_list", with_scenario([](json&, const fs::path& dir) {
       const fs::path cat = dir / "cat";
       fs::copy(fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs", cat, fs::copy_options::recursive);
       json aws = json::parse(test::read_text(cat / "instances" / "aws.json"));
       aws["skipped"] = "none";
       test::write_text(cat / "instances" / "aws.json", aws.dump());
     }, "check --catalog CATALOG"),
     {"aws.json: $.skipped", "a list of"}},
};

INSTANTIATE_TEST_SUITE_P(All, HostileInput, ::testing::ValuesIn(kCases), [](const ::testing::TestParamInfo<Hostile>& p) { return p.param.name; });

// A sweep names the scenario that referred to a malformed file.
TEST(HostileSweep, AMalformedModelNamesTheScenarioThatReadIt) {
  const fs::path dir = test::scratch_dir("hostile-sweep");
  json s = scenario();
  s["model"] = (dir / "model.json").string();
  test::write_text(dir / "model.json", "{\"model_type\": ");
  test::write_text(dir / "scenarios" / "s.json", s.dump());
  const test::CliResult r = test::run_preflight("sweep " + (dir / "scenarios").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("model.json: $: got malformed JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("read for the scenario " + (dir / "scenarios" / "s.json").string()), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// An inline --config pasted with leading white space or a byte-order mark is still inline JSON.
TEST(HostileConfig, InlineJsonWithLeadingSpaceOrBom) {
  const fs::path dir = test::scratch_dir("hostile-inline");
  json s = scenario();
  s.erase("config");
  test::write_text(dir / "s.json", s.dump());
  for (const std::string prefix : {" ", "\n\t", "\xEF\xBB\xBF"}) {
    const test::CliResult r = test::run_preflight("check " + (dir / "s.json").string() + " --config '" + prefix +
                                                  R"({"instance": "aws/g6.xlarge", "micro_batch": 4})" + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  fs::remove_all(dir);
}

// Seeds are written back into JSON as signed 64-bit integers: a wrapped -1 or 2^64 is refused.
TEST(HostileFlags, SeedsOutsideTheRangeAreRefused) {
  for (const std::string seed : {"-1", "18446744073709551615", "18446744073709551616", "1e3", ""}) {
    const test::CliResult r = test::run_preflight("simulate " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                  "/scenarios/gpt2-124m-pretrain-l4.json --trials 100 --seed '" + seed + "'");
    EXPECT_EQ(r.exit_code, 2) << seed;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// A scenario name that a spreadsheet would run as a formula is neutralised in CSV outputs.
TEST(HostileCsv, FormulaLikeNamesAreNeutralised) {
  const fs::path dir = test::scratch_dir("hostile-csv");
  for (const std::string name : {"=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)"}) {
    json s = scenario();
    s["name"] = name;
    test::write_text(dir / "s.json", s.dump());
    const test::CliResult r = test::run_preflight("sweep " + (dir / "s.json").string() + " --format csv --trials 100");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string row = r.out.substr(r.out.find('\n') + 1);
    EXPECT_TRUE(row.rfind("'" + name, 0) == 0 || row.rfind("\"'" + name.substr(0, 1), 0) == 0) << row;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
