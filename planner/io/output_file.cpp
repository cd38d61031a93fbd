#include "planner/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "simulator/spec/errors.hpp"

namespace preflight::io {

namespace {

constexpr const char* kAllowed = "a new file, a regular file, a character device or a FIFO with a reader";

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw InputError(file.string(), "", what, kAllowed);
}

std::string reason(int error) { return std::strerror(error); }

// Writes every byte to `fd`; false (errno set) on any failure, a short write included.
bool write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

enum class InPlace { device, fifo, appended_file };

// Written through, in place: a device; a FIFO, opened without waiting for a reader; a file reached
// through one of the descriptor links (/dev/stdout, /proc/self/fd/N), appended to like `>>`.
void write_in_place(const std::filesystem::path& file, const std::string& text, InPlace kind) {
  const bool fifo = kind == InPlace::fifo;
  const int flags = O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0) | (kind == InPlace::appended_file ? O_APPEND : 0);
  const int fd = ::open(file.c_str(), flags);
  if (fd < 0) fail(file, fifo && errno == ENXIO ? "a FIFO that nobody reads" : "a path that cannot be opened for writing (" + reason(errno) + ")");
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const bool written = write_all(fd, text);
  const int write_error = errno;
  if (::close(fd) != 0 && written) fail(file, "a device that failed on close (" + reason(errno) + ")");
  if (!written) fail(file, "a device the output did not fully reach (" + reason(write_error) + ")");
}

// A new or regular file: a temporary in the same folder, then a rename over the target, which keeps
// its permissions; the temporary is removed on any failure.
void replace_regular(const std::filesystem::path& shown, const std::filesystem::path& target, const std::string& text,
                     const struct stat* existing) {
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string pattern = (folder / ("." + target.filename().string() + ".partial.XXXXXX")).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail(shown, "a path in a folder that cannot be written (" + reason(errno) + ")");
  mode_t mode = 0666;
  if (existing != nullptr) {
    mode = existing->st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(pattern.c_str(), target.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(pattern.c_str());
    fail(shown, "a path that cannot be written (" + reason(error) + ")");
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  if (file.empty()) fail(file, "an empty path");
  struct stat link {};
  if (::lstat(file.c_str(), &link) != 0) {
    if (errno != ENOENT) fail(file, "a path that cannot be reached (" + reason(errno) + ")");
    return replace_regular(file, file, text, nullptr);
  }
  struct stat target {};
  if (::stat(file.c_str(), &target) != 0) {
    fail(file, errno == ELOOP ? "a symlink loop" : "a symlink to nothing (" + reason(errno) + ")");
  }
  if (S_ISCHR(target.st_mode)) return write_in_place(file, text, InPlace::device);
  if (S_ISFIFO(target.st_mode)) return write_in_place(file, text, InPlace::fifo);
  if (S_ISDIR(target.st_mode)) fail(file, "a directory");
  if (!S_ISREG(target.st_mode)) fail(file, "neither a file, a character device nor a FIFO");
  if (!S_ISLNK(link.st_mode)) return replace_regular(file, file, text, &target);
  // Written through the symlink: the file it resolves to is replaced, the link stays. A descriptor
  // link (/dev/stdout, /dev/fd/N, /proc/self/fd/N) names a file another process opened: appended to.
  const std::string absolute = std::filesystem::absolute(file).lexically_normal().string();
  for (const char* prefix : {"/dev/std", "/dev/fd/", "/proc/"}) {
    if (absolute.rfind(prefix, 0) == 0) return write_in_place(file, text, InPlace::appended_file);
  }
  char* resolved = ::realpath(file.c_str(), nullptr);
  if (resolved == nullptr) fail(file, "a symlink that cannot be resolved (" + reason(errno) + ")");
  const std::filesystem::path real = resolved;
  std::free(resolved);
  replace_regular(file, real, text, &target);
}

void write_standard_output(const std::string& text) {
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  const int error = errno;
  if (std::fflush(stdout) != 0 || !written || std::ferror(stdout) != 0) {
    throw InputError("<standard output>", "", "an output that did not fully arrive (" + reason(written ? errno : error) + ")",
                     "a standard output that takes the whole text (not closed, not full, not over a size limit)");
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
