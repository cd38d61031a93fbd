#pragma once
// Runs the real `preflight` binary, as a user would, and captures exit code, stdout and stderr.

#include <filesystem>
#include <string>

namespace preflight::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary path as written (shell quoting is the caller's).
CliResult run_preflight(const std::string& args);
// The same from another working directory (for outputs that record relative paths).
CliResult run_preflight_in(const std::filesystem::path& working_dir, const std::string& args);
// `preflight-calibrate` the same way.
CliResult run_calibrate(const std::string& args);

// A scratch folder for files a test writes; removed by the test fixture.
std::filesystem::path scratch_dir(const std::string& name);

std::string read_text(const std::filesystem::path& file);
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace preflight::test
