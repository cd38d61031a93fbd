#pragma once
// Output files are written whole or not at all: into a temporary beside the target, then renamed.

#include <filesystem>
#include <iosfwd>
#include <string>

namespace preflight::io {

// Throws InputError naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

// A command's output: to `file` (atomically) when one is given, else to `out`.
void write_output(const std::string& file, const std::string& text, std::ostream& out);

}  // namespace preflight::io
