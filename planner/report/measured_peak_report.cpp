#include "planner/report/measured_peak_report.hpp"

#include "planner/report/validation_cells.hpp"
#include "planner/text/markup_text.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/text_table.hpp"

namespace preflight {

namespace {

using validation::MeasuredPeakResult;
using validation::MeasuredPeakSummary;
using validation::MeasuredPeakValidation;
using validation_cells::markdown_row;
using validation_cells::plain_percent;
using validation_cells::signed_percent;

const std::string kSign =
    "errors in peak memory: - when the prediction is below the measurement (optimistic: the job would run out of memory), + when above";
const std::string kCounted =
    "predicted as the source counted: torch's allocated and active peaks without the CUDA context, NCCL's buffers, a paged "
    "optimizer's unified memory and the allocator's cache; reserved (and unstated) with the cache; nvidia-smi with everything";

std::vector<std::string> summary_cells(const std::string& name, const MeasuredPeakSummary& s) {
  return {name,
          std::to_string(s.rows),
          s.rows > 0 ? plain_percent(s.median_absolute) : "-",
          s.rows > 0 ? signed_percent(s.mean_signed) : "-",
          s.rows > 0 ? signed_percent(s.worst) : "-",
          std::to_string(s.oom_called_fitting) + " of " + std::to_string(s.out_of_memory_rows),
          std::to_string(s.ran_called_oom)};
}

const std::vector<std::string> kSummaryHeader{"", "rows", "median |error|", "mean signed", "worst", "OOM runs called fitting",
                                              "runs called OOM"};

std::vector<std::string> row_cells(const MeasuredPeakResult& r) {
  if (r.limit) {
    // A context limit: tokens, not GiB.
    const std::string measured = r.ran ? grouped_digits(r.measured_limit) + " tok" : "OOM";
    const std::string predicted = grouped_digits(r.predicted_limit) + " tok";
    const std::string error = r.ran ? signed_percent(r.limit_error()) : (r.predicted_fits ? "CALLED FITTING" : "called OOM");
    return {r.id, r.source, r.method, measured, predicted, error, "longest context, no headroom"};
  }
  const std::string measured = r.measured_gib ? fixed(*r.measured_gib, 2) : "OOM";
  if (!r.predicted()) return {r.id, r.source, r.method, measured, "-", "-", r.not_predicted};
  const std::string error = r.measured_gib ? signed_percent(r.error()) : (r.predicted_fits ? "CALLED FITTING" : "called OOM");
  return {r.id, r.source, r.method, measured, fixed(r.predicted_gib, 2), error,
          r.kind + (r.sum_of_components ? ", sum of components" : "") + (r.predicted_fits ? "" : ", over the card")};
}

const std::vector<std::string> kRowHeader{"run", "source", "method", "measured GiB", "predicted GiB", "error", "counted"};

const std::string kLimitSign =
    "errors in context limits (the longest sequence that fits): + when preflight accepts a longer context than ran "
    "(optimistic: the job would run out of memory), - when shorter";

std::string limits_text(const validation::ContextLimitSummary& s) {
  if (s.rows == 0 && s.out_of_memory_rows == 0) return "context limits: none predicted";
  return "context limits: " + std::to_string(s.rows) + " rows, median |error| " + plain_percent(s.median_absolute) +
         ", mean signed " + signed_percent(s.mean_signed) + ", worst " + signed_percent(s.worst) + ", " +
         std::to_string(s.longer_than_ran) + " predicted longer than ran; OOM at every length called fitting: " +
         std::to_string(s.oom_called_fitting) + " of " + std::to_string(s.out_of_memory_rows);
}

nlohmann::ordered_json limits_json(const validation::ContextLimitSummary& s) {
  return {{"rows", s.rows},
          {"median_absolute_error", rounded(s.median_absolute, 4)},
          {"mean_signed_error", rounded(s.mean_signed, 4)},
          {"worst", rounded(s.worst, 4)},
          {"longer_than_ran", s.longer_than_ran},
          {"out_of_memory_rows", s.out_of_memory_rows},
          {"oom_called_fitting", s.oom_called_fitting}};
}

template <class Add>
void summaries(const MeasuredPeakValidation& v, Add add) {
  for (const auto& [name, s] : v.by_source) add(summary_cells(name, s));
  for (const auto& [name, s] : v.by_method) add(summary_cells("method " + name, s));
  add(summary_cells("all", v.all));
}

std::string not_predicted_text(const MeasuredPeakValidation& v) {
  std::string s;
  int total = 0;
  for (const auto& [why, n] : v.not_predicted) {
    s += (s.empty() ? "" : "; ") + std::to_string(n) + " " + why;
    total += n;
  }
  return std::to_string(total) + " of " + std::to_string(v.rows.size()) + " rows not predicted: " + s;
}

nlohmann::ordered_json summary_json(const MeasuredPeakSummary& s) {
  return {{"rows", s.rows},
          {"median_absolute_error", rounded(s.median_absolute, 4)},
          {"mean_signed_error", rounded(s.mean_signed, 4)},
          {"worst", rounded(s.worst, 4)},
          {"out_of_memory_rows", s.out_of_memory_rows},
          {"oom_called_fitting", s.oom_called_fitting},
          {"ran_called_oom", s.ran_called_oom}};
}

}  // namespace

std::string measured_peak_text(const MeasuredPeakValidation& v) {
  std::string out = "\nmeasured peak memory: published fine-tuning and training runs (" + v.file.string() + ")\n";
  out += "  " + kSign + "\n  " + kCounted + "\n";
  TextTable rows(kRowHeader, {TextTable::Align::left, TextTable::Align::left, TextTable::Align::left, TextTable::Align::right,
                              TextTable::Align::right, TextTable::Align::right, TextTable::Align::left});
  for (const MeasuredPeakResult& r : v.rows) {
    if (r.predicted()) rows.add_row(row_cells(r));
  }
  out += rows.render("  ");
  TextTable table(kSummaryHeader, {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                                   TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
  summaries(v, [&](std::vector<std::string> cells) { table.add_row(std::move(cells)); });
  out += "\n" + table.render("  ");
  out += "  " + not_predicted_text(v) + "\n";
  out += "  " + limits_text(v.limits) + "\n  " + kLimitSign + "\n";
  return out;
}

std::string measured_peak_markdown(const MeasuredPeakValidation& v) {
  std::string out = "\n## Measured peak memory\n\nPublished fine-tuning and training runs (" + markdown_text(v.file.filename().string()) +
                    "); " + markdown_text(kSign) + "; " + markdown_text(kCounted) + ".\n\n";
  out += markdown_row(kSummaryHeader) + "|---|---:|---:|---:|---:|---:|---:|\n";
  summaries(v, [&](const std::vector<std::string>& cells) { out += markdown_row(cells); });
  out += "\n" + markdown_text(not_predicted_text(v)) + ".\n\n";
  out += markdown_text(limits_text(v.limits)) + "; " + markdown_text(kLimitSign) + ".\n\n";
  out += markdown_row(kRowHeader) + "|---|---|---|---:|---:|---:|---|\n";
  for (const MeasuredPeakResult& r : v.rows) {
    if (r.predicted()) out += markdown_row(row_cells(r));
  }
  return out;
}

nlohmann::ordered_json measured_peak_json(const MeasuredPeakValidation& v) {
  nlohmann::ordered_json j;
  j["file"] = v.file.string();
  j["quantity"] = "peak GPU memory per GPU, GiB";
  j["error_sign"] = kSign;
  j["counted"] = kCounted;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const MeasuredPeakResult& r : v.rows) {
    nlohmann::ordered_json row;
    row["id"] = r.id;
    row["source"] = r.source;
    row["method"] = r.method;
    row["ran"] = r.ran;
    row["measured_gib"] = r.measured_gib ? nlohmann::ordered_json(*r.measured_gib) : nlohmann::ordered_json(nullptr);
    if (r.predicted()) {
      row["measured_kind"] = r.kind;
      row["predicted_gib"] = rounded(r.predicted_gib, 3);
      row["capacity_gib"] = rounded(r.capacity_gib, 2);
      row["predicted_fits"] = r.predicted_fits;
      row["peak_from"] = r.sum_of_components ? "sum_of_components" : "simulated_timeline";
      if (r.measured_gib) row["error"] = rounded(r.error(), 4);
      if (r.limit) {
        row["measured_limit_tokens"] = r.measured_limit;
        row["predicted_limit_tokens"] = r.predicted_limit;
        if (r.ran) row["limit_error"] = rounded(r.limit_error(), 4);
      }
    } else {
      row["not_predicted"] = r.not_predicted;
    }
    rows.push_back(row);
  }
  j["runs"] = rows;
  j.update(summary_json(v.all));
  nlohmann::ordered_json sources, methods, reasons;
  for (const auto& [name, s] : v.by_source) sources[name] = summary_json(s);
  for (const auto& [name, s] : v.by_method) methods[name] = summary_json(s);
  for (const auto& [why, n] : v.not_predicted) reasons[why] = n;
  j["by_source"] = sources;
  j["by_method"] = methods;
  j["not_predicted"] = reasons;
  j["context_limits"] = limits_json(v.limits);
  return j;
}

}  // namespace preflight
