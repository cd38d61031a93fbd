#include "planner/import/foreign_document.hpp"

#include <cmath>
#include <sstream>

#include <toml++/toml.h>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

std::string line_of(const toml::node& node) {
  return "line " + std::to_string(node.source().begin.line);
}

nlohmann::json convert(const toml::node& node, int depth, const std::string& file) {
  if (depth > io::kMaxJsonDepth) {
    throw InputError(file, line_of(node), "a value nested too deeply", "TOML nested at most " + std::to_string(io::kMaxJsonDepth) + " levels deep");
  }
  if (const toml::table* t = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : *t) out[std::string(key.str())] = convert(value, depth + 1, file);
    return out;
  }
  if (const toml::array* a = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const toml::node& item : *a) out.push_back(convert(item, depth + 1, file));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::isfinite(v)) return v;
    return v != v ? "nan" : (v > 0 ? "inf" : "-inf");
  }
  if (const auto* b = node.as_boolean()) return b->get();
  std::ostringstream text;  // dates and times
  node.visit([&](const auto& v) { text << v; });
  return text.str();
}

}  // namespace

nlohmann::json toml_document(const std::string& text, const std::string& file) {
  toml::table table;
  try {
    table = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, "line " + std::to_string(e.source().begin.line) + ", column " + std::to_string(e.source().begin.column),
                     "malformed TOML (" + std::string(e.description()) + ")", "a TOML document");
  }
  return convert(table, 0, file);
}

}  // namespace preflight
