#pragma once
// Output files are written whole or not at all: into a temporary beside the target, then renamed.

#include <filesystem>
#include <string>

namespace preflight::io {

// Throws InputError naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace preflight::io
