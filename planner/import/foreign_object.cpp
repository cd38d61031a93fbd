#include "planner/import/foreign_object.hpp"

#include <charconv>

#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

const nlohmann::json& empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
}

}  // namespace

ForeignObject::ForeignObject(const nlohmann::json& object, std::string file, std::string prefix)
    : object_(object.is_object() ? &object : &empty_object()), file_(std::move(file)), prefix_(std::move(prefix)) {
  if (!object.is_object() && !object.is_null()) {
    throw InputError(file_, prefix_.empty() ? "$" : prefix_, io::describe(object), "an object of keys and values");
  }
}

bool ForeignObject::has(const std::string& key) const { return object_->contains(key); }

const nlohmann::json* ForeignObject::take(const std::string& key) {
  const auto it = object_->find(key);
  if (it == object_->end()) return nullptr;
  taken_.insert(key);
  return &*it;
}

std::optional<std::int64_t> ForeignObject::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const nlohmann::json* v = take(key);
  if (v == nullptr || is_auto(*v)) return std::nullopt;
  std::int64_t x = 0;
  bool ok = false;
  if (v->is_number_integer()) {
    x = v->get<std::int64_t>();
    ok = true;
  } else if (v->is_number_unsigned()) {
    ok = false;  // beyond int64: out of any range
  } else if (v->is_number_float()) {
    const double d = v->get<double>();
    ok = d == static_cast<double>(static_cast<std::int64_t>(d)) && d >= -9e18 && d <= 9e18;
    x = ok ? static_cast<std::int64_t>(d) : 0;
  } else if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), x);
    ok = !s.empty() && error == std::errc() && end == s.data() + s.size();
  }
  if (!ok || x < min || x > max) fail(key, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return x;
}

std::optional<bool> ForeignObject::boolean(const std::string& key) {
  const nlohmann::json* v = take(key);
  if (v == nullptr || is_auto(*v)) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
  }
  fail(key, "true or false");
}

std::optional<std::string> ForeignObject::string(const std::string& key) {
  const nlohmann::json* v = take(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number() || v->is_boolean()) return v->dump();
  fail(key, "a string");
}

std::optional<ForeignObject> ForeignObject::object(const std::string& key) {
  const nlohmann::json* v = take(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_object()) fail(key, "an object of keys and values");
  return ForeignObject(*v, file_, key_of(key));
}

void ForeignObject::ignore(ImportedSetup& setup, std::initializer_list<const char*> keys, const std::string& why) {
  for (const char* k : keys) {
    // A key another reader took already is reported (or set) there: once is enough.
    if (taken_.contains(k)) continue;
    if (take(k) != nullptr) setup.ignore(file_, key_of(k), why);
  }
}

void ForeignObject::finish(ImportedSetup& setup, const std::string& why) const {
  for (const auto& [key, value] : object_->items()) {
    if (taken_.contains(key)) {
      setup.considered(file_, key_of(key));
      continue;
    }
    // A launch script's argument whose value the script leaves to its caller ("$NUM_NODES").
    setup.ignore(file_, key_of(key), value.is_null() && prefix_ == "--" ? "its value is not set in the script" : why);
  }
}

void ForeignObject::fail(const std::string& key, const std::string& allowed) const {
  const auto it = object_->find(key);
  throw InputError(file_, key_of(key), it == object_->end() ? "nothing" : io::describe(*it), allowed);
}

std::int64_t integer_text(const std::string& text, const std::string& file, const std::string& key, std::int64_t min, std::int64_t max) {
  std::int64_t x = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || x < min || x > max) {
    throw InputError(file, key, "\"" + text + "\"", "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return x;
}

}  // namespace preflight
