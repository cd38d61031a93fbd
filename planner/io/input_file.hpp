#pragma once
// Reading an input file, bounded: only a regular file (reached directly or through symlinks) of at
// most kMaxInputBytes is read. A directory, a device (/dev/zero, /dev/urandom would never end), a
// FIFO or socket, a symlink loop, a missing file or a larger one is an InputError naming the file,
// never an allocation that runs out of memory.

#include <cstddef>
#include <filesystem>
#include <string>

namespace preflight::io {

// Far above any input preflight reads (the shipped calibration profile is 0.35 MB, catalogs under
// 0.1 MB, published spot traces under 0.05 MB).
inline constexpr std::size_t kMaxInputBytes = 64u << 20;

// Why `file` cannot be read as an input ("a directory", "a symlink loop", "a file that does not
// exist", ...); empty when it is a readable regular file within the size bound. For messages that
// name the key that referred to the file.
std::string input_file_problem(const std::filesystem::path& file);

// `what` says what the file should be ("a scenario JSON file"), for the message.
std::string read_input_file(const std::filesystem::path& file, const std::string& what);

}  // namespace preflight::io
