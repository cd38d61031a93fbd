#pragma once
// Text made safe for the formats outputs embed it in: CSV cells and Markdown.

#include <string>

namespace preflight {

// A text cell: quoted (RFC 4180) when it holds a comma, quote or newline; a leading =, +, -, @, tab or
// carriage return (what a spreadsheet would run as a formula: OWASP "CSV injection") is neutralised
// with a leading apostrophe. Numbers are written as they are, not through this.
std::string csv_cell(const std::string& text);
// Text for Markdown (table cells, list items): table pipes and emphasis, code and link marks escaped, newlines as spaces.
std::string markdown_text(const std::string& text);

}  // namespace preflight
