#pragma once
// PyTorch FSDP settings as the Hugging Face stack writes them: an Accelerate `fsdp_config`,
// TrainingArguments' `fsdp` options ("full_shard auto_wrap offload") and `fsdp_config`, axolotl's
// `fsdp` list and `fsdp_config`. One reading for all of them, since they name the same switches.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/import/foreign_object.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

// An fsdp_config object (keys with or without the "fsdp_" prefix).
void import_fsdp_config(ForeignObject& config, ImportedSetup& setup);

// The `fsdp` options: a space-separated string or a list of words.
void import_fsdp_options(const nlohmann::json& options, const std::string& file, const std::string& key, ImportedSetup& setup);

}  // namespace preflight
