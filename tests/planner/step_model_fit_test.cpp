// The shipped fit (catalogs/fitted/step_model.json) is what scripts/fit_step_model.sh produces from
// the published measurements, every factor inside its plausible range, and its 80% intervals cover
// about 80% of rows the fit did not see.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "planner/catalog/catalog.hpp"
#include "planner/catalog/step_model_fit_io.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/validation/datasets.hpp"
#include "planner/validation/step_model_fit_json.hpp"
#include "planner/validation/step_model_fitter.hpp"
#include "simulator/hardware/framework_defaults.hpp"
#include "tests/planner/here_scratch.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kShipped = fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs" / "fitted" / "step_model.json";

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The refit simulates the 1,783 rows about a hundred times (seconds in a release build, minutes under
// the sanitizers); CTest runs each TEST in its own process, so one TEST makes every check of it.
validation::FitReport refit() {
  const Catalog catalog = Catalog::load(fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs");
  return validation::fit_step_model(validation::load_datasets(PREFLIGHT_VALIDATION_DIR, catalog));
}

// The step factors; the sustained share fitted after them from whole runs has a test of its own
// (sustained_share_fit_test.cpp), which starts from the shipped factors this test proves.
void expect_reproduces_the_shipped_file(const validation::FitReport& report) {
  nlohmann::ordered_json shipped = nlohmann::ordered_json::parse(read_text(kShipped));
  shipped.erase("sustained_throughput");
  const std::string again = validation::step_model_fit_json(report, shipped.at("as_of").get<std::string>()).dump(2) + "\n";
  EXPECT_EQ(again, shipped.dump(2) + "\n") << "re-run scripts/fit_step_model.sh and review the change";
}

void expect_factors_in_their_plausible_ranges(const validation::FitReport& report) {
  for (const validation::FittedParameter& p : report.parameters) {
    EXPECT_GE(p.value, p.low) << p.name;
    EXPECT_LE(p.value, p.high) << p.name;
    std::cout << p.name << " = " << p.value << " from " << p.rows << " rows\n";
  }
  // The host figures it scales stay the milliseconds per layer a stack spends, not tens of them.
  const StepModelFit& fit = report.fit;
  // (the issue: "a host overhead of 20 ms per layer is a bug"; vTrain's host-bound rows show 3-5 ms).
  for (double k : fit.host_time) EXPECT_LE(k * 1.247e-3, 10e-3);  // recompute + backward per layer, x the factor
}

void expect_intervals_cover_about_eighty_percent_of_unseen_rows(const validation::FitReport& report) {
  std::cout << "held-out coverage of the 80% interval: " << 100.0 * report.interval_coverage << "%\n";
  EXPECT_GE(report.interval_coverage, 0.70);
  EXPECT_LE(report.interval_coverage, 0.90);
  for (const validation::HeldOut& h : report.held_out) {
    std::cout << h.dataset << ": in-sample " << 100.0 * h.in_sample.mean_absolute << "%, 5-fold held-out "
              << 100.0 * h.k_fold.mean_absolute << "%, without the dataset " << 100.0 * h.without_dataset.mean_absolute << "%\n";
    // Within a source, rows the fit did not see are predicted about as well as those it did (a source
    // of four rows, where a fold is one row, is too small to say).
    if (h.in_sample.rows >= 5) {
      EXPECT_LT(h.k_fold.mean_absolute, h.in_sample.mean_absolute + 0.02) << h.dataset;
    }
  }
}

// The published long-sequence runs (published/long_sequence_runs.csv) within the 25% the model issue
// asks of them, every row; and each H100 source predicted from the other (the fit that never saw it)
// within 15% on average. The B200 table is the only Blackwell data: without it, Blackwell keeps the
// physics alone, and its error is printed, not bounded.
void expect_long_sequence_runs_within_a_quarter(const validation::FitReport& report) {
  int sources = 0;
  for (const validation::HeldOut& h : report.held_out) {
    const bool h100 = h.dataset == "nemo-h100" || h.dataset == "torchtitan-h100";
    if (!h100 && h.dataset != "nemo-b200") continue;
    ++sources;
    std::cout << h.dataset << ": worst row " << 100.0 * h.in_sample.worst << "%, without the dataset "
              << 100.0 * h.without_dataset.mean_absolute << "% (signed " << 100.0 * h.without_dataset.mean_signed << "%)\n";
    EXPECT_LT(h.in_sample.worst, 0.25) << h.dataset;
    if (h100) {
      EXPECT_LT(h.without_dataset.mean_absolute, 0.15) << h.dataset;
    }
  }
  EXPECT_EQ(sources, 3);
}

void expect_the_catalog_ships_it(const validation::FitReport& report) {
  const Catalog catalog = Catalog::load(fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs");
  ASSERT_NE(catalog.step_model_fit(), nullptr);
  const StepModelFit& shipped = *catalog.step_model_fit();
  EXPECT_NEAR(shipped.kernels(GpuArchitecture::ampere), report.fit.kernels(GpuArchitecture::ampere), 1e-6);
  EXPECT_NEAR(shipped.host(Framework::megatron), report.fit.host(Framework::megatron), 1e-6);
  EXPECT_NEAR(shipped.attention(GpuArchitecture::hopper), report.fit.attention(GpuArchitecture::hopper), 1e-6);
  const StepTimeInterval& megatron = shipped.interval(Framework::megatron, GpuArchitecture::ampere);
  EXPECT_GT(megatron.rows, 0);
  EXPECT_LT(megatron.low, 1.0);
  EXPECT_GT(megatron.high, 1.0);
  // A stack or generation without data takes the interval of every row.
  EXPECT_EQ(shipped.interval(Framework::transformers, GpuArchitecture::blackwell).rows, shipped.unseen_interval.rows);
}

// The host time is one factor every stack shares times each stack's deviation (and the GEMMs' one
// factor every GPU generation shares times each generation's): a stack with no rows
// of its own (the Hugging Face Trainer's) takes the shared factor, not the build machine's figure;
// each stack's host time is the product. vTrain's single-node rows, the only host-bound ones, put it
// near their 3 ms per layer and micro-batch (x 1.2 ms measured on the build machine: 1.5-3); without
// them the prior keeps it near the physics (the held-out row of the report, not bounded here).
void expect_stacks_share_the_host_factor(const validation::FitReport& report) {
  const auto value = [&](const std::string& name) {
    for (const validation::FittedParameter& p : report.parameters) {
      if (p.name == name) return p.value;
    }
    ADD_FAILURE() << "no parameter " << name;
    return 0.0;
  };
  const double shared = value("host_time.shared");
  EXPECT_GT(shared, 1.5);
  EXPECT_LT(shared, 3.0);
  EXPECT_DOUBLE_EQ(report.fit.host(Framework::transformers), shared);  // no rows: the shared factor alone
  // Megatron's host time per layer and micro-batch (the build machine's forward and backward,
  // framework_defaults.hpp) inside the 2-5 ms that vTrain's host-bound rows show (the issue:
  // 3-5 ms per step's layer and micro-batch, some of it the GPU's own kernels).
  const FrameworkMeasurement build_machine = framework_defaults::pytorch_eager();
  const double megatron_ms =
      report.fit.host(Framework::megatron) * 1e3 * (build_machine.layer_forward_seconds + build_machine.layer_backward_seconds);
  EXPECT_GT(megatron_ms, 2.0);
  EXPECT_LT(megatron_ms, 5.0);
  // Rows that barely depend on host time (llm-foundry's large per-GPU batches) leave their stack's
  // deviation near 1 rather than at a bound.
  EXPECT_NEAR(value("host_time.llm-foundry"), 1.0, 0.1);
  // The same for the GEMMs: a generation without rows (Ada: the RTX 4090, the L4) takes the factor
  // every measured generation shares, below 1 as each of theirs is, not the published peak's rate.
  const double kernels = value("kernel_efficiency.shared");
  EXPECT_LT(kernels, 1.0);
  EXPECT_GT(kernels, 0.8);
  EXPECT_DOUBLE_EQ(report.fit.kernels(GpuArchitecture::ada), kernels);
  for (const GpuArchitecture a : {GpuArchitecture::ampere, GpuArchitecture::hopper, GpuArchitecture::blackwell}) {
    EXPECT_LT(report.fit.kernels(a), 1.0) << to_string(a);  // no generation's GEMMs reach the published best
  }
}

TEST(StepModelFit, RefitReproducesTheShippedFactorsInRangeWithHonestIntervals) {
  const validation::FitReport report = refit();
  {
    SCOPED_TRACE("reproduces catalogs/fitted/step_model.json");
    expect_reproduces_the_shipped_file(report);
  }
  {
    SCOPED_TRACE("every factor in its plausible range");
    expect_factors_in_their_plausible_ranges(report);
  }
  {
    SCOPED_TRACE("80% intervals cover about 80% of held-out rows");
    expect_intervals_cover_about_eighty_percent_of_unseen_rows(report);
  }
  {
    SCOPED_TRACE("long-sequence runs within 25%");
    expect_long_sequence_runs_within_a_quarter(report);
  }
  {
    SCOPED_TRACE("every stack shares the host factor");
    expect_stacks_share_the_host_factor(report);
  }
  {
    SCOPED_TRACE("the catalog loads the same factors");
    expect_the_catalog_ships_it(report);
  }
}

// The whole procedure (in-sample fit, leave one dataset out, five folds, intervals) on the small
// published sets alone, 39 rows of 1,783: what the sanitizer run checks of the fitter, where the full
// refit above (16x slower there than in the release build, the suite's longest test by far) is left to
// the release run (CMakePresets.json's sanitize test preset).
TEST(StepModelFit, TheWholeProcedureOnTheSmallSetsStaysInRange) {
  const Catalog catalog = Catalog::load(fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs");
  std::vector<validation::Dataset> small;
  for (validation::Dataset& d : validation::load_datasets(PREFLIGHT_VALIDATION_DIR, catalog)) {
    if (d.cases.size() <= 10) small.push_back(std::move(d));
  }
  ASSERT_GE(small.size(), 4u);  // korthikanti-2022, narayanan-2021, nemo-b200, torchtitan-h100
  const validation::FitReport report = validation::fit_step_model(small);
  for (const validation::FittedParameter& p : report.parameters) {
    EXPECT_GE(p.value, p.low) << p.name;
    EXPECT_LE(p.value, p.high) << p.name;
  }
  ASSERT_EQ(report.held_out.size(), small.size());
  for (const validation::HeldOut& h : report.held_out) {
    EXPECT_GT(h.in_sample.rows, 0) << h.dataset;
    EXPECT_EQ(h.without_dataset.rows, h.in_sample.rows) << h.dataset;
    EXPECT_LT(h.in_sample.mean_absolute, 0.25) << h.dataset;
  }
  EXPECT_GE(report.interval_coverage, 0.0);
  EXPECT_LE(report.interval_coverage, 1.0);
}

// A fit written before Unsloth was a stack (no host_time.unsloth) still loads: Unsloth takes
// transformers' factor, as the fitter gives a stack without rows of its own the shared one.
TEST(StepModelFitFile, AFitWithoutUnslothLoads) {
  const std::filesystem::path shipped = std::filesystem::path(PREFLIGHT_CATALOG_DIR) / "fitted" / "step_model.json";
  nlohmann::json j = io::parse_file(shipped);
  j["host_time"].erase("unsloth");
  test::ScratchFolder scratch;
  const StepModelFit fit = read_step_model_fit(scratch.write("step_model.json", j.dump(2)));
  EXPECT_EQ(fit.host(Framework::unsloth), fit.host(Framework::transformers));
  EXPECT_EQ(fit.host(Framework::transformers), read_step_model_fit(shipped).host(Framework::transformers));
}

}  // namespace
}  // namespace preflight
