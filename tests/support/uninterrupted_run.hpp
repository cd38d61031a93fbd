#pragma once
// A run as users work one out by hand: so many hours at so many dollars an hour, 1,000 steps, no
// interruption, no checkpoint.

#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight::test {

inline RunInputs uninterrupted_run(double hours, double usd_per_hour) {
  RunInputs in;
  in.steps = 1000;
  in.step_seconds = hours * 3600.0 / 1000.0;
  in.usd_per_hour = usd_per_hour;
  in.interruptions = InterruptionProcess::none();
  return in;
}

}  // namespace preflight::test
