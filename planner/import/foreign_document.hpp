#pragma once
// A user's YAML or TOML file as a JSON value, so every importer reads one kind of document. Bounded
// like every input: at most kMaxForeignBytes, nesting at most io::kMaxJsonDepth levels, and YAML
// aliases expanded to at most kMaxForeignValues values (an alias bomb would otherwise expand a few
// hundred bytes into billions of nodes). Malformed text is an InputError naming the file and the line.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace preflight {

// Training configs and launch scripts are a few kilobytes; a megabyte is far beyond any of them and
// keeps the recursive YAML parser's work small.
inline constexpr std::size_t kMaxForeignBytes = 1u << 20;
inline constexpr std::size_t kMaxForeignValues = 100'000;

// Plain scalars typed as PyYAML (YAML 1.1) types them, since the tools that read these files
// (Accelerate, axolotl, SkyPilot) load them with PyYAML: yes/no/on/off are booleans, 1e-5 without a
// dot is a string.
nlohmann::json yaml_document(const std::string& text, const std::string& file);

// Dates and times become strings.
nlohmann::json toml_document(const std::string& text, const std::string& file);

}  // namespace preflight
