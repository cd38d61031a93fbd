#include "planner/search/plan.hpp"

namespace preflight {

void keep_nearest(MissSlots& misses, NearestMiss miss) {
  std::optional<NearestMiss>& slot = misses[static_cast<int>(miss.reason)];
  if (!slot || miss.shortfall < slot->shortfall) slot = std::move(miss);
}

}  // namespace preflight
