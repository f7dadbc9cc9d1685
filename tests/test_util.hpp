#pragma once
// Helpers shared by the test executables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <cctype>
#include <vector>

#include "core/context.hpp"

namespace fk::test {

inline bool gpu_available() { return cuda_device_count() > 0; }

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
