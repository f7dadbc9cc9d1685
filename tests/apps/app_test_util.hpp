#pragma once
// Helpers of the app tests: running a built app executable or an app's main in-process and
// capturing what it printed, and reading what it wrote (whole files, lines, metrics.jsonl).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/app_main.hpp"
#include "core/log.hpp"
#include "tests/test_util.hpp"

namespace fk::test {

// The whole file (empty when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// Every regular file under `root` (relative path -> content): a folder's state, to compare before
// and after a run that must not change it.
inline std::map<std::string, std::string> folder_files(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file())
      out[std::filesystem::relative(e.path(), root).string()] = slurp(e.path().string());
  return out;
}

// Every line of the file, empty ones included.
inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The non-empty lines of `text`.
inline std::vector<std::string> nonempty_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

// The number after "KEY": in a one-line JSON object; nullopt for null or a missing key.
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

// The same as a double: NaN for null or a missing key.
inline double json_number_or_nan(const std::string& json, const std::string& key) {
  const std::size_t p = json.find("\"" + key + "\":");
  if (p == std::string::npos) return NAN;
  const std::string rest = json.substr(p + key.size() + 3);
  if (rest.rfind("null", 0) == 0) return NAN;
  return std::strtod(rest.c_str(), nullptr);
}

// The string after "KEY": in a one-line JSON object such as summary.json (values without escaped
// quotes); "" for a missing key or a value that is not a string.
inline std::string json_string(const std::string& json, const std::string& key) {
  const std::string k = "\"" + key + "\":\"";
  const std::size_t p = json.find(k);
  if (p == std::string::npos) return {};
  const std::size_t first = p + k.size();
  return json.substr(first, json.find('"', first) - first);
}

// KEY of every line of DIR/metrics.jsonl that has a number there, in order.
inline std::vector<double> metric_series(const std::string& dir, const std::string& key) {
  std::vector<double> out;
  for (const std::string& line : read_lines(dir + "/metrics.jsonl"))
    if (auto v = json_number(line, key)) out.push_back(*v);
  return out;
}

// How a built executable ended: its exit status (-1 when it did not exit normally) and what it
// printed.
struct ExeOutcome {
  int code = -1;
  std::string out, err;
};

// Runs the executable at `exe` with `args` (a shell command line fragment, quoted by the caller
// where needed) as a user runs it, stdout and stderr captured through files in `dir`.
inline ExeOutcome run_executable(const TempDir& dir, const std::string& exe,
                                 const std::string& args) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = "'" + exe + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  ExeOutcome o;
  o.code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

// How an app's main run in-process ended: the status run_main returned and what it printed.
struct AppRun {
  int status = -1;
  std::string out, err;
};

// Runs `NAME ARGS...` in this process through the same wrapper as the executable's main
// (app::run_main), capturing stdout and stderr. With `single_thread`, "--threads 1" is appended:
// ctest runs two test processes at once on a 2-core machine, and OpenMP threads spinning at
// barriers for a descheduled sibling make the tiny runs of the tests many times slower.
inline AppRun run_app_main(const std::string& name, int (*main_fn)(int, char**),
                           const std::vector<std::string>& args, bool single_thread) {
  std::vector<std::string> all{name};
  all.insert(all.end(), args.begin(), args.end());
  if (single_thread) all.insert(all.end(), {"--threads", "1"});
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  AppRun r;
  r.status = app::run_main(name, static_cast<int>(all.size()), argv.data(), main_fn);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  set_log_level(LogLevel::kInfo);  // a --quiet run must not silence the next test
  return r;
}

// --holdout-frac near 1 in a ratings app (fk-als, fk-sfa: one loader and split): 1 and above are
// refused before the data is read, with the option's range and why; a fraction below 1 that still
// holds out every rating of the file (from 1 - 0.5/n on) is refused once the file is read, naming
// the option (it was exit 1, "no training ratings left after the split"), and nothing is written.
// 0.999 leaves a few to train on and runs; one that holds out none warns that there is no
// test_rmse; 0 is no test set, no warning. `input` holds `ratings` ratings.
inline void expect_holdout_frac_near_one_named(const TempDir& dir, const std::string& exe,
                                               const std::string& input, int ratings) {
  const std::string base = "--input '" + input + "' --iters 1 --factors 2 --device cpu -q ";
  auto run = [&](const std::string& frac, const std::string& out) {
    return run_executable(dir, exe, base + "--holdout-frac " + frac + " --out '" + dir.file(out) + "'");
  };
  for (const char* frac : {"1", "1.0", "2"}) {
    const ExeOutcome o = run(frac, "o");
    EXPECT_EQ(o.code, 2) << frac << ": " << o.err;
    EXPECT_NE(o.err.find("--holdout-frac: must be in [0, 1), got "), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("no ratings would be left to train on"), std::string::npos) << o.err;
  }
  const std::string n = std::to_string(ratings);
  const ExeOutcome all = run("0.99999", "o");
  EXPECT_EQ(all.code, 2) << all.err;
  EXPECT_NE(all.err.find("--holdout-frac: 0.99999 of the " + n + " ratings of " + input +
                         " holds out all of them: none would be left to train on (give less than "
                         "0.99"),
            std::string::npos)
      << all.err;
  EXPECT_EQ(std::count(all.err.begin(), all.err.end(), '\n'), 1) << "one line";
  EXPECT_FALSE(std::filesystem::exists(dir.file("o")));
  const ExeOutcome most = run("0.999", "most");
  EXPECT_EQ(most.code, 0) << most.err;
  const ExeOutcome none = run("1e-5", "none");
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.err.find("--holdout-frac 1e-05 of the " + n + " ratings of " + input +
                          " holds out none of them: no test_rmse"),
            std::string::npos)
      << none.err;
  const ExeOutcome zero = run("0", "zero");
  EXPECT_EQ(zero.code, 0) << zero.err;
  EXPECT_EQ(zero.err, "");
}

}  // namespace fk::test
