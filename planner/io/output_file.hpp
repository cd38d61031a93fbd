#pragma once
// Output files are written whole or not at all, and never replace what they should write to:
// - a new path, or a regular file (also reached through a symlink, which stays a symlink): the text
//   goes to a temporary beside it, which is renamed over it only once every byte is on disk;
// - a character device or a FIFO (/dev/null, a terminal, a pipe; /dev/stdout): written in place,
//   every write checked (a full device fails), a FIFO without a reader refused rather than waited on;
// - anything else (a directory, a socket, a block device, a dangling symlink or a symlink loop):
//   refused.
// Every failure is an InputError naming the file, and leaves no temporary behind.

#include <filesystem>
#include <iosfwd>
#include <string>

namespace preflight::io {

void write_file_atomically(const std::filesystem::path& file, const std::string& text);

// `text` on standard output, flushed and checked: a closed, full or over-limit stdout (a truncated
// `> plan.json`) is an InputError, so the command does not exit 0.
void write_standard_output(const std::string& text);

// A command's output: to `file` when one is given, else to `out`.
void write_output(const std::string& file, const std::string& text, std::ostream& out);

}  // namespace preflight::io
