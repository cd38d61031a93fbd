#include "planner/report/validation_report.hpp"

#include "planner/report/measured_peak_report.hpp"
#include "planner/report/whole_run_report.hpp"

#include <nlohmann/json.hpp>

#include "planner/report/validation_cells.hpp"
#include "planner/text/markup_text.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/text_table.hpp"

namespace preflight {

namespace {

using validation_cells::markdown_row;
using validation_cells::plain_percent;
using validation_cells::signed_percent;
using validation::DatasetResult;
using validation::ErrorSummary;


std::vector<std::string> summary_cells(const std::string& name, const ErrorSummary& s) {
  return {name, std::to_string(s.rows), plain_percent(s.mean_absolute), signed_percent(s.mean_signed), plain_percent(s.worst),
          std::to_string(s.predicted_out_of_memory)};
}

const std::vector<std::string> kSummaryHeader{"", "rows", "MAE", "mean signed", "worst", "predicted OOM"};

std::vector<std::pair<std::string, const std::map<std::string, ErrorSummary>*>> groups(const DatasetResult& r) {
  return {{"GPU", &r.by_gpu}, {"precision", &r.by_precision}, {"stack", &r.by_framework}, {"regime", &r.by_regime}};
}

nlohmann::ordered_json summary_json(const ErrorSummary& s) {
  return {{"rows", s.rows},
          {"mean_absolute_error", rounded(s.mean_absolute, 4)},
          {"mean_signed_error", rounded(s.mean_signed, 4)},
          {"worst", rounded(s.worst, 4)},
          {"predicted_out_of_memory", s.predicted_out_of_memory}};
}

bool all_within(const std::vector<DatasetResult>& results, const whole_run::WholeRunValidation* whole) {
  for (const DatasetResult& r : results) {
    if (!r.passes()) return false;
  }
  return whole == nullptr || whole->all.within_tolerance();
}

std::string text(const std::vector<DatasetResult>& results, const std::string& fit, const whole_run::WholeRunValidation* whole,
                 const validation::MeasuredPeakValidation* peaks) {
  std::string out = "preflight validate: the simulator against published measurements\n";
  out += "  errors are speed errors: + when the prediction is faster than the measurement\n";
  out += "  fitted factors: " + (fit.empty() ? std::string("none (the physics alone)") : fit) + "\n";
  // With the shipped factors these rows are the ones they were fitted to: say so, and where the
  // errors on rows the fit did not see are.
  if (!fit.empty()) {
    out += "  in-sample: the factors were fitted to these rows; errors on rows the fit did not see (5-fold, leave one\n"
           "  dataset out) are in catalogs/fitted/step_model_report.md (preflight validate --refit DIR writes them)\n";
  }
  out += "\n";
  TextTable t({"dataset", "rows", "MAE", "mean signed", "worst", "predicted OOM", "tolerance (MAE)", ""},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::left});
  for (const DatasetResult& r : results) {
    std::vector<std::string> cells = summary_cells(r.dataset->name, r.all);
    cells.push_back(plain_percent(r.dataset->mae_tolerance));
    cells.push_back(r.within_tolerance() ? "ok" : r.dataset->gated ? "EXCEEDED" : "exceeded (reported, not gated)");
    t.add_row(cells);
  }
  out += t.render("  ");
  for (const DatasetResult& r : results) {
    out += "\n" + r.dataset->name + ": " + r.dataset->source + " (" + r.dataset->quantity + ")\n";
    for (const auto& [label, group] : groups(r)) {
      if (group->size() < 2) continue;
      std::vector<std::string> header = kSummaryHeader;
      header.front() = label;
      TextTable g(header, {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                           TextTable::Align::right, TextTable::Align::right});
      for (const auto& [name, s] : *group) g.add_row(summary_cells(name, s));
      out += g.render("  ");
    }
  }
  if (whole != nullptr) out += whole_run_text(*whole);
  if (peaks != nullptr) out += measured_peak_text(*peaks);
  out += all_within(results, whole) ? "\nevery dataset within its tolerance\n" : "\nA DATASET EXCEEDS ITS TOLERANCE\n";
  return out;
}

std::string json(const std::vector<DatasetResult>& results, const std::string& fit, const whole_run::WholeRunValidation* whole,
                 const validation::MeasuredPeakValidation* peaks) {
  nlohmann::ordered_json j;
  j["error_sign"] = "+ when the prediction is faster than the measurement";
  j["fit"] = fit.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(fit);
  j["in_sample"] = !fit.empty();  // the shipped factors were fitted to these rows

  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const DatasetResult& r : results) {
    nlohmann::ordered_json d;
    d["name"] = r.dataset->name;
    d["source"] = r.dataset->source;
    d["quantity"] = r.dataset->quantity;
    d["tolerance_mean_absolute_error"] = r.dataset->mae_tolerance;
    d.update(summary_json(r.all));
    d["within_tolerance"] = r.within_tolerance();
    d["gated"] = r.dataset->gated;
    for (const auto& [label, group] : groups(r)) {
      nlohmann::ordered_json g;
      for (const auto& [name, s] : *group) g[name] = summary_json(s);
      d[label == "GPU" ? "by_gpu" : label == "precision" ? "by_precision" : label == "stack" ? "by_framework" : "by_regime"] = g;
    }
    list.push_back(d);
  }
  j["datasets"] = list;
  if (whole != nullptr) j["whole_runs"] = whole_run_json(*whole);
  if (peaks != nullptr) j["measured_peaks"] = measured_peak_json(*peaks);
  j["within_tolerance"] = all_within(results, whole);
  return j.dump(2) + "\n";
}

std::string markdown(const std::vector<DatasetResult>& results, const std::string& fit, const whole_run::WholeRunValidation* whole,
                 const validation::MeasuredPeakValidation* peaks) {
  std::string out = "# Validation against published measurements\n\n";
  out += "Speed errors: + when the prediction is faster than the measurement. Fitted factors: " +
         markdown_text(fit.empty() ? "none (the physics alone)" : fit) + ".\n\n";
  out += markdown_row({"dataset", "rows", "MAE", "mean signed", "worst", "predicted OOM", "tolerance (MAE)", ""});
  out += "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const DatasetResult& r : results) {
    std::vector<std::string> cells = summary_cells(r.dataset->name, r.all);
    cells.push_back(plain_percent(r.dataset->mae_tolerance));
    cells.push_back(r.within_tolerance() ? "ok" : r.dataset->gated ? "**exceeded**" : "exceeded (reported, not gated)");
    out += markdown_row(cells);
  }
  for (const DatasetResult& r : results) {
    out += "\n## " + markdown_text(r.dataset->name) + "\n\n" + markdown_text(r.dataset->source) + "\n";
    for (const auto& [label, group] : groups(r)) {
      if (group->size() < 2) continue;
      std::vector<std::string> header = kSummaryHeader;
      header.front() = label;
      out += "\n" + markdown_row(header) + "|---|---:|---:|---:|---:|---:|\n";
      for (const auto& [name, s] : *group) out += markdown_row(summary_cells(name, s));
    }
  }
  if (whole != nullptr) out += whole_run_markdown(*whole);
  if (peaks != nullptr) out += measured_peak_markdown(*peaks);
  return out;
}

}  // namespace

std::string validation_report(const std::string& format, const std::vector<DatasetResult>& results, const std::string& fit,
                              const whole_run::WholeRunValidation* whole_runs, const validation::MeasuredPeakValidation* peaks) {
  if (format == "json") return json(results, fit, whole_runs, peaks);
  if (format == "markdown") return markdown(results, fit, whole_runs, peaks);
  return text(results, fit, whole_runs, peaks);
}

std::string fit_report_markdown(const validation::FitReport& report) {
  std::string out = "# The step model's fitted factors\n\n";
  out += "Written by `preflight validate --refit catalogs/fitted` (scripts/fit_step_model.sh) from the published "
         "measurements in ../shared/validation and published/long_sequence_runs.csv. Each factor is fitted only to the rows it moves, within its range; "
         "every dataset weighs the same. Errors are speed errors (+: predicted faster than measured).\n\n";
  out += "| factor | value | range | rows | data |\n|---|---:|---|---:|---|\n";
  for (const validation::FittedParameter& p : report.parameters) {
    std::string data;
    for (const std::string& d : p.datasets) data += (data.empty() ? "" : ", ") + d;
    out += markdown_row({p.name, fixed(p.value, 3), "[" + fixed(p.low, 2) + ", " + fixed(p.high, 2) + "]", std::to_string(p.rows),
                         data.empty() ? "none: left at the physics' own value" : data});
  }
  out += "\n| dataset | in-sample MAE / signed | fit without this dataset: MAE / signed | the same, calibrated on one trial of the model: MAE | 5-fold held-out MAE / signed | 80% interval coverage (held-out) |\n";
  out += "|---|---:|---:|---:|---:|---:|\n";
  const auto pair = [](const ErrorSummary& s) { return plain_percent(s.mean_absolute) + " / " + signed_percent(s.mean_signed); };
  for (const validation::HeldOut& h : report.held_out) {
    out += markdown_row({h.dataset, pair(h.in_sample), pair(h.without_dataset), h.without_dataset_calibrated_mae ? plain_percent(*h.without_dataset_calibrated_mae) : "-",
                         pair(h.k_fold), plain_percent(h.interval_coverage)});
  }
  out += "\nHeld-out coverage of the 80% interval over every row: " + plain_percent(report.interval_coverage) + ".\n";
  const StepTimeInterval& c = report.fit.calibrated_interval;
  const StepTimeInterval& u = report.fit.unseen_interval;
  // The stacks on generations that have an interval of their own in this fit; every other pair takes
  // the unseen one.
  std::string own;
  for (const auto& [stack, stack_name] : kFrameworkNames) {
    for (const auto& [arch, arch_name] : kGpuArchitectureNames) {
      if (report.fit.intervals[static_cast<std::size_t>(stack)][static_cast<std::size_t>(arch)].rows == 0) continue;
      own += (own.empty() ? "" : ", ") + std::string(stack_name) + " on " + std::string(arch_name);
    }
  }
  out += "\nA stack on a GPU generation without 20 held-out rows of its own (every pair but " + (own.empty() ? "none" : own) +
         ") takes the interval of a source the fit never saw: " +
         fixed(u.low, 3) + "-" + fixed(u.high, 3) +
         " x the prediction (each dataset under the fit without it, each weighing the same). Calibrated on one trial run of "
         "the same model, machine and stack (`preflight-calibrate --from-log`), such a source's other configurations fall in " +
         fixed(c.low, 3) + "-" + fixed(c.high, 3) + " x (" + std::to_string(c.rows) +
         " pairs of rows of one source, GPU, precision, stack and model); a profile from a trial carries that.\n";
  return out;
}

std::string sustained_share_markdown(const whole_run::SustainedShareFit& fit) {
  const SustainedThroughput& t = fit.sustained;
  std::string out = std::string(kSustainedSection) + "\n\n";
  out += "Fitted after the factors above: published whole pre-training runs (published/whole_runs.csv) planned as `validate` plans "
         "them, the share of the simulated step's throughput that makes the median of published over predicted GPU-hours one, "
         "in [" + fixed(kMinSustainedShare, 2) + ", " + fixed(kMaxSustainedShare, 2) + "]. Share: " +
         fixed(t.share, 3) + " over " + std::to_string(fit.runs) + " runs of " + std::to_string(t.families) +
         " families. Errors are GPU-hour errors (predicted over published, minus 1; -: optimistic).\n\n";
  out += "| family held out | runs | share fitted without it | median absolute error | mean signed error |\n|---|---:|---:|---:|---:|\n";
  for (const whole_run::HeldOutFamily& h : fit.held_out) {
    out += markdown_row({h.family, std::to_string(h.runs), fixed(h.share, 3), plain_percent(h.median_absolute), signed_percent(h.mean_signed)});
  }
  out += "\nEvery run, by the share fitted without its family: median absolute error " + plain_percent(t.held_out_median_absolute) +
         ", mean signed " + signed_percent(t.held_out_mean_signed) + ". A run's stepping time takes " + fixed(t.interval.low, 3) + "-" +
         fixed(t.interval.high, 3) + " x the simulated step's (80%: the spread of those held-out errors), beside the step model's own interval.\n";
  return out;
}

}  // namespace preflight
