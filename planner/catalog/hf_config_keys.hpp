#pragma once
// How the family readers (hf_model_families.cpp, hf_gelu_families.cpp) read a config's keys: the
// bounds of every width, and absent or null keys taken as transformers takes them.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::hf {

inline constexpr std::int64_t kMaxWidth = 1'000'000;
inline constexpr std::int64_t kMaxLayers = 10'000;
inline constexpr std::int64_t kMaxVocab = 10'000'000;
inline constexpr std::int64_t kMaxPositions = 100'000'000;
inline constexpr std::int64_t kMaxExperts = 4096;

// An integer key that may be absent or null (transformers writes null for "use the default").
std::optional<std::int64_t> optional_int(io::ObjectReader& r, std::string_view key, std::int64_t min, std::int64_t max);

// The first of a key's spellings that the config writes (BLOOM's n_embed is hidden_size); when none
// is, the default, else the first spelling is required (and named in the error).
std::int64_t aliased_int(io::ObjectReader& r, std::initializer_list<std::string_view> keys, std::int64_t min,
                         std::int64_t max, std::optional<std::int64_t> fallback = std::nullopt);

bool flag(io::ObjectReader& r, std::string_view key, bool fallback);
double dropout(io::ObjectReader& r, std::string_view key);

// head_dim as written, else `fallback`, else hidden / heads (which must divide).
void set_head_dim(io::ObjectReader& r, ModelSpec& m, std::optional<std::int64_t> fallback, std::string_view heads_key);
void check_kv_heads(const io::ObjectReader& r, const ModelSpec& m, std::string_view key);

}  // namespace preflight::hf
