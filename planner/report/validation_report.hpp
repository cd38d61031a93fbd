#pragma once
// `preflight validate`'s outputs: the simulator's error against every published dataset (rows, mean
// absolute and signed error, worst, runs predicted out of memory, the dataset's tolerance), and by
// GPU, precision, stack and regime; and `--refit`'s report of the fitted factors with their error on
// data the fit did not see.

#include <string>
#include <vector>

#include "planner/validation/step_model_fitter.hpp"
#include "planner/validation/validation_results.hpp"
#include "planner/whole_run/sustained_share_fit.hpp"
#include "planner/validation/measured_peaks.hpp"
#include "planner/whole_run/whole_run_validation.hpp"

namespace preflight {

// `format`: table, json or markdown. `fit`: what the predictions were made under ("" : the physics alone).
// `whole_runs`: the published whole runs' section, where they were planned (null: none); `peaks`: the
// measured peak memory's (null: none), reported and not held to a tolerance yet.
std::string validation_report(const std::string& format, const std::vector<validation::DatasetResult>& results,
                              const std::string& fit, const whole_run::WholeRunValidation* whole_runs = nullptr,
                              const validation::MeasuredPeakValidation* peaks = nullptr);

// Markdown: the fitted factors, their ranges and data, and the in-sample, leave-one-dataset-out and
// five-fold errors with the 80% interval's held-out coverage.
std::string fit_report_markdown(const validation::FitReport& report);

// The sustained share's section of the same report: the share, each family held out. It starts with
// kSustainedSection (what `validate --refit-sustained` replaces).
inline constexpr const char* kSustainedSection = "\n## What whole runs sustain of the simulated step";
std::string sustained_share_markdown(const whole_run::SustainedShareFit& fit);

}  // namespace preflight
