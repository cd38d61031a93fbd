// `preflight validate`: the simulator, with the catalog's fitted factors, against every shipped
// dataset of published measurements, and the planner against published whole pre-training runs
// (published/whole_runs.csv); exit 1 when a dataset exceeds its tolerance. `--refit DIR`
// refits the factors from the same data and writes DIR/step_model.json (what the catalog ships) and
// DIR/step_model_report.md (their error on data the fit did not see).

#include <filesystem>
#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/validation_report.hpp"
#include "planner/validation/datasets.hpp"
#include "planner/validation/step_model_fit_json.hpp"
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
};

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream&) {
  const Catalog catalog = Catalog::load_option(options.catalog, !options.physics && options.refit.empty());
  const std::filesystem::path data = options.data.empty() ? validation::default_data_dir() : std::filesystem::path(options.data);
  if (!std::filesystem::is_directory(data)) {
    throw InputError(data.string(), "--data", "no such folder", "the folder of published measurements (../shared/validation)");
  }
  const std::vector<validation::Dataset> datasets = validation::load_datasets(data, catalog);
  if (!options.refit.empty()) {
    const validation::FitReport report = validation::fit_step_model(datasets);
    const std::filesystem::path dir(options.refit);
    io::write_output((dir / "step_model.json").string(), validation::step_model_fit_json(report, options.as_of).dump(2) + "\n", out);
    io::write_output((dir / "step_model_report.md").string(), fit_report_markdown(report), out);
    io::write_output(options.output.out, fit_report_markdown(report), out);
    return 0;
  }
  const StepModelFit* fit = options.physics ? nullptr : catalog.step_model_fit();
  const std::vector<validation::DatasetResult> results = validation::evaluate_datasets(datasets, fit);
  // The whole runs: a copy beside the other measurements (--data) wins over the repository's own.
  const std::filesystem::path beside = data / "whole_runs.csv";
  const std::filesystem::path runs_file = std::filesystem::exists(beside) ? beside : whole_run::whole_runs_file();
  const whole_run::WholeRunValidation whole =
      whole_run::validate_whole_runs(whole_run::read_whole_runs(runs_file), runs_file, catalog, fit);
  io::write_output(options.output.out, validation_report(options.output.format, results, fit != nullptr ? fit->source : "", &whole), out);
  for (const validation::DatasetResult& r : results) {
    if (!r.within_tolerance()) return 1;
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
  c->add_option("--as-of", o->as_of, "The date a refit is stamped with (YYYY-MM-DD)")->default_val("2026-12-01");
  return {c, [o](std::ostream& out, std::ostream& err) { return run_validate(*o, out, err); }};
}

}  // namespace preflight::cli
