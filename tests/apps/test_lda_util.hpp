#pragma once
// Helpers of the fk-lda tests: running the app in-process (as its main does) and reading what it
// wrote.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/app_main.hpp"
#include "apps/lda/lda_app.hpp"
#include "core/log.hpp"
#include "tests/test_util.hpp"

namespace fk::test {

struct LdaRun {
  int status = -1;
  std::string out, err;
};

// Runs `fk-lda ARGS...` in this process through the same wrapper as the executable's main.
// Runs are single-threaded unless the test passes --threads: ctest runs two test processes at
// once on a 2-core machine, and OpenMP threads spinning at barriers for a descheduled sibling make
// the tiny runs of these tests many times slower.
inline LdaRun run_lda(const std::vector<std::string>& args) {
  std::vector<std::string> all{"fk-lda"};
  all.insert(all.end(), args.begin(), args.end());
  const bool infer = !args.empty() && args[0] == "infer";
  if (std::find(args.begin(), args.end(), "--threads") == args.end() &&
      !(infer && args.size() == 1))
    all.insert(all.end(), {"--threads", "1"});
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  LdaRun r;
  r.status = app::run_main("fk-lda", static_cast<int>(all.size()), argv.data(), lda::lda_main);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  set_log_level(LogLevel::kInfo);  // a --quiet run must not silence the next test
  return r;
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The number after "KEY": in one metrics.jsonl line; nullopt for null or a missing key.
inline std::optional<double> json_number(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\":";
  const auto pos = line.find(k);
  if (pos == std::string::npos) return std::nullopt;
  const char* p = line.c_str() + pos + k.size();
  if (std::string(p, 4) == "null") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(p, &end);
  if (end == p) return std::nullopt;
  return v;
}

}  // namespace fk::test
