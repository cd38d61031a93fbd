#pragma once
// What the public spot traces say about a class of machines (catalogs/fitted/spot_interruptions.json,
// derived by catalogs/tools/spot_interruptions.py): how often a node is reclaimed, how long capacity
// stays away after a reclaim, how much of a fleet one reclaim takes, and the most nodes any trace held
// at once. Each figure is the median over the class's traces with the smallest and largest as its range.

#include <string>

namespace preflight {

struct FigureRange {
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
};

struct SpotMarketFigures {
  FigureRange interruptions_per_node_hour;
  FigureRange reacquire_hours;
  FigureRange reclaim_fraction;
  int max_nodes_observed = 0;
  // No trace of this class: the figures are a stated prior (every GPU trace pooled), and a plan
  // prices spot on it at the rate's pessimistic end.
  bool prior = false;
  std::string prior_why;
  std::string basis;  // "aws multi-GPU nodes, 4 traces" or "as aws multi-GPU nodes (no shipped Azure spot trace)"
  std::string source;
  std::string as_of;
};

}  // namespace preflight
