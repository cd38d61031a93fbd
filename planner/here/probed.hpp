#pragma once
// What a probe of this machine found, or why it found nothing. A missing driver, a container without
// /proc or a GPU another process holds are normal answers on someone's training machine, not
// errors: the caller says what it could not see and falls back ("no GPU found (libcuda.so.1 not
// loadable): using the scenario's machine").

#include <optional>
#include <string>
#include <utility>

namespace preflight::here {

template <class T>
class Probed {
 public:
  static Probed found(T value) {
    Probed p;
    p.value_ = std::move(value);
    return p;
  }
  // `because` completes "unavailable, because ...": "libcuda.so.1 not loadable: ...".
  static Probed unavailable(std::string because) {
    Probed p;
    p.because_ = std::move(because);
    return p;
  }

  bool available() const { return value_.has_value(); }
  explicit operator bool() const { return available(); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  // Empty when available.
  const std::string& unavailable_because() const { return because_; }

 private:
  Probed() = default;

  std::optional<T> value_;
  std::string because_;
};

}  // namespace preflight::here
