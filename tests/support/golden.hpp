#pragma once
// Golden files: compared with what a command writes, or rewritten with PREFLIGHT_UPDATE_GOLDEN=1
// (then review the diff like code).

#include <filesystem>
#include <string>

namespace preflight::test {

void compare_or_update(const std::filesystem::path& golden, const std::string& actual);

}  // namespace preflight::test
