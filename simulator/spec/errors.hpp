#pragma once
// Typed errors thrown by library code. Only `main` turns them into exit codes, so a library caller
// (the planner's search, a test) can catch exactly what it expects.

#include <stdexcept>
#include <string>

namespace preflight {

// Text safe to print on one line: control characters (a NUL would cut the message short where it is
// printed as a C string, a newline or an escape sequence would forge output) written as \xNN.
inline std::string printable(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

// Bad input: names the file, the JSON path, the offending value and what is allowed.
// The planner maps it to exit code 2.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string value, std::string allowed)
      : std::runtime_error(format(file, json_path, value, allowed)),
        file_(std::move(file)),
        json_path_(std::move(json_path)),
        value_(std::move(value)),
        allowed_(std::move(allowed)) {}

  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& value() const { return value_; }
  const std::string& allowed() const { return allowed_; }

 private:
  static std::string format(const std::string& file, const std::string& path, const std::string& value,
                            const std::string& allowed) {
    std::string where = file.empty() ? std::string("<input>") : file;
    if (!path.empty()) where += ": " + path;
    return printable(where + ": got " + value + "; allowed: " + allowed);
  }

  std::string file_, json_path_, value_, allowed_;
};

// A combination of valid inputs that cannot be run (for example parameter offload without ZeRO-3).
// Exit code 2 from `check`/`simulate` (the user asked for it); the planner's search counts it as
// "invalid" instead of failing.
class InvalidConfig : public std::runtime_error {
 public:
  // `field`: the config key at fault, as a JSON path below the config ("offload.params").
  InvalidConfig(std::string field, const std::string& message)
      : std::runtime_error(printable(message)), field_(std::move(field)) {}

  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace preflight
