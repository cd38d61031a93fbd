#pragma once
// A stage that does not finish in time (a hung collective, a wedged GPU) ends the program with a
// clear message and exit code 4 instead of hanging a CI job forever.

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

namespace preflight::calibrate {

class Watchdog {
 public:
  Watchdog(double seconds, std::string stage) : stage_(std::move(stage)) {
    thread_ = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!done_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) {
        std::cerr << "preflight-calibrate: watchdog: " << stage_ << " has not finished after " << seconds
                  << " s (a hung collective or GPU?); giving up\n";
        std::_Exit(4);
      }
    });
  }
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string stage_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace preflight::calibrate
