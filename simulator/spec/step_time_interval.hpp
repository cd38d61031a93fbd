#pragma once
// How far a predicted time may be from the real one: an 80% prediction interval as multipliers of
// the prediction (measured over predicted: the 10th and 90th percentiles of held-out residuals).

namespace preflight {

struct StepTimeInterval {
  double low = 1.0;
  double high = 1.0;
  int rows = 0;  // held-out rows it was read from (0: no data)
};

}  // namespace preflight
