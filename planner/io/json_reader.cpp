#include "planner/io/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <sstream>

#include "planner/io/input_file.hpp"
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

namespace {

// Where the parser stands, as a JSON path, and the keys each open object has had: what an error
// names, and how a repeated key is caught.
class JsonPathTracker {
 public:
  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
          throw std::length_error("JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
        }
        frames_.push_back({event == Event::array_start, 0, {}, {}});
        break;
      case Event::key:
        frames_.back().key = parsed.get<std::string>();
        if (!frames_.back().keys.insert(frames_.back().key).second) {
          throw std::invalid_argument("the key \"" + frames_.back().key + "\" a second time in one object");
        }
        break;
      case Event::value: next_element(); break;
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        next_element();
        break;
    }
    return true;
  }

  std::string path() const {
    std::string out = "$";
    for (const Frame& f : frames_) out += f.array ? "[" + std::to_string(f.index) + "]" : "." + f.key;
    return out;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  void next_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

// The library's message without its "[json.exception.parse_error.101] " prefix.
std::string without_library_id(const std::string& message) {
  if (message.rfind("[json.exception.", 0) != 0) return message;
  const std::size_t end = message.find("] ");
  return end == std::string::npos ? message : message.substr(end + 2);
}

// Appends a compact rendering of `v` to `out`, stopping soon after `limit` characters.
void describe_into(std::string& out, const nlohmann::json& v, std::size_t limit) {
  if (out.size() > limit) return;
  if (v.is_object() || v.is_array()) {
    out += v.is_object() ? '{' : '[';
    bool first = true;
    for (const auto& item : v.items()) {
      if (out.size() > limit) return;
      out += first ? "" : ",";
      first = false;
      if (v.is_object()) out += nlohmann::json(item.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ":";
      describe_into(out, item.value(), limit);
    }
    out += v.is_object() ? '}' : ']';
    return;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    std::size_t end = std::min(s.size(), limit);
    while (end > 0 && end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;  // a whole UTF-8 character
    out += nlohmann::json(s.substr(0, end)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out += v.dump();
}

}  // namespace

nlohmann::json parse_json(const std::string& text, const std::string& file) {
  JsonPathTracker tracker;
  try {
    return nlohmann::json::parse(text, std::ref(tracker));
  } catch (const nlohmann::json::parse_error& e) {
    // Its message carries the line and column and the offending token.
    throw InputError(file, "$", "malformed JSON (" + without_library_id(e.what()) + ")", "valid JSON (RFC 8259)");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, tracker.path(), without_library_id(e.what()), "valid JSON with numbers a double can hold");
  } catch (const std::length_error& e) {
    throw InputError(file, tracker.path(), e.what(), "at most " + std::to_string(kMaxJsonDepth) + " levels of nesting");
  } catch (const std::invalid_argument& e) {
    throw InputError(file, tracker.path(), e.what(), "each key once in an object");
  }
}

nlohmann::json parse_file(const std::filesystem::path& file) {
  return parse_json(read_input_file(file, "a JSON file"), file.string());
}

std::string describe(const nlohmann::json& value) {
  constexpr std::size_t max_chars = 60;
  std::string text;
  describe_into(text, value, max_chars);
  if (text.size() > max_chars) {
    std::size_t end = max_chars - 3;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end) + "...";
  }
  return text;
}

bool is_one_printable_line(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) return false;
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const auto third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    if (byte == 0xC2 && next >= 0x80 && next <= 0x9F) return false;                                   // C1 controls
    if (byte == 0xE2 && next == 0x80 && (third == 0xA8 || third == 0xA9)) return false;              // U+2028, U+2029
    if (byte == 0xE2 && next == 0x80 && third >= 0xAA && third <= 0xAE) return false;                // U+202A-U+202E
    if (byte == 0xE2 && next == 0x81 && third >= 0xA6 && third <= 0xA9) return false;                // U+2066-U+2069
  }
  return true;
}

double network_gbps(ObjectReader& r, std::string_view key) {
  const double gbps = r.number(key, {0.0, 1e6, false, "Gb/s"});
  if (gbps > 0.0 && gbps < 0.1) r.fail(key, "0 (no network) or a number from 0.1 to 1e+06 Gb/s");
  return gbps;
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
  // Integers as written (a double holds them exactly only up to 2^53); above the int64 range, unsigned.
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(key, allowed);
    const auto i = static_cast<std::int64_t>(u);
    if (i < min || i > max) fail(key, allowed);
    return i;
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < min || i > max) fail(key, allowed);
    return i;
  }
  // A whole number written as a float ("1e3", "2.0"): within int64 before it is converted (2^63 as a
  // double is not, though it compares equal to INT64_MAX), then within the range.
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || d < -0x1p63 || d >= 0x1p63) fail(key, allowed);
  const auto i = static_cast<std::int64_t>(d);
  if (i < min || i > max) fail(key, allowed);
  return i;
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

std::vector<std::string> ObjectReader::unread_keys() const {
  std::vector<std::string> keys;
  for (const auto& item : object_->items()) {
    if (!read_.contains(item.key())) keys.push_back(item.key());
  }
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
