#include "planner/report/whole_run_report.hpp"

#include <cmath>

#include "planner/report/validation_cells.hpp"
#include "planner/text/markup_text.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/text_table.hpp"

namespace preflight {

namespace {

using validation_cells::markdown_row;
using validation_cells::plain_percent;
using validation_cells::signed_percent;
using whole_run::WholeRunResult;
using whole_run::WholeRunSummary;
using whole_run::WholeRunValidation;

std::string gpu_hours(double h) { return grouped_digits(static_cast<std::int64_t>(std::llround(h))); }

const std::string kSign = "errors in GPU-hours: - when the plan predicts fewer than the run took (optimistic), + when more";

std::string bounds() {
  return "median absolute at most " + plain_percent(whole_run::kMedianAbsoluteTolerance) + ", mean signed within +-" +
         plain_percent(whole_run::kMeanSignedTolerance);
}

std::vector<std::string> row_cells(const WholeRunResult& r) {
  const std::string gpus = grouped_digits(r.run.gpus) + (r.run.gpus_published ? "" : "*");
  if (!r.predicted_gpu_hours) return {r.run.id, gpus, gpu_hours(r.run.published_gpu_hours), "-", "-", "-", "-", r.refusal};
  return {r.run.id, gpus, gpu_hours(r.run.published_gpu_hours), gpu_hours(*r.predicted_gpu_hours), signed_percent(r.error()),
          plain_percent(r.mfu), plain_percent(r.failure_free_share), r.layout};
}

const std::vector<std::string> kRowHeader{"run", "GPUs", "published GPU-h", "predicted GPU-h", "error", "MFU", "in steps", "plan"};

std::vector<std::string> summary_cells(const std::string& name, const WholeRunSummary& s) {
  return {name, std::to_string(s.rows), plain_percent(s.median_absolute), signed_percent(s.mean_signed), signed_percent(s.worst),
          std::to_string(s.unplanned)};
}

const std::vector<std::string> kSummaryHeader{"", "rows", "median |error|", "mean signed", "worst", "no plan"};

nlohmann::ordered_json summary_json(const WholeRunSummary& s) {
  return {{"rows", s.rows},
          {"median_absolute_error", rounded(s.median_absolute, 4)},
          {"mean_signed_error", rounded(s.mean_signed, 4)},
          {"worst", rounded(s.worst, 4)},
          {"unplanned", s.unplanned}};
}

// The sustained share the plans took, and why the errors above are in sample.
std::string sustained_text(const WholeRunValidation& v) {
  const SustainedThroughput& t = v.sustained;
  if (t.interval.rows == 0) return "";
  return "the plans step at " + share_text(t.share) + " of the simulated step's throughput, fitted to the wall-time runs above (so their " +
         "errors are in sample); each of its " + std::to_string(t.families) + " families predicted by the share fitted to the others: median |error| " +
         plain_percent(t.held_out_median_absolute) + ", mean signed " + signed_percent(t.held_out_mean_signed);
}

}  // namespace

std::string whole_run_text(const WholeRunValidation& v) {
  std::string out = "\nwhole runs: published pre-training runs planned on their published GPUs (" + v.file.string() + ")\n";
  out += "  " + kSign + "; * GPUs not published (the file says what was taken)\n";
  out += "  predicted: the plan's expected hours (faults, checkpoints, start-up, stepping at the sustained share) x its GPUs; in steps: "
         "the share of them spent stepping\n";
  TextTable rows(kRowHeader, {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                              TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::left});
  for (const WholeRunResult& r : v.rows) rows.add_row(row_cells(r));
  out += rows.render("  ");
  std::vector<std::string> header = kSummaryHeader;
  header.front() = "family";
  TextTable families(header, {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                              TextTable::Align::right, TextTable::Align::right});
  for (const auto& [family, s] : v.by_family) families.add_row(summary_cells(family, s));
  families.add_row(summary_cells("all", v.all));
  out += "\n" + families.render("  ");
  out += "  whole runs " + std::string(v.all.within_tolerance() ? "within" : "EXCEED") + " their bounds (" + bounds() + ")\n";
  if (!sustained_text(v).empty()) out += "  " + sustained_text(v) + "\n";
  return out;
}

std::string whole_run_markdown(const WholeRunValidation& v) {
  std::string out = "\n## Whole runs\n\nPublished pre-training runs planned on their published GPUs (" + markdown_text(v.file.filename().string()) +
                    "); " + markdown_text(kSign) + ". * GPUs not published.\n\n";
  out += markdown_row(kRowHeader) + "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const WholeRunResult& r : v.rows) out += markdown_row(row_cells(r));
  std::vector<std::string> header = kSummaryHeader;
  header.front() = "family";
  out += "\n" + markdown_row(header) + "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [family, s] : v.by_family) out += markdown_row(summary_cells(family, s));
  out += markdown_row(summary_cells("all", v.all));
  out += "\nBounds: " + markdown_text(bounds()) + ": " + (v.all.within_tolerance() ? "within." : "**exceeded**.") + "\n";
  if (!sustained_text(v).empty()) out += "\n" + markdown_text(sustained_text(v)) + "\n";
  return out;
}

nlohmann::ordered_json whole_run_json(const WholeRunValidation& v) {
  nlohmann::ordered_json j;
  j["file"] = v.file.string();
  j["quantity"] = "GPU-hours of the whole run";
  j["error_sign"] = kSign;
  j["tolerance_median_absolute_error"] = whole_run::kMedianAbsoluteTolerance;
  j["tolerance_mean_signed_error"] = whole_run::kMeanSignedTolerance;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const WholeRunResult& r : v.rows) {
    nlohmann::ordered_json row;
    row["id"] = r.run.id;
    row["family"] = r.run.family;
    row["gpus"] = r.run.gpus;
    row["gpus_published"] = r.run.gpus_published;
    row["published_gpu_hours"] = r.run.published_gpu_hours;
    row["basis"] = r.run.basis;
    if (r.predicted_gpu_hours) {
      row["predicted_gpu_hours"] = rounded(*r.predicted_gpu_hours, 0);
      row["error"] = rounded(r.error(), 4);
      row["hours"] = rounded(r.wall_hours, 2);
      row["failure_free_share"] = rounded(r.failure_free_share, 4);
      row["mfu"] = rounded(r.mfu, 4);
      row["plan"] = r.layout;
    } else {
      row["predicted_gpu_hours"] = nullptr;
      row["refusal"] = r.refusal;
    }
    rows.push_back(row);
  }
  j["runs"] = rows;
  j.update(summary_json(v.all));
  nlohmann::ordered_json families;
  for (const auto& [family, s] : v.by_family) families[family] = summary_json(s);
  j["by_family"] = families;
  j["within_tolerance"] = v.all.within_tolerance();
  if (v.sustained.interval.rows > 0) {
    const SustainedThroughput& t = v.sustained;
    j["sustained"] = {{"share", rounded(t.share, 4)},
                      {"interval", {rounded(t.interval.low, 4), rounded(t.interval.high, 4)}},
                      {"families", t.families},
                      {"held_out_median_absolute_error", rounded(t.held_out_median_absolute, 4)},
                      {"held_out_mean_signed_error", rounded(t.held_out_mean_signed, 4)},
                      {"basis", t.basis}};
  }
  return j;
}

}  // namespace preflight
