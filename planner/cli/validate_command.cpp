// `preflight validate`: the simulator, with the catalog's fitted factors, against every shipped
// dataset of published measurements, and the planner against published whole pre-training runs
// (published/whole_runs.csv), and the memory model against measured peaks (published/measured_peaks.csv,
// reported, not held to a tolerance yet); exit 1 when a dataset exceeds its tolerance. `--refit DIR`
// refits the factors from the same data, then what whole runs sustain of a step simulated with them,
// and writes DIR/step_model.json (what the catalog ships) and DIR/step_model_report.md (their error on
// data the fit did not see). `--refit-sustained DIR` refits the sustained share alone over the
// catalog's step factors (seconds) and writes both files with that part replaced.

#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include "planner/cli/common_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/validation_report.hpp"
#include "planner/validation/datasets.hpp"
#include "planner/validation/measured_peaks.hpp"
#include "planner/validation/step_model_fit_json.hpp"
#include "planner/whole_run/sustained_share_fit.hpp"
#include "planner/whole_run/whole_run_validation.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct ValidateOptions {
  OutputOptions output;
  std::string data;     // the published measurements; empty: validation::default_data_dir()
  std::string catalog;
  bool physics = false;  // ignore the catalog's fitted factors
  std::string refit;     // write a new fit here
  std::string as_of;     // the date the refit is stamped with
  std::string refit_sustained;  // write the catalog's fit with a new sustained share here
  bool rl_rows = false;          // print the RL rows by phase (CSV) instead of the report
};

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream&) {
  const Catalog catalog = Catalog::load_option(options.catalog, !options.physics && options.refit.empty());
  if (!options.refit_sustained.empty() && (options.physics || !options.refit.empty())) {
    throw InputError("", "--refit-sustained", options.physics ? "with --physics" : "with --refit",
                     "alone: it refits the sustained share over the catalog's step factors (--refit refits both)");
  }
  const std::filesystem::path data = options.data.empty() ? validation::default_data_dir() : std::filesystem::path(options.data);
  if (!std::filesystem::is_directory(data)) {
    throw InputError(data.string(), "--data", "no such folder", "the folder of published measurements (../shared/validation)");
  }
  const std::vector<validation::Dataset> datasets = validation::load_datasets(data, catalog);
  // The whole runs: a copy beside the other measurements (--data) wins over the repository's own.
  const std::filesystem::path beside = data / "whole_runs.csv";
  const std::filesystem::path runs_file = std::filesystem::exists(beside) ? beside : whole_run::whole_runs_file();
  const std::vector<whole_run::PublishedWholeRun> runs = whole_run::read_whole_runs(runs_file);
  if (!options.refit.empty()) {
    validation::FitReport report = validation::fit_step_model(datasets);
    // Then what whole runs sustain of steps simulated with those factors.
    const whole_run::SustainedShareFit sustained = whole_run::fit_sustained_share(runs, catalog, report.fit);
    report.fit.sustained = sustained.sustained;
    const std::string markdown = fit_report_markdown(report) + sustained_share_markdown(sustained);
    const std::filesystem::path dir(options.refit);
    io::write_output((dir / "step_model.json").string(), validation::step_model_fit_json(report, options.as_of).dump(2) + "\n", out);
    io::write_output((dir / "step_model_report.md").string(), markdown, out);
    io::write_output(options.output.out, markdown, out);
    return 0;
  }
  if (!options.refit_sustained.empty()) {
    // The sustained share alone, over the catalog's step factors: seconds, where --refit takes minutes.
    const std::filesystem::path shipped = catalog.dir() / "fitted" / "step_model.json";
    if (catalog.step_model_fit() == nullptr) {
      throw InputError(shipped.string(), "$", "no such file", "a catalog with a fitted step model (scripts/fit_step_model.sh writes it)");
    }
    const whole_run::SustainedShareFit sustained = whole_run::fit_sustained_share(runs, catalog, *catalog.step_model_fit());
    if (sustained.sustained.interval.rows == 0) {
      throw InputError(runs_file.string(), "gpu_hours_from", "no wall_time run with a plan",
                       "at least one run whose GPU-hours are its wall time, planned on its published machine");
    }
    std::ifstream in(shipped);
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);  // the catalog read it already: its order kept
    j["sustained_throughput"] = validation::sustained_throughput_json(sustained.sustained);
    // The report: the step factors' part as shipped, this part new.
    std::ifstream report_in(catalog.dir() / "fitted" / "step_model_report.md");
    std::stringstream shipped_report;
    if (report_in) shipped_report << report_in.rdbuf();
    const std::string before = shipped_report.str();
    const std::string report = before.substr(0, before.find(kSustainedSection)) + sustained_share_markdown(sustained);
    const std::filesystem::path dir(options.refit_sustained);
    io::write_output((dir / "step_model.json").string(), j.dump(2) + "\n", out);
    io::write_output((dir / "step_model_report.md").string(), report, out);
    io::write_output(options.output.out, sustained_share_markdown(sustained), out);
    return 0;
  }
  const StepModelFit* fit = options.physics ? nullptr : catalog.step_model_fit();
  if (options.rl_rows) {
    io::write_output(options.output.out, validation::rl_rows_csv(validation::rl_runs_file(), catalog, fit), out);
    return 0;
  }
  // The RL runs check the rollout model beside the step model's sets; no factor is fitted to them.
  std::vector<validation::Dataset> checked = datasets;
  for (validation::Dataset& d : validation::rl_datasets(validation::rl_runs_file(), catalog)) checked.push_back(std::move(d));
  const std::vector<validation::DatasetResult> results = validation::evaluate_datasets(checked, fit);
  const whole_run::WholeRunValidation whole = whole_run::validate_whole_runs(runs, runs_file, catalog, fit);
  // Measured peak memory: a copy beside the other measurements (--data) wins over the repository's own.
  const std::filesystem::path peaks_beside = data / "measured_peaks.csv";
  const validation::MeasuredPeakValidation peaks = validation::validate_measured_peaks(
      std::filesystem::exists(peaks_beside) ? peaks_beside : validation::measured_peaks_file(), catalog);
  io::write_output(options.output.out,
                   validation_report(options.output.format, results, fit != nullptr ? fit->source : "", &whole, &peaks), out);
  for (const validation::DatasetResult& r : results) {
    if (!r.passes()) return 1;
  }
  return whole.all.within_tolerance() ? 0 : 1;
}

}  // namespace

Command add_validate_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* c = app.add_subcommand("validate", "The simulator's error against every shipped dataset of published measurements");
  add_output_options(*c, o->output, {"table", "json", "markdown"});
  c->add_option("--data", o->data, "Folder of published measurements (default: ../shared/validation beside the checkout)")
      ->check(not_empty());
  add_catalog_option(*c, o->catalog);
  c->add_flag("--physics", o->physics, "Without the catalog's fitted factors: the published kernel figures alone");
  c->add_option("--refit", o->refit, "Refit the step model's factors and write DIR/step_model.json and DIR/step_model_report.md")
      ->check(not_empty());
  c->add_option("--refit-sustained", o->refit_sustained,
                 "Refit only what whole runs sustain of a step, over the catalog's step factors, and write DIR/step_model.json")
      ->check(not_empty());
  c->add_flag("--rl-rows", o->rl_rows, "Print each RL row's predicted phases as CSV (what scripts/fit_rl_trainer_share.py reads)");
  c->add_option("--as-of", o->as_of, "The date a refit is stamped with (YYYY-MM-DD)")->default_val("2026-12-01");
  return {c, [o](std::ostream& out, std::ostream& err) { return run_validate(*o, out, err); }};
}

}  // namespace preflight::cli
