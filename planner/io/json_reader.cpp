#include "planner/io/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string join_allowed(std::span<const std::string_view> allowed) {
  std::string text = "one of ";
  bool first = true;
  for (std::string_view a : allowed) {
    text += first ? "" : ", ";
    text += '"' + std::string(a) + '"';
    first = false;
  }
  return text;
}

}  // namespace

nlohmann::json parse_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string(), "", "a file that cannot be read", "an existing, readable JSON file");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() carries "line L, column C" and the offending token.
    throw InputError(file.string(), "$", std::string("malformed JSON (") + e.what() + ")", "valid JSON (RFC 8259)");
  }
}

std::string describe(const nlohmann::json& value) {
  constexpr std::size_t max_chars = 60;
  std::string text = value.dump();
  if (text.size() > max_chars) text = text.substr(0, max_chars - 3) + "...";
  return text;
}

std::string NumberRule::text() const {
  std::string t = "a number " + std::string(min_exclusive ? "greater than " : "from ") + format_number(min);
  t += (min_exclusive ? " and at most " : " to ") + format_number(max);
  if (!unit.empty()) t += " " + std::string(unit);
  return t;
}

double checked_number(const nlohmann::json& value, const NumberRule& rule, const std::string& file,
                      const std::string& path) {
  if (!value.is_number()) throw InputError(file, path, describe(value), rule.text());
  const double v = value.get<double>();
  const bool low = rule.min_exclusive ? !(v > rule.min) : !(v >= rule.min);
  if (!std::isfinite(v) || low || v > rule.max) throw InputError(file, path, describe(value), rule.text());
  return v;
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string file, std::string path, Keys keys)
    : object_(&object), file_(std::move(file)), path_(std::move(path)), keys_(keys) {
  if (!object.is_object()) throw InputError(file_, path_, describe(object), "a JSON object");
}

bool ObjectReader::has(std::string_view key) const {
  known_.emplace(key);
  return object_->contains(key);
}

std::string ObjectReader::path_of(std::string_view key) const { return path_ + "." + std::string(key); }

void ObjectReader::fail(std::string_view key, const std::string& allowed) const {
  const std::string shown = has(key) ? describe(object_->at(std::string(key))) : "nothing (key missing)";
  throw InputError(file_, path_of(key), shown, allowed);
}

const nlohmann::json& ObjectReader::get(std::string_view key) {
  read_.emplace(key);
  return object_->at(std::string(key));
}

const nlohmann::json& ObjectReader::raw(std::string_view key) {
  if (!has(key)) fail(key, "a value (this key is required)");
  return get(key);
}

double ObjectReader::number(std::string_view key, const NumberRule& rule) {
  if (!has(key)) fail(key, rule.text() + " (required)");
  return checked_number(get(key), rule, file_, path_of(key));
}

std::optional<double> ObjectReader::optional_number(std::string_view key, const NumberRule& rule) {
  if (!has(key)) return std::nullopt;
  return checked_number(get(key), rule, file_, path_of(key));
}

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  if (!has(key)) fail(key, "an integer from " + std::to_string(min) + " to " + std::to_string(max) + " (required)");
  return *optional_integer(key, min, max);
}

std::optional<std::int64_t> ObjectReader::optional_integer(std::string_view key, std::int64_t min, std::int64_t max) {
  if (!has(key)) return std::nullopt;
  const nlohmann::json& v = get(key);
  const std::string allowed = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!v.is_number()) fail(key, allowed);
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
    fail(key, allowed);
  }
  return static_cast<std::int64_t>(d);
}

bool ObjectReader::boolean(std::string_view key) {
  if (!has(key)) fail(key, "true or false (required)");
  return *optional_boolean(key);
}

std::optional<bool> ObjectReader::optional_boolean(std::string_view key) {
  if (!has(key)) return std::nullopt;
  const nlohmann::json& v = get(key);
  if (!v.is_boolean()) fail(key, "true or false");
  return v.get<bool>();
}

std::string ObjectReader::string(std::string_view key) {
  if (!has(key)) fail(key, "a string (required)");
  return *optional_string(key);
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  if (!has(key)) return std::nullopt;
  const nlohmann::json& v = get(key);
  if (!v.is_string() || v.get<std::string>().empty()) fail(key, "a non-empty string");
  return v.get<std::string>();
}

std::string ObjectReader::choice(std::string_view key, std::span<const std::string_view> allowed) {
  if (!has(key)) fail(key, join_allowed(allowed) + " (required)");
  return *optional_choice(key, allowed);
}

std::optional<std::string> ObjectReader::optional_choice(std::string_view key, std::span<const std::string_view> allowed) {
  if (!has(key)) return std::nullopt;
  const nlohmann::json& v = get(key);
  if (v.is_string()) {
    for (std::string_view a : allowed) {
      if (v.get<std::string>() == a) return std::string(a);
    }
  }
  fail(key, join_allowed(allowed));
}

std::vector<std::string> ObjectReader::string_list(std::string_view key) {
  const nlohmann::json& v = raw(key);
  const std::string allowed = "a non-empty list of non-empty strings";
  if (!v.is_array() || v.empty()) fail(key, allowed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty()) {
      throw InputError(file_, path_of(key) + "[" + std::to_string(i) + "]", describe(v[i]), "a non-empty string");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::vector<std::string> ObjectReader::choice_list(std::string_view key, std::span<const std::string_view> allowed) {
  std::vector<std::string> out = string_list(key);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::find(allowed.begin(), allowed.end(), out[i]) == allowed.end()) {
      throw InputError(file_, path_of(key) + "[" + std::to_string(i) + "]", describe(out[i]), join_allowed(allowed));
    }
  }
  return out;
}

ObjectReader ObjectReader::object(std::string_view key) {
  if (!has(key)) fail(key, "a JSON object (required)");
  return ObjectReader(get(key), file_, path_of(key), keys_);
}

std::optional<ObjectReader> ObjectReader::optional_object(std::string_view key) {
  if (!has(key)) return std::nullopt;
  return ObjectReader(get(key), file_, path_of(key), keys_);
}

std::vector<std::string> ObjectReader::keys() const {
  std::vector<std::string> keys;
  for (const auto& item : object_->items()) keys.push_back(item.key());
  return keys;
}

void ObjectReader::finish() const {
  if (keys_ == Keys::lenient) return;
  std::string known;
  for (const std::string& k : known_) known += (known.empty() ? "" : ", ") + k;
  for (const auto& [key, value] : object_->items()) {
    if (!read_.contains(key)) {
      throw InputError(file_, path_of(key), "unknown key \"" + key + "\"",
                       known.empty() ? "no other keys here" : "only these keys: " + known);
    }
  }
}

}  // namespace preflight::io
