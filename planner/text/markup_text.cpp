#include "planner/text/markup_text.hpp"

namespace preflight {

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string markdown_text(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|' || ch == '*' || ch == '_' || ch == '`' || ch == '<' || ch == '>' || ch == '[' || ch == ']') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out;
}

}  // namespace preflight
