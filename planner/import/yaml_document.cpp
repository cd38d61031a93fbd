#include "planner/import/foreign_document.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// yaml-cpp recurses once per nesting level and has no limit of its own: a file of ten thousand
// nested "- " or "[" would overflow the stack. Every block level is indented deeper or opened by a
// "- " on its line, and every flow level by a bracket, so bounding those bounds the recursion.
void check_nesting(const std::string& text, const std::string& file) {
  constexpr int kMaxBlockColumn = 400;
  int line = 1;
  int flow = 0;
  char quote = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    int column = 0;
    while (i < text.size() && (text[i] == ' ' || (text[i] == '-' && i + 1 < text.size() && text[i + 1] == ' '))) {
      ++column;
      ++i;
    }
    if (column > kMaxBlockColumn) {
      throw InputError(file, "line " + std::to_string(line), "a block nested " + std::to_string(column) + " columns deep",
                       "YAML nested at most " + std::to_string(kMaxBlockColumn) + " levels deep");
    }
    for (; i < text.size() && text[i] != '\n'; ++i) {
      const char c = text[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = flow > 0 ? c : 0;  // quotes only group brackets inside flow collections
      } else if (c == '#' && (i == 0 || text[i - 1] == ' ')) {
        while (i < text.size() && text[i] != '\n') ++i;
        break;
      } else if (c == '[' || c == '{') {
        if (++flow > io::kMaxJsonDepth) {
          throw InputError(file, "line " + std::to_string(line), "brackets nested more than " + std::to_string(io::kMaxJsonDepth) + " deep",
                           "YAML nested at most " + std::to_string(io::kMaxJsonDepth) + " levels deep");
        }
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
    ++i;
    ++line;
  }
}

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return s == w; });
}

std::optional<std::int64_t> yaml11_integer(std::string s) {
  std::erase(s, '_');
  if (s.empty()) return std::nullopt;
  bool negative = false;
  std::size_t at = 0;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    at = 1;
  }
  int base = 10;
  if (s.compare(at, 2, "0x") == 0) {
    base = 16;
    at += 2;
  } else if (s.size() > at + 1 && s[at] == '0') {
    base = 8;  // YAML 1.1: a leading zero is octal
    at += 1;
  }
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(s.data() + at, s.data() + s.size(), v, base);
  if (at == s.size() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return negative ? -v : v;
}

// PyYAML's float: digits, a dot, digits, and an exponent only with a sign (1.0e-5; 1e-5 is a string).
std::optional<double> yaml11_float(const std::string& raw) {
  std::string s = raw;
  std::erase(s, '_');
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const std::size_t digits_start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size() || s[i] != '.') return std::nullopt;
  if (i == digits_start && (i + 1 == s.size() || !std::isdigit(static_cast<unsigned char>(s[i + 1])))) return std::nullopt;
  ++i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i < s.size()) {
    if ((s[i] != 'e' && s[i] != 'E') || i + 2 >= s.size() || (s[i + 1] != '-' && s[i + 1] != '+')) return std::nullopt;
    i += 2;
    const std::size_t exp_start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i != s.size() || i == exp_start) return std::nullopt;
  }
  const double v = std::strtod(s.c_str(), nullptr);
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

nlohmann::json plain_scalar(const std::string& s) {
  if (one_of(s, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (one_of(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})) return true;
  if (one_of(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})) return false;
  if (const std::optional<std::int64_t> i = yaml11_integer(s)) return *i;
  if (const std::optional<double> d = yaml11_float(s)) return *d;
  return s;
}

class Converter {
 public:
  explicit Converter(std::string file) : file_(std::move(file)) {}

  nlohmann::json convert(const YAML::Node& node, int depth) {
    if (++values_ > kMaxForeignValues) {
      throw InputError(file_, "line " + std::to_string(node.Mark().line + 1), "more than " + std::to_string(kMaxForeignValues) + " values (aliases expanded)",
                       "a training config of at most " + std::to_string(kMaxForeignValues) + " values");
    }
    if (depth > io::kMaxJsonDepth) {
      throw InputError(file_, "line " + std::to_string(node.Mark().line + 1), "a value nested too deeply",
                       "YAML nested at most " + std::to_string(io::kMaxJsonDepth) + " levels deep");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return nullptr;
      case YAML::NodeType::Scalar:
        return node.Tag() == "?" ? plain_scalar(node.Scalar()) : nlohmann::json(node.Scalar());
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        for (const YAML::Node& item : node) out.push_back(convert(item, depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        std::vector<nlohmann::json> merged;
        for (const auto& entry : node) {
          const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
          // "<<: *base" (or a list of them): YAML 1.1's merge key, which PyYAML applies.
          if (key == "<<" && entry.first.Tag() == "?") {
            nlohmann::json m = convert(entry.second, depth + 1);
            if (m.is_object()) merged.push_back(std::move(m));
            if (m.is_array()) {
              for (nlohmann::json& part : m) {
                if (part.is_object()) merged.push_back(std::move(part));
              }
            }
            continue;
          }
          if (out.contains(key)) {
            throw InputError(file_, "line " + std::to_string(entry.first.Mark().line + 1), "the key \"" + key + "\" a second time",
                             "each key once in a mapping");
          }
          out[key] = convert(entry.second, depth + 1);
        }
        // The mapping's own keys win, then the first merged mapping's, and so on.
        for (const nlohmann::json& m : merged) {
          for (const auto& [k, v] : m.items()) {
            if (!out.contains(k)) out[k] = v;
          }
        }
        return out;
      }
    }
    return nullptr;
  }

 private:
  std::string file_;
  std::size_t values_ = 0;
};

}  // namespace

nlohmann::json yaml_document(const std::string& text, const std::string& file) {
  check_nesting(text, file);
  try {
    return Converter(file).convert(YAML::Load(text), 0);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.is_null() ? "" : "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1),
                     "malformed YAML (" + e.msg + ")", "a YAML document");
  }
}

}  // namespace preflight
