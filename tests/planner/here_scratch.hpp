#pragma once
// A folder of files one test writes (a model folder, a fake /proc), removed when the test ends;
// named after the running test, so that tests never share one.

#include <filesystem>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include "support/cli_runner.hpp"

namespace preflight::test {

class ScratchFolder {
 public:
  ScratchFolder() : dir_(scratch_dir(test_name())) {}
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path write(const std::filesystem::path& name, const std::string& text) const {
    write_text(dir_ / name, text);
    return dir_ / name;
  }

 private:
  static std::string test_name() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::string(info->test_suite_name()) + "-" + info->name();
  }

  std::filesystem::path dir_;
};

}  // namespace preflight::test
