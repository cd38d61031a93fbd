#include "support/cli_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace preflight::test {

namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("preflight-test-" + std::to_string(::getpid()) + "-" + name);
  fs::create_directories(dir);
  return dir;
}

namespace {

CliResult run_binary(const std::string& binary, const fs::path& working_dir, const std::string& args) {
  const fs::path dir = scratch_dir("cli");
  const fs::path out = dir / "stdout";
  const fs::path err = dir / "stderr";
  const std::string command = "cd '" + working_dir.string() + "' && " + binary + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out);
  r.err = read_text(err);
  fs::remove_all(dir);
  return r;
}

}  // namespace

CliResult run_preflight(const std::string& args) { return run_preflight_in(fs::current_path(), args); }

CliResult run_preflight_in(const fs::path& working_dir, const std::string& args) {
  return run_binary(PREFLIGHT_BINARY, working_dir, args);
}

CliResult run_calibrate(const std::string& args) { return run_binary(PREFLIGHT_CALIBRATE, fs::current_path(), args); }

}  // namespace preflight::test
