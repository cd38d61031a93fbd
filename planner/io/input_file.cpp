#include "planner/io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string input_file_problem(const std::filesystem::path& file) {
  if (file.empty()) return "an empty path";
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    if (errno == ENOENT) return "a file that does not exist";
    if (errno == ELOOP) return "a symlink loop";
    return "a file that cannot be reached (" + std::string(std::strerror(errno)) + ")";
  }
  if (!S_ISREG(info.st_mode)) return kind_of(info.st_mode);
  if (static_cast<std::size_t>(info.st_size) > kMaxInputBytes) return "a file of " + std::to_string(info.st_size) + " bytes";
  return {};
}

std::string read_input_file(const std::filesystem::path& file, const std::string& what) {
  const std::string allowed = what + " (a regular file of at most " + std::to_string(kMaxInputBytes >> 20) + " MiB)";
  const auto fail = [&](const std::string& got) { throw InputError(file.string(), "", got, allowed); };
  if (const std::string problem = input_file_problem(file); !problem.empty()) fail(problem);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("a file that cannot be read (" + std::string(std::strerror(errno)) + ")");
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      fail("a file that cannot be read (" + std::string(std::strerror(error)) + ")");
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxInputBytes) {  // it grew while being read
      ::close(fd);
      fail("a file of more than " + std::to_string(kMaxInputBytes) + " bytes");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace preflight::io
