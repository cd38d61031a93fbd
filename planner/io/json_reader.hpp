#pragma once
// Strict, path-aware reading of JSON input. Every value read names its file and JSON path, so an
// error message can say exactly where the bad value is and what is allowed there. Objects read
// strictly reject keys nobody asked for: a typo must not silently fall back to a default.

#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/spec/enum_names.hpp"

namespace preflight::io {

// JSON nested deeper than this is refused while it is read: no input preflight reads goes past 6
// levels, and deep nesting is what overflows the stack of a recursive reader or printer.
inline constexpr int kMaxJsonDepth = 64;

// Parses JSON text from `file` (a path, or "--config" for an inline argument). Malformed JSON, a
// number out of range, nesting deeper than kMaxJsonDepth and a key repeated in one object are
// InputErrors naming the file and the JSON path, in our words (never the library's).
nlohmann::json parse_json(const std::string& text, const std::string& file);

// Reads (read_input_file: a regular file, bounded) and parses a JSON file.
nlohmann::json parse_file(const std::filesystem::path& file);

// A short rendering of a JSON value for error messages: at most 60 characters, however large or
// deep the value, control characters escaped.
std::string describe(const nlohmann::json& value);

struct NumberRule {
  double min = 0.0;
  double max = 0.0;
  bool min_exclusive = false;  // "greater than" rather than "at least"
  std::string_view unit = "";

  std::string text() const;
};

class ObjectReader {
 public:
  enum class Keys { strict, lenient };

  ObjectReader(const nlohmann::json& object, std::string file, std::string path, Keys keys = Keys::strict);

  bool has(std::string_view key) const;
  std::string path_of(std::string_view key) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

  double number(std::string_view key, const NumberRule& rule);
  std::optional<double> optional_number(std::string_view key, const NumberRule& rule);
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t min, std::int64_t max);
  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);
  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  std::string choice(std::string_view key, std::span<const std::string_view> allowed);
  std::optional<std::string> optional_choice(std::string_view key, std::span<const std::string_view> allowed);
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed) {
    return choice(key, std::span(allowed.begin(), allowed.size()));
  }
  std::optional<std::string> optional_choice(std::string_view key, std::initializer_list<std::string_view> allowed) {
    return optional_choice(key, std::span(allowed.begin(), allowed.size()));
  }
  std::vector<std::string> string_list(std::string_view key);
  std::vector<std::string> choice_list(std::string_view key, std::span<const std::string_view> allowed);
  std::vector<std::string> choice_list(std::string_view key, std::initializer_list<std::string_view> allowed) {
    return choice_list(key, std::span(allowed.begin(), allowed.size()));
  }
  // An enum spelled as its name table spells it (spec/enum_names.hpp).
  template <class E, std::size_t N>
  E enum_value(std::string_view key, const EnumNames<E, N>& names);
  template <class E, std::size_t N>
  std::optional<E> optional_enum(std::string_view key, const EnumNames<E, N>& names);
  template <class E, std::size_t N>
  std::vector<E> enum_list(std::string_view key, const EnumNames<E, N>& names);
  ObjectReader object(std::string_view key);
  std::optional<ObjectReader> optional_object(std::string_view key);
  // The raw value, marked as read; for values with several allowed shapes.
  const nlohmann::json& raw(std::string_view key);

  // The object's own keys, for maps keyed by user data (read each with object()/number()).
  std::vector<std::string> keys() const;
  // The object's keys no getter has read yet (in the object's order).
  std::vector<std::string> unread_keys() const;

  // Rejects the first key (in sorted order) that no getter asked for.
  void finish() const;

  // An InputError for `key` in this object.
  [[noreturn]] void fail(std::string_view key, const std::string& allowed) const;

 private:
  const nlohmann::json& get(std::string_view key);

  const nlohmann::json* object_;
  std::string file_;
  std::string path_;
  Keys keys_;
  std::set<std::string, std::less<>> read_;
  mutable std::set<std::string, std::less<>> known_;  // every key a getter asked about, present or not
};

template <class E, std::size_t N>
std::array<std::string_view, N> words_of(const EnumNames<E, N>& names) {
  std::array<std::string_view, N> words;
  for (std::size_t i = 0; i < N; ++i) words[i] = names[i].name;
  return words;
}

template <class E, std::size_t N>
E ObjectReader::enum_value(std::string_view key, const EnumNames<E, N>& names) {
  return *value_of(names, choice(key, words_of(names)));
}

template <class E, std::size_t N>
std::optional<E> ObjectReader::optional_enum(std::string_view key, const EnumNames<E, N>& names) {
  if (!has(key)) return std::nullopt;
  return enum_value(key, names);
}

template <class E, std::size_t N>
std::vector<E> ObjectReader::enum_list(std::string_view key, const EnumNames<E, N>& names) {
  std::vector<E> out;
  for (const std::string& word : choice_list(key, words_of(names))) {
    out.push_back(*value_of(names, word));
  }
  return out;
}

// Whether `text` prints as one line that reads as it is: no control characters (C0, DEL, C1), no
// line or paragraph separators, and no Unicode bidirectional overrides or isolates (U+202A-E,
// U+2066-9), which can make a name in a pull-request comment display as something else.
bool is_one_printable_line(std::string_view text);

// A node's network in Gb/s: 0 (it cannot be networked) or from 0.1 to 10^6, never a bandwidth so
// small that a collective over it would take forever.
double network_gbps(ObjectReader& r, std::string_view key);

// Checks a number against a rule, naming file and path in the error.
double checked_number(const nlohmann::json& value, const NumberRule& rule, const std::string& file,
                      const std::string& path);

}  // namespace preflight::io
