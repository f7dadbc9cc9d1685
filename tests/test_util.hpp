#pragma once
// Helpers shared by the test executables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <cctype>
#include <vector>

#include "core/context.hpp"

namespace fk::test {

inline bool gpu_available() { return cuda_device_count() > 0; }

// Forks a child that runs `body` and ends with _exit(0) when it returns, 126 when it throws (it
// must never go back into the test runner); a body may _exit with a status of its own or end by
// a signal. Returns its pid, or -1 when fork failed. For what must not happen in the test
// process: a signal, a lowered ulimit, the other end of a FIFO.
template <typename Body>
pid_t start_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(126);
    }
    ::_exit(0);
  }
  return pid;
}
// The wait status of a child of start_child (-1 when there is none).
inline int wait_child(pid_t pid) {
  int status = -1;
  if (pid > 0 && ::waitpid(pid, &status, 0) != pid) status = -1;
  return status;
}
// Both at once: the wait status of a child that ran `body`.
template <typename Body>
int run_in_child(Body body) {
  return wait_child(start_child(body));
}

// GTEST_SKIP()s the calling test when no CUDA device is usable.
#define FK_REQUIRE_GPU()                                                 \
  do {                                                                   \
    if (!::fk::test::gpu_available()) GTEST_SKIP() << "no CUDA device";  \
  } while (0)

// ../shared/data beside the checkout (or $FK_SHARED_DATA when set, e.g. on a machine where the
// binaries were carried without the checkout), or "" when absent: tests using it skip.
inline std::string shared_data(const std::string& rel) {
  const char* env = std::getenv("FK_SHARED_DATA");
  const std::filesystem::path p = std::filesystem::path(env && *env ? env : FK_SHARED_DATA_DIR) / rel;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

// A fresh empty directory under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir() { std::error_code ec; std::filesystem::remove_all(path_, ec); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline TempDir::TempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : "fk";
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  path_ = (std::filesystem::temp_directory_path() / ("fk_test_" + name + "_" + std::to_string(::getpid())))
              .string();
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

// max_j |got_j - want_j| / max(1, max_j |want_j|) — relative to the scale of the answer, and NaN
// (an unwritten poisoned output) always fails. Got and Want: float vectors of any allocator.
template <typename Got, typename Want>
double max_rel_error(const Got& got, const Want& want) {
  if (got.size() != want.size()) return INFINITY;
  double scale = 1.0, err = 0.0;
  for (float w : want) scale = std::max(scale, std::fabs(double(w)));
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    err = std::max(err, std::fabs(double(got[i]) - double(want[i])));
  }
  return err / scale;
}

}  // namespace fk::test
