#pragma once
// Environment variables for the child processes a test starts (run_preflight inherits them through
// std::system), while it lives: `cleared` are unset, `set` are set; what the test process had is
// put back.

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace preflight::test {

class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string>& set, const std::vector<std::string>& cleared = {}) {
    for (const std::string& name : cleared) save(name);
    for (const auto& [name, value] : set) save(name);
    for (const std::string& name : cleared) ::unsetenv(name.c_str());
    for (const auto& [name, value] : set) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  void save(const std::string& name) {
    if (saved_.contains(name)) return;
    const char* value = std::getenv(name.c_str());
    saved_[name] = value == nullptr ? std::nullopt : std::optional<std::string>(value);
  }

  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace preflight::test
