#pragma once
// The Hugging Face model families preflight reads, each as its transformers config class reads its
// config.json (key names, aliases and the defaults of absent keys), and the architectures it refuses.

#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::hf {

// The model of `r` read as `model_type`, with notes on what it does not count; nullopt when
// preflight does not know the type. A known type whose config says something preflight does not
// model throws an InputError saying "not supported".
std::optional<ModelSpec> read_family(io::ObjectReader& r, const std::string& model_type, std::vector<std::string>& notes);

// The Llama keys every decoder-only config of the family tree writes (hidden_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, head_dim, intermediate_size, vocab_size,
// max_position_embeddings, tie_word_embeddings, attention_bias, mlp_bias): how an unknown model_type
// is read.
ModelSpec read_llama_keys(io::ObjectReader& r);

// Why `model_type` is refused ("an encoder-decoder model", ...), or empty when it is not.
std::string refusal(const std::string& model_type);

// The families read, for messages.
const std::string& family_names();

// Whether preflight reads `model_type` ("llama", "mpt", ...).
bool is_family(std::string_view model_type);

// The family whose type, lower-cased without underscores, is `compact` ("gptbigcode" is gpt_bigcode).
std::optional<std::string> family_of_compact_name(std::string_view compact);

}  // namespace preflight::hf
