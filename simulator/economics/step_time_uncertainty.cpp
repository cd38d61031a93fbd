#include "simulator/economics/step_time_uncertainty.hpp"

#include <cmath>

namespace preflight {

double standard_normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p < kLow) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  if (p > 1.0 - kLow) return -standard_normal_quantile(1.0 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

namespace {

// No data: the prediction itself.
bool is_unknown(const StepTimeInterval& interval) { return interval.rows == 0 || !(interval.low > 0.0); }

// One multiplier, no spread: the prediction times `low` (a shift known exactly).
bool is_point(const StepTimeInterval& interval, int strata) {
  return is_unknown(interval) || !(interval.high > interval.low) || strata < 2;
}

double point_of(const StepTimeInterval& interval) { return is_unknown(interval) ? 1.0 : interval.low; }

// ln(multiplier) ~ N(mu, sigma) with its 10th and 90th percentiles at ln(low) and ln(high).
struct LogNormal {
  double mu = 0.0;
  double sigma = 0.0;
};

LogNormal log_normal_of(const StepTimeInterval& interval) {
  if (is_unknown(interval)) return {};
  const double z90 = standard_normal_quantile(0.9);
  return {0.5 * (std::log(interval.low) + std::log(interval.high)), (std::log(interval.high) - std::log(interval.low)) / (2.0 * z90)};
}

// The multiplier at probability p: ln(multiplier) ~ N(mu, sigma) with its 10th and 90th percentiles at
// ln(low) and ln(high), so the quantile is exp(ln low + (ln high - ln low) (z_p + z90) / (2 z90)).
double multiplier_at(const StepTimeInterval& interval, double p) {
  const LogNormal d = log_normal_of(interval);
  return std::exp(d.mu + d.sigma * standard_normal_quantile(p));
}

}  // namespace

std::vector<double> step_time_multipliers(const StepTimeInterval& interval, int strata) {
  if (is_point(interval, strata)) return {point_of(interval)};
  std::vector<double> m(static_cast<std::size_t>(strata));
  for (int k = 0; k < strata; ++k) {
    m[static_cast<std::size_t>(k)] = multiplier_at(interval, (static_cast<double>(k) + 0.5) / static_cast<double>(strata));
  }
  return m;
}

double mean_step_time_multiplier(const StepTimeInterval& interval) {
  if (is_point(interval, kStepTimeStrata)) return point_of(interval);
  const LogNormal d = log_normal_of(interval);
  return std::exp(d.mu + 0.5 * d.sigma * d.sigma);
}

std::vector<double> step_time_multiplier_floors(const StepTimeInterval& interval, int bins, int strata) {
  if (is_point(interval, strata) || bins < 1) return {point_of(interval)};
  std::vector<double> m(static_cast<std::size_t>(bins));
  const int per_bin = strata / bins;
  for (int j = 0; j < bins; ++j) {
    m[static_cast<std::size_t>(j)] =
        multiplier_at(interval, (static_cast<double>(j * per_bin) + 0.5) / static_cast<double>(strata));
  }
  return m;
}

double fastest_step_time_multiplier(const StepTimeInterval& interval, int strata) {
  return is_point(interval, strata) ? point_of(interval) : multiplier_at(interval, 0.5 / static_cast<double>(strata));
}

StepTimeInterval log_normal_interval(double mu, double sigma, int rows) {
  const double z90 = standard_normal_quantile(0.9);
  return {std::exp(mu - z90 * sigma), std::exp(mu + z90 * sigma), rows};
}

// The whole runs' residuals the share's spread comes from hold the step model's own error too, so
// adding it again in quadrature makes the interval a little wider than the runs alone say (about 5%
// for a 0.9-1.2 step interval beside the shipped share's): wider, never narrower.
StepTimeInterval run_time_interval(const StepTimeInterval& step, const SustainedThroughput& sustained) {
  if (is_unknown(sustained.interval)) return step;
  const LogNormal a = log_normal_of(step);
  const LogNormal b = log_normal_of(sustained.interval);
  return log_normal_interval(a.mu + b.mu, std::hypot(a.sigma, b.sigma), step.rows + sustained.interval.rows);
}

}  // namespace preflight
