#pragma once
// Whether a Hugging Face model folder's tokenizer defines a pad token. Llama, Mistral and GPT-2
// tokenizers ship without one (their pre-training never padded), and transformers then stops at the
// first batch it has to pad; finding that before the job is rented is the point.

#include <filesystem>
#include <string>

namespace preflight::here {

enum class PadToken {
  defined,   // tokenizer_config.json or special_tokens_map.json names one
  missing,   // the tokenizer files say there is none (or say nothing of it): a warning
  unchecked  // no tokenizer_config.json or special_tokens_map.json in the folder
};

struct PadTokenCheck {
  PadToken status = PadToken::unchecked;
  std::string token;       // the pad token's text, when defined
  std::string defined_in;  // the file that defines it
  std::string message;     // the warning (missing) or why nothing was checked (unchecked); empty when defined
};

// Reads `dir`/tokenizer_config.json and `dir`/special_tokens_map.json where present; a file that is
// not JSON, or a pad_token that is neither a string, null nor an AddedToken object, is an
// InputError naming the file.
PadTokenCheck check_pad_token(const std::filesystem::path& dir);

}  // namespace preflight::here
