#pragma once
// Text made safe for the formats outputs embed it in: CSV cells and Markdown.

#include <string>

namespace preflight {

std::string csv_cell(const std::string& text);  // quoted (RFC 4180) when it holds a comma, quote or newline
// Text for Markdown (table cells, list items): table pipes and emphasis, code and link marks escaped, newlines as spaces.
std::string markdown_text(const std::string& text);

}  // namespace preflight
