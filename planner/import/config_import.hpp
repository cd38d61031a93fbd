#pragma once
// `--from FILE`: a user's own training files read into what they say about the job (imported_setup.hpp).
// The format is told from the name and the contents: DeepSpeed JSON, Hugging Face TrainingArguments
// (JSON, or a YAML recipe), Accelerate YAML, axolotl YAML, SkyPilot task YAML, torchtitan TOML, and
// shell launches (a Megatron-LM pretrain_gpt.py launch, torchrun with Trainer arguments, a Slurm
// sbatch script). Files they refer to (a DeepSpeed JSON named by an Accelerate config) are read too.

#include <filesystem>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/import/import_context.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

// The formats, as messages and `check` name them.
inline constexpr const char* kImportFormats =
    "a DeepSpeed config (JSON), Hugging Face TrainingArguments (JSON or YAML), an Accelerate config (YAML), an axolotl "
    "config (YAML), a SkyPilot task (YAML), a torchtitan job config (TOML), or a launch script (Megatron-LM, torchrun, "
    "Slurm sbatch)";

// Every file, in order, into one setup; two files that disagree are an InputError naming both.
ImportedSetup import_files(const std::vector<std::string>& files, const Catalog& catalog);

// One file's text (`file` names it in messages and locates what it refers to; `file_name`, when
// given, is the name its format is told from: a heredoc's, whose message name says where it is).
ImportedSetup import_text(const std::string& text, const std::string& file, const ImportContext& context,
                          const std::string& file_name = "");

}  // namespace preflight
