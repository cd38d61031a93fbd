#pragma once
// One importer per format (config_import.hpp tells which a file is). Each records what its file
// says in `setup`, every key it does not read as ignored with the reason, and throws InputError
// naming the file and key for a value it cannot take.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/import/import_context.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

void import_deepspeed(const nlohmann::json& doc, const std::string& file, ImportedSetup& setup, const ImportContext& context);
void import_accelerate(const nlohmann::json& doc, const std::string& file, ImportedSetup& setup, const ImportContext& context);
// TrainingArguments (and TRL's SFTConfig/ModelConfig) as a JSON file, a YAML recipe or a script's
// command-line arguments (`prefix` "--" then).
void import_training_args(const nlohmann::json& doc, const std::string& file, const std::string& prefix,
                          ImportedSetup& setup, const ImportContext& context);
void import_axolotl(const nlohmann::json& doc, const std::string& file, ImportedSetup& setup, const ImportContext& context);
void import_torchtitan(const nlohmann::json& doc, const std::string& file, ImportedSetup& setup, const ImportContext& context);
void import_skypilot(const nlohmann::json& doc, const std::string& file, ImportedSetup& setup, const ImportContext& context);
// A shell script: its variables, heredocs and #SBATCH lines, and the launch command it runs; false
// when it runs no training launch (said in a note).
bool import_shell(const std::string& text, const std::string& file, ImportedSetup& setup, const ImportContext& context);

// The Megatron-LM arguments of a pretrain_gpt.py command line: an object of flag (without its
// dashes) -> value (true for a bare flag, a list for several values), the last one given winning as
// in argparse.
void import_megatron_args(const nlohmann::json& args, const std::string& file, ImportedSetup& setup, const ImportContext& context);

}  // namespace preflight
