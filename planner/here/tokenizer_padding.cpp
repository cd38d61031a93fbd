#include "planner/here/tokenizer_padding.hpp"

#include <system_error>

#include <nlohmann/json.hpp>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::here {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTokenizerConfig = "tokenizer_config.json";
constexpr const char* kSpecialTokensMap = "special_tokens_map.json";

// What transformers does without a pad token (tokenization_utils_base.py and data_collator.py):
// the padding check raises before any length is compared, and the usual fix has a catch of its own.
constexpr const char* kConsequence =
    ". transformers then refuses to pad: tokenizer(..., padding=...) and the collators that pad through it "
    "(DataCollatorWithPadding, DataCollatorForSeq2Seq, DataCollatorForLanguageModeling on dict examples) raise "
    "ValueError \"Asking to pad but the tokenizer does not have a padding token\" at the first batch, so a rented "
    "job fails at its first step (packed sequences of one fixed length need no padding). Set "
    "tokenizer.pad_token = tokenizer.eos_token (DataCollatorForLanguageModeling then masks every EOS in the "
    "labels as padding, so the model is not taught to stop) or add one: "
    "tokenizer.add_special_tokens({\"pad_token\": \"<pad>\"}) and model.resize_token_embeddings(len(tokenizer))";

// What one tokenizer file says of the pad token.
struct Stated {
  bool file_present = false;
  bool key_present = false;
  std::string token;  // empty: none (null, "" or no key)
  std::string tokenizer_class;
};

bool present(const fs::path& file) {
  std::error_code ignored;  // an unreadable entry counts as present, so that parse_file says why
  return fs::exists(fs::symlink_status(file, ignored));
}

// transformers writes a pad_token as its text, as null, or as an AddedToken object
// ({"__type": "AddedToken", "content": "<pad>", "lstrip": false, ...}).
std::string pad_text(const nlohmann::json& value, const std::string& file, const std::string& path) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_object()) {
    throw InputError(file, path, io::describe(value), "a string, null, or an AddedToken object {\"content\": ...}");
  }
  io::ObjectReader token(value, file, path, io::ObjectReader::Keys::lenient);
  if (!token.has("content") || !token.raw("content").is_string()) token.fail("content", "the token's text, a string");
  return token.raw("content").get<std::string>();
}

Stated read_stated(const fs::path& file) {
  Stated s;
  if (!present(file)) return s;
  s.file_present = true;
  const nlohmann::json doc = io::parse_file(file);
  // Lenient: tokenizer files carry dozens of keys that say nothing of padding.
  io::ObjectReader r(doc, file.string(), "$", io::ObjectReader::Keys::lenient);
  if (r.has("tokenizer_class") && r.raw("tokenizer_class").is_string()) {
    s.tokenizer_class = r.raw("tokenizer_class").get<std::string>();
  }
  if (!r.has("pad_token")) return s;
  s.key_present = true;
  s.token = pad_text(r.raw("pad_token"), file.string(), r.path_of("pad_token"));
  return s;
}

PadTokenCheck defined(const Stated& s, const char* file) {
  return {.status = PadToken::defined, .token = s.token, .defined_in = file, .message = ""};
}

// A key set to null (or "") is the tokenizer's own word; no key at all leaves the tokenizer class's
// default, which for Llama's, GPT-2's and the fast tokenizers is none.
std::string what_is_stated(const Stated& config, const Stated& map) {
  std::string what;
  for (const auto& [s, file] : {std::pair{&config, kTokenizerConfig}, std::pair{&map, kSpecialTokensMap}}) {
    if (s->key_present) what += std::string(what.empty() ? "" : " and ") + file + " sets pad_token to none";
  }
  if (!what.empty()) return what;
  what = std::string(kTokenizerConfig) +
         (map.file_present ? std::string(" and ") + kSpecialTokensMap + " name" : std::string(" names")) +
         " no pad_token";
  if (!config.tokenizer_class.empty()) what += " (unless " + config.tokenizer_class + " has a default of its own)";
  return what;
}

}  // namespace

PadTokenCheck check_pad_token(const fs::path& dir) {
  const Stated config = read_stated(dir / kTokenizerConfig);
  const Stated map = read_stated(dir / kSpecialTokensMap);
  // transformers reads special_tokens_map.json over tokenizer_config.json (which wins has changed
  // between versions), so a pad token in either reaches tokenizer.pad_token.
  if (!map.token.empty()) return defined(map, kSpecialTokensMap);
  if (!config.token.empty()) return defined(config, kTokenizerConfig);
  if (!config.file_present) {
    return {.status = PadToken::unchecked,
            .token = "",
            .defined_in = "",
            .message = "no " + std::string(kTokenizerConfig) + " in " + dir.string() +
                       ": whether the tokenizer has a pad token cannot be checked"};
  }
  return {.status = PadToken::missing,
          .token = "",
          .defined_in = "",
          .message = "no pad token: " + what_is_stated(config, map) + kConsequence};
}

}  // namespace preflight::here
