#include "planner/catalog/hf_config_keys.hpp"

namespace preflight::hf {

std::optional<std::int64_t> optional_int(io::ObjectReader& r, std::string_view key, std::int64_t min, std::int64_t max) {
  if (!r.has(key)) return std::nullopt;
  if (r.raw(key).is_null()) return std::nullopt;
  return r.integer(key, min, max);
}

std::int64_t aliased_int(io::ObjectReader& r, std::initializer_list<std::string_view> keys, std::int64_t min,
                         std::int64_t max, std::optional<std::int64_t> fallback) {
  for (std::string_view key : keys) {
    if (const auto v = optional_int(r, key, min, max)) return *v;
  }
  if (fallback) return *fallback;
  return r.integer(*keys.begin(), min, max);
}

bool flag(io::ObjectReader& r, std::string_view key, bool fallback) {
  if (!r.has(key) || r.raw(key).is_null()) return fallback;
  return r.boolean(key);
}

double dropout(io::ObjectReader& r, std::string_view key) {
  if (!r.has(key) || r.raw(key).is_null()) return 0.0;
  return r.number(key, {0.0, 1.0, false, "(a probability)"});
}

void set_head_dim(io::ObjectReader& r, ModelSpec& m, std::optional<std::int64_t> fallback, std::string_view heads_key) {
  if (const auto d = optional_int(r, "head_dim", 1, kMaxWidth)) {
    m.head_dim = *d;
  } else if (fallback) {
    m.head_dim = *fallback;
  } else {
    if (m.hidden % m.heads != 0) r.fail(heads_key, "a divisor of the hidden size (" + std::to_string(m.hidden) + ")");
    m.head_dim = m.hidden / m.heads;
  }
}

void check_kv_heads(const io::ObjectReader& r, const ModelSpec& m, std::string_view key) {
  if (m.heads % m.kv_heads != 0) r.fail(key, "a divisor of the attention heads (" + std::to_string(m.heads) + ")");
}

}  // namespace preflight::hf
