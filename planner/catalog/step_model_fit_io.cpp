#include "planner/catalog/step_model_fit_io.hpp"

#include <cmath>
#include <string>

#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

StepTimeInterval read_interval(ObjectReader& r, double low_max = 1.0) {
  StepTimeInterval in;
  in.low = r.number("low", {0.01, low_max});
  in.high = r.number("high", {1.0, 100.0});
  in.rows = static_cast<int>(r.integer("rows", 1, 1'000'000));
  r.finish();
  return in;
}

}  // namespace

StepModelFit read_step_model_fit(const std::filesystem::path& file) {
  const nlohmann::json doc = io::parse_file(file);
  ObjectReader r(doc, file.string(), "$");
  StepModelFit fit;
  fit.source = r.string("source");
  r.string("as_of");
  r.string("data");
  // The ranges the fitter searches (planner/validation/step_model_fitter.cpp).
  ObjectReader kernels = r.object("kernel_efficiency");
  for (const auto& [arch, name] : kGpuArchitectureNames) {
    fit.kernel_efficiency[static_cast<std::size_t>(arch)] = kernels.number(name, {0.7, 1.1});
  }
  kernels.finish();
  ObjectReader attention = r.object("attention_efficiency");
  for (const auto& [arch, name] : kGpuArchitectureNames) {
    fit.attention_efficiency[static_cast<std::size_t>(arch)] = attention.number(name, {0.5, 1.1});
  }
  attention.finish();
  ObjectReader host = r.object("host_time");
  for (const auto& [stack, name] : kFrameworkNames) {
    // A fit written before Unsloth was a stack has no figure of its own for it: the fitter gives it the
    // shared factor transformers has when no rows of its own moved it.
    if (stack == Framework::unsloth && !host.has(name)) continue;
    fit.host_time[static_cast<std::size_t>(stack)] = host.number(name, {0.5, 4.0});
  }
  if (!host.has("unsloth")) fit.host_time[static_cast<std::size_t>(Framework::unsloth)] = fit.host(Framework::transformers);
  host.finish();
  fit.overlapped_compute_slowdown = r.number("overlapped_compute_slowdown", {0.0, 0.4});
  const nlohmann::json& intervals = r.raw("intervals");
  if (!intervals.is_array()) r.fail("intervals", "a list of {framework, architecture, low, high, rows}");
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    ObjectReader e(intervals[i], file.string(), "$.intervals[" + std::to_string(i) + "]");
    const Framework f = e.enum_value("framework", kFrameworkNames);
    const GpuArchitecture a = e.enum_value("architecture", kGpuArchitectureNames);
    fit.intervals[static_cast<std::size_t>(f)][static_cast<std::size_t>(a)] = read_interval(e);
  }
  ObjectReader unseen = r.object("unseen_interval");
  fit.unseen_interval = read_interval(unseen);
  ObjectReader calibrated = r.object("calibrated_interval");
  fit.calibrated_interval = read_interval(calibrated);
  r.raw("parameters");  // provenance of each value (name, range, rows, datasets): for readers, not the model
  if (r.has("sustained_throughput")) {
    // The range the fit keeps it in (planner/whole_run/sustained_share_fit.hpp).
    ObjectReader sustained = r.object("sustained_throughput");
    SustainedThroughput& t = fit.sustained;
    t.share = sustained.number("share", {kMinSustainedShare, kMaxSustainedShare});
    ObjectReader interval = sustained.object("interval");
    t.interval = read_interval(interval, 100.0);  // both ends above 1 where the share is well below 1
    if (t.interval.low > t.interval.high) sustained.fail("interval", "low at most high");
    // The runs take the interval; the share is what the text says of it: the two agree.
    if (std::abs(std::sqrt(t.interval.low * t.interval.high) * t.share - 1.0) > 1e-3) {
      sustained.fail("share", "1 / the interval's median (" + std::to_string(1.0 / std::sqrt(t.interval.low * t.interval.high)) + ")");
    }
    ObjectReader held = sustained.object("held_out");
    t.families = static_cast<int>(held.integer("families", 1, 10'000));
    t.held_out_median_absolute = held.number("median_absolute_error", {0.0, 100.0});
    t.held_out_mean_signed = held.number("mean_signed_error", {-1.0, 100.0});
    held.finish();
    t.basis = sustained.string("basis");
    sustained.finish();
  }
  r.finish();
  return fit;
}

}  // namespace preflight
