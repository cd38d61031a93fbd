#pragma once
// Reads a recorded spot-capacity trace in the formats the public traces use:
// - Bamboo (NSDI'23): CSV lines `time_ms,add|remove,nodeN`;
// - Bamboo's gcloud traces: `YYYY-MM-DD, HH:MM:SS, <running instances>` (a drop in the count is a removal);
// - Parcae (NSDI'24): one JSON array per line `[time_ms, "add"|"remove"|"no-op", {"nodes": [...]}]`.

#include <filesystem>

#include "simulator/economics/spot_trace.hpp"

namespace preflight::io {

SpotTrace read_spot_trace(const std::filesystem::path& file);

}  // namespace preflight::io
