#include "planner/whole_run/sustained_share_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "planner/text/number_text.hpp"
#include "planner/whole_run/whole_run_validation.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"

namespace preflight::whole_run {

namespace {

using Runs = std::vector<const PublishedWholeRun*>;

// The share moves by the median error each pass; a pass plans every run again (a different share
// can change the winning plan), so a few passes settle it to well under a percent.
constexpr int kPasses = 8;
constexpr double kSettled = 1e-4;
// Two rounds: the first fits the share without a spread and measures the held-out spread; the
// second fits it again with that spread (the run's expected hours are the log-normal's mean, which
// the spread raises) and measures the spread it ships with. Not a fixed point: the share shipped is
// fitted at the first round's spread and ships with the second's.
constexpr int kRounds = 2;

double quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double at = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// The sustained share with a log-normal spread `sigma` around 1 / share.
SustainedThroughput sustained_at(double share, double sigma, int runs) {
  SustainedThroughput t;
  t.share = share;
  t.interval = log_normal_interval(-std::log(share), sigma, runs);
  return t;
}

// ln(published / predicted) of each run with a plan.
std::vector<double> log_ratios(const Runs& runs, const Catalog& catalog, StepModelFit fit, const SustainedThroughput& at) {
  fit.sustained = at;
  std::vector<double> out;
  for (const PublishedWholeRun* run : runs) {
    const WholeRunResult r = predict_whole_run(*run, catalog, &fit);
    if (r.predicted_gpu_hours && *r.predicted_gpu_hours > 0.0) out.push_back(std::log(run->published_gpu_hours / *r.predicted_gpu_hours));
  }
  return out;
}

// The share whose median ln(published / predicted) over `runs` is zero, inside the plausible range.
double fit_share(const Runs& runs, const Catalog& catalog, const StepModelFit& step, double sigma) {
  double share = 1.0;
  for (int pass = 0; pass < kPasses; ++pass) {
    const std::vector<double> r = log_ratios(runs, catalog, step, sustained_at(share, sigma, static_cast<int>(runs.size())));
    if (r.empty()) return share;
    const double next = std::clamp(share * std::exp(-quantile(r, 0.5)), kMinSustainedShare, kMaxSustainedShare);
    const bool settled = std::abs(next - share) < kSettled * share;
    share = next;
    if (settled) break;
  }
  return share;
}

}  // namespace

SustainedShareFit fit_sustained_share(const std::vector<PublishedWholeRun>& runs, const Catalog& catalog, const StepModelFit& step) {
  Runs all;
  std::map<std::string, Runs> families;
  for (const PublishedWholeRun& r : runs) {
    // A team's measured throughput is compared with the step alone: it says nothing of the rest.
    if (r.from_throughput) continue;
    all.push_back(&r);
    families[r.family].push_back(&r);
  }
  SustainedShareFit out;
  double sigma = 0.0;
  double share = 1.0;
  for (int round = 0; round < kRounds; ++round) {
    share = fit_share(all, catalog, step, sigma);
    out.held_out.clear();
    std::vector<double> residuals;  // ln(published / predicted), each family by the share fitted without it
    for (const auto& [family, members] : families) {
      if (families.size() < 2) break;
      Runs others;
      for (const PublishedWholeRun* r : all) {
        if (r->family != family) others.push_back(r);
      }
      HeldOutFamily h;
      h.family = family;
      h.share = fit_share(others, catalog, step, sigma);
      const std::vector<double> r = log_ratios(members, catalog, step, sustained_at(h.share, sigma, static_cast<int>(others.size())));
      h.runs = static_cast<int>(r.size());
      std::vector<double> absolute;
      for (double x : r) {
        const double e = std::exp(-x) - 1.0;
        h.mean_signed += e / static_cast<double>(r.size());
        absolute.push_back(std::abs(e));
      }
      if (!absolute.empty()) h.median_absolute = quantile(absolute, 0.5);
      residuals.insert(residuals.end(), r.begin(), r.end());
      out.held_out.push_back(h);
    }
    if (residuals.size() >= 2) sigma = (quantile(residuals, 0.9) - quantile(residuals, 0.1)) / (2.0 * standard_normal_quantile(0.9));
    if (round + 1 == kRounds) {
      out.sustained = sustained_at(share, sigma, static_cast<int>(all.size()));
      out.sustained.families = static_cast<int>(families.size());
      std::vector<double> absolute;
      double signed_sum = 0.0;
      for (double x : residuals) {
        absolute.push_back(std::abs(std::exp(-x) - 1.0));
        signed_sum += std::exp(-x) - 1.0;
      }
      if (!absolute.empty()) {
        out.sustained.held_out_median_absolute = quantile(absolute, 0.5);
        out.sustained.held_out_mean_signed = signed_sum / static_cast<double>(absolute.size());
      }
      out.runs = static_cast<int>(residuals.size());
    }
  }
  out.sustained.basis = "fitted to " + std::to_string(all.size()) + " published runs of " + std::to_string(families.size()) +
                        " families; each family predicted from the others: median |error| " +
                        share_text(out.sustained.held_out_median_absolute) + ", mean signed " +
                        percent(out.sustained.held_out_mean_signed, 1);
  return out;
}

}  // namespace preflight::whole_run
