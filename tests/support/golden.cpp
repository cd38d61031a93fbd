#include "support/golden.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "support/cli_runner.hpp"

namespace preflight::test {

void compare_or_update(const std::filesystem::path& golden, const std::string& actual) {
  if (const char* update = std::getenv("PREFLIGHT_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    write_text(golden, actual);
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " is missing; run with PREFLIGHT_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(read_text(golden), actual) << "output differs from " << golden;
}

}  // namespace preflight::test
