#pragma once
// How wrong the predicted step time may be, carried into the run. The fit's 80% prediction interval
// (measured over predicted step time, the 10th and 90th percentiles of held-out residuals:
// simulator/spec/step_model_fit.hpp) is read as a log-normal multiplier: the error is one factor for
// the whole run (a model that is 20% optimistic for a configuration is so on every step), not noise
// that averages out over steps. The Monte Carlo samples it by strata: equal-probability slices of
// the log-normal, each trial in one slice, so a seed gives the same numbers at any thread count and
// the run's percentiles include the model's error however few trials there are.

#include <vector>

#include "simulator/spec/step_model_fit.hpp"

namespace preflight {

// Strata of the multiplier: enough that the 10th and 90th percentiles of a run without
// interruptions fall within one slice (1%) of the interval's ends.
inline constexpr int kStepTimeStrata = 100;

// The multiplier at the middle (in probability) of each of `strata` equal slices, in increasing
// order; one multiplier when the interval is a point: 1 without data, its one value without spread.
std::vector<double> step_time_multipliers(const StepTimeInterval& interval, int strata = kStepTimeStrata);

// step_time_multipliers(...).front() without building the rest: the search's bounds call it once per
// candidate.
double fastest_step_time_multiplier(const StepTimeInterval& interval, int strata = kStepTimeStrata);

// The multiplier's mean (the log-normal's, exp(mu + sigma^2 / 2)): what the closed forms scale the
// step by so they estimate the Monte Carlo's mixture over the strata, not the run at the median.
double mean_step_time_multiplier(const StepTimeInterval& interval);

// The smallest multiplier of each of `bins` equal groups of the strata (bins divides strata): f
// increasing in the multiplier, their mean of f is never above the strata's mean of f, so a bound
// computed at `bins` points holds for the Monte Carlo's mixture over all the strata.
std::vector<double> step_time_multiplier_floors(const StepTimeInterval& interval, int bins, int strata = kStepTimeStrata);

// The standard normal quantile (Acklam's rational approximation, relative error under 1.2e-9;
// P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution function",
// 2003), for p in (0, 1).
double standard_normal_quantile(double p);

// The 80% interval of a log-normal multiplier: ln(multiplier) ~ N(mu, sigma), its 10th and 90th
// percentiles, read from `rows` residuals.
StepTimeInterval log_normal_interval(double mu, double sigma, int rows);

// A whole run's stepping time over the simulated one: the step model's error (`step`) times what a
// production run sustains of the simulated throughput (`sustained`), two independent log-normals
// (their logs' means add, their standard deviations add in quadrature); `step` alone when the
// sustained share was never fitted.
StepTimeInterval run_time_interval(const StepTimeInterval& step, const SustainedThroughput& sustained);

}  // namespace preflight
