#pragma once
// One object of a user's file (a DeepSpeed section, an Accelerate YAML, a torchtitan table), read
// leniently in the file's own conventions: values may be written as strings ("4", "true"), the
// Hugging Face integration's "auto" means "not said here", and every key an importer does not
// take is reported as ignored, with why, when the object is finished.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/import/imported_setup.hpp"

namespace preflight {

class ForeignObject {
 public:
  // `prefix`: the object's key in its file ("zero_optimization"), empty at the top, "--" for a
  // command line's arguments.
  ForeignObject(const nlohmann::json& object, std::string file, std::string prefix);
  ForeignObject(nlohmann::json&&, std::string, std::string) = delete;  // it keeps a pointer: no temporaries

  const std::string& file() const { return file_; }
  // Keys of command-line arguments (prefix "--") are written as flags.
  std::string key_of(const std::string& key) const {
    return prefix_.empty() ? key : prefix_ == "--" ? "--" + key : prefix_ + "." + key;
  }
  bool has(const std::string& key) const;

  // The value, marked as taken; null when absent.
  const nlohmann::json* take(const std::string& key);
  // Absent, null or "auto": nothing. Otherwise an integer in [min, max] (written as a number or a
  // string of digits), else an InputError naming the file and key.
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> string(const std::string& key);
  std::optional<ForeignObject> object(const std::string& key);

  // Takes these keys and reports each present one as ignored for `why`.
  void ignore(ImportedSetup& setup, std::initializer_list<const char*> keys, const std::string& why);
  // Reports every key not taken as ignored ("not read from a DeepSpeed config").
  void finish(ImportedSetup& setup, const std::string& why) const;

  [[noreturn]] void fail(const std::string& key, const std::string& allowed) const;

 private:
  const nlohmann::json* object_;
  std::string file_;
  std::string prefix_;
  std::set<std::string> taken_;
};

// A count written as text (a launcher's argument "8", SkyPilot's "H100:8"): an integer in [min, max],
// else an InputError naming the file and key.
std::int64_t integer_text(const std::string& text, const std::string& file, const std::string& key, std::int64_t min, std::int64_t max);

// "auto" (or null): a value the Hugging Face integration fills in from the trainer's arguments.
inline bool is_auto(const nlohmann::json& v) { return v.is_null() || (v.is_string() && v.get<std::string>() == "auto"); }

}  // namespace preflight
