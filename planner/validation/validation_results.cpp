#include "planner/validation/validation_results.hpp"

#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

namespace preflight::validation {

ErrorSummary summarize(const std::vector<const RowResult*>& rows) {
  ErrorSummary s;
  for (const RowResult* r : rows) {
    const double e = r->error();
    ++s.rows;
    s.mean_absolute += std::abs(e);
    s.mean_signed += e;
    s.worst = std::max(s.worst, std::abs(e));
    if (r->fits && !*r->fits) ++s.predicted_out_of_memory;
  }
  if (s.rows > 0) {
    s.mean_absolute /= s.rows;
    s.mean_signed /= s.rows;
  }
  return s;
}

namespace {

std::map<std::string, ErrorSummary> grouped(const std::vector<RowResult>& rows, std::string (*key)(const ValidationCase&)) {
  std::map<std::string, std::vector<const RowResult*>> groups;
  for (const RowResult& r : rows) groups[key(*r.row)].push_back(&r);
  std::map<std::string, ErrorSummary> out;
  for (const auto& [k, list] : groups) out[k] = summarize(list);
  return out;
}

}  // namespace

std::vector<DatasetResult> evaluate_datasets(const std::vector<Dataset>& datasets, const StepModelFit* fit) {
  std::vector<DatasetResult> out;
  for (const Dataset& d : datasets) {
    DatasetResult r;
    r.dataset = &d;
    r.rows.resize(d.cases.size());
    tbb::parallel_for(std::size_t{0}, d.cases.size(), [&](std::size_t i) {
      const Prediction p = d.cases[i].predict(fit);
      r.rows[i] = {&d.cases[i], p.seconds, p.fits};
    });
    std::vector<const RowResult*> all;
    for (const RowResult& row : r.rows) all.push_back(&row);
    r.all = summarize(all);
    r.by_gpu = grouped(r.rows, [](const ValidationCase& c) { return c.gpu; });
    r.by_precision = grouped(r.rows, [](const ValidationCase& c) { return to_string(c.precision); });
    r.by_framework = grouped(r.rows, [](const ValidationCase& c) { return to_string(c.framework); });
    r.by_regime = grouped(r.rows, [](const ValidationCase& c) { return c.regime; });
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace preflight::validation
