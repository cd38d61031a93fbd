#pragma once
// The lengths of a step's responses, from the two figures users know: the mean and the cap. RL
// responses pile up at the cap (truncated; DAPO's overlong runs report 15-30% clipped) and spread
// below it, so the model is an exponential cut at the cap, the clipped ones at the cap: one
// parameter, set by the mean. The slowest generator's longest response, which holds its batch
// while the others have finished, is the cap when enough responses are clipped, else the high
// quantile the number of responses reaches.

#include <cstdint>
#include <vector>

namespace preflight {

class ResponseLengths {
 public:
  // `mean` in (0, max]; a mean at the cap makes every response the cap.
  ResponseLengths(double mean, std::int64_t max);

  double mean() const { return mean_; }
  std::int64_t max() const { return max_; }
  // The share of responses cut at the cap.
  double clipped_share() const;
  // The length at quantile u in [0, 1): at least one token, at most the cap.
  std::int64_t quantile(double u) const;
  // `count` responses, one per quantile (i + 0.5) / count, the last replaced by the longest of
  // `of_all` responses (the step's, where this generator is the slowest of several).
  std::vector<std::int64_t> sample(std::int64_t count, std::int64_t of_all) const;

 private:
  double mean_;
  std::int64_t max_;
  double scale_ = 0.0;  // the exponential's mean before the cut; 0: every response at the cap
};

}  // namespace preflight
