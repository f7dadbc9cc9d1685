#pragma once
// Helpers for the core/io tests: writing small (bad) files, gzip in memory, and checking that a
// call fails with exactly one fk::InputError that names the file, the line and the problem.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "core/error.hpp"

namespace fk::test {

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// One complete gzip member holding `text`.
inline std::string gzip(const std::string& text, int level = 6) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// `n` bytes drawn from `alphabet` by a fixed pseudo-random sequence: filler that deflate can shrink
// only to about log2(alphabet size) bits a byte, which gives a gzip file of little text a large
// compressed size (and so a large bound on its text).
inline std::string random_filler(std::size_t n, const std::string& alphabet) {
  std::mt19937 gen(12345);
  std::string s(n, ' ');
  for (char& c : s) c = alphabet[gen() % alphabet.size()];
  return s;
}

// A seed that differs between runs (fresh inputs), reported on failure through SCOPED_TRACE;
// $FK_TEST_SEED replays a failure.
inline std::uint64_t fresh_io_seed() {
  if (const char* env = std::getenv("FK_TEST_SEED"); env && *env)
    return std::strtoull(env, nullptr, 0);
  return (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
}

// Runs f and checks that it throws fk::InputError whose file() is `file`, whose line() is `line`
// (pass -1 to accept any line), and whose what() reads "file[:line]: ..." and contains every
// fragment. Any other outcome (no exception, another type) fails.
template <typename F>
::testing::AssertionResult throws_input_error(F&& f, const std::string& file, std::int64_t line,
                                              const std::vector<std::string>& fragments = {}) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (e.file() != file)
      return ::testing::AssertionFailure() << "file() is '" << e.file() << "': " << what;
    if (line >= 0 && e.line() != line)
      return ::testing::AssertionFailure()
             << "line() is " << e.line() << ", want " << line << ": " << what;
    const std::string prefix =
        file + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": ";
    if (what.rfind(prefix, 0) != 0)
      return ::testing::AssertionFailure()
             << "what() does not start with '" << prefix << "': " << what;
    for (const auto& frag : fragments)
      if (what.find(frag) == std::string::npos)
        return ::testing::AssertionFailure() << "what() lacks '" << frag << "': " << what;
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "no exception";
}

// Files in `dir` (to check that failed writes leave no temporaries behind).
inline std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fk::test
