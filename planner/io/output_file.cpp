#include "planner/io/output_file.hpp"

#include <ostream>

#include <fstream>
#include <system_error>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

void write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::path temporary = file;
  temporary += ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw InputError(file.string(), "", "a path that cannot be written", "a writable file path");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw InputError(file.string(), "", "a path that cannot be written (" + error.message() + ")", "a writable file path");
  }
}

void write_output(const std::string& file, const std::string& text, std::ostream& out) {
  if (file.empty()) {
    out << text;
  } else {
    write_file_atomically(file, text);
  }
}

}  // namespace preflight::io
