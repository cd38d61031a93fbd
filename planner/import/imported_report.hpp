#pragma once
// What was read from the --from files, for the user to check: each value with the file and key that
// gave it, every key left out and why, and how a value was interpreted.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/import/imported_setup.hpp"

namespace preflight {

// {"files": [{file, format}], "read": [{field, value, file, key}], "ignored": [{file, key, why}], "notes": [...]}
nlohmann::ordered_json imported_json(const ImportedSetup& setup);

// The same as text: one line per value read, ignored keys grouped by reason.
std::string imported_text(const ImportedSetup& setup);

}  // namespace preflight
