// write_comparison_json (apps/common/compare.hpp): the --compare result as JSON for
// scripts/report.sh. The file is parsed back here by a small strict JSON reader, so a malformed
// file, a lost digit or a wrong speedup fails; print_comparison's table is checked against a fixed
// text so the JSON writer's refactoring cannot change what users see.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/compare.hpp"
#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace fk {
namespace {

// ---- a strict, small JSON reader (objects, arrays, strings, numbers, true/false/null) ----------

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;  // in file order; keys must be unique

  bool is_null() const { return kind == Kind::kNull; }
  const Json& at(const std::string& key) const {
    for (const auto& [k, v] : object)
      if (k == key) return v;
    throw std::runtime_error("no key '" + key + "'");
  }
  bool has(const std::string& key) const {
    for (const auto& kv : object)
      if (kv.first == key) return true;
    return false;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string text) : s_(std::move(text)) {}
  Json document() {
    Json v = value();
    skip_ws();
    if (i_ != s_.size()) fail("text after the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    const std::string ws(w);
    if (s_.compare(i_, ws.size(), ws) != 0) return false;
    i_ += ws.size();
    return true;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const long cp = std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          if (cp >= 0x80) fail("non-ASCII \\u escape (not needed by these tests)");
          out += static_cast<char>(cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  Json value() {
    skip_ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = Json::Kind::kObject;
      ++i_;
      if (take('}')) return v;
      do {
        skip_ws();
        std::string key = str();
        if (v.has(key)) fail("duplicate key '" + key + "'");
        expect(':');
        v.object.emplace_back(std::move(key), value());
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::Kind::kArray;
      ++i_;
      if (take(']')) return v;
      do v.array.push_back(value());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::kString;
      v.string = str();
    } else if (word("null")) {
    } else if (word("true")) {
      v.kind = Json::Kind::kBool;
      v.boolean = true;
    } else if (word("false")) {
      v.kind = Json::Kind::kBool;
    } else {
      // JSON numbers only: no "nan", "inf", hex or a leading '+'.
      const std::size_t start = i_;
      if (s_[i_] == '-') ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("bad value");
      while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                                s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '-' || s_[i_] == '+'))
        ++i_;
      const std::string text = s_.substr(start, i_ - start);
      char* end = nullptr;
      v.kind = Json::Kind::kNumber;
      v.number = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size()) fail("bad number '" + text + "'");
    }
    return v;
  }

  std::string s_;
  std::size_t i_ = 0;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

Json read_json(const std::string& path) { return JsonReader(slurp(path)).document(); }

std::vector<double> numbers(const Json& array) {
  EXPECT_EQ(array.kind, Json::Kind::kArray);
  std::vector<double> out;
  for (const Json& v : array.array) out.push_back(v.is_null() ? NAN : v.number);
  return out;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Fresh random iteration times (0.001 .. 2 s) and a seed to report on failure.
std::vector<double> random_seconds(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> d(0.001, 2.0);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

TEST(CompareJson, BothRunsRoundTripEveryNumberAndTheSpeedups) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  app::RunRecord gpu{"gpu",
                     "GPU 0 (NVIDIA \"H100\" \\ test)",
                     random_seconds(rng, 5),
                     {{"held-out log-likelihood", -7.25}, {"training bound per word", -16.5}}};
  app::RunRecord cpu{"cpu",
                     "CPU (2 threads)\ttab",
                     random_seconds(rng, 5),
                     {{"held-out log-likelihood", -7.5}, {"training bound per word", 0.0}}};
  cpu.memory.host_bytes = std::int64_t{5} << 20;
  test::TempDir dir;
  const std::string path = dir.file("compare.json");
  app::write_comparison_json(path, gpu, cpu, "pass");
  const Json j = read_json(path);

  EXPECT_EQ(j.at("iter_name").string, "pass");
  EXPECT_TRUE(j.at("gpu_unavailable").is_null());
  EXPECT_EQ(j.at("gpu").at("label").string, "gpu");
  EXPECT_EQ(j.at("gpu").at("device").string, gpu.device);  // quotes and backslash escaped
  EXPECT_EQ(j.at("cpu").at("device").string, cpu.device);  // a tab escaped
  // %.17g: every iteration time comes back bit for bit.
  EXPECT_EQ(numbers(j.at("gpu").at("iter_seconds")), gpu.iter_seconds);
  EXPECT_TRUE(j.at("gpu").at("peak_host_mib").is_null());  // unknown
  EXPECT_DOUBLE_EQ(j.at("gpu").at("peak_device_mib").number, 0.0);
  EXPECT_DOUBLE_EQ(j.at("cpu").at("peak_host_mib").number, 5.0);
  EXPECT_TRUE(j.at("cpu").at("peak_device_mib").is_null());  // a CPU run's
  EXPECT_EQ(numbers(j.at("cpu").at("iter_seconds")), cpu.iter_seconds);
  const double mg = median_of(gpu.iter_seconds), mc = median_of(cpu.iter_seconds);
  EXPECT_DOUBLE_EQ(j.at("gpu").at("median_seconds").number, mg);
  EXPECT_DOUBLE_EQ(j.at("cpu").at("median_seconds").number, mc);
  EXPECT_DOUBLE_EQ(j.at("speedup_median").number, mc / mg);
  const std::vector<double> sp = numbers(j.at("speedup_per_iter"));
  ASSERT_EQ(sp.size(), 5u);
  for (std::size_t i = 0; i < sp.size(); ++i)
    EXPECT_DOUBLE_EQ(sp[i], cpu.iter_seconds[i] / gpu.iter_seconds[i]) << "iteration " << i;

  const Json& finals = j.at("finals");
  ASSERT_EQ(finals.array.size(), 2u);
  EXPECT_EQ(finals.array[0].at("name").string, "held-out log-likelihood");
  EXPECT_EQ(finals.array[0].at("gpu").number, -7.25);
  EXPECT_EQ(finals.array[0].at("cpu").number, -7.5);
  EXPECT_DOUBLE_EQ(finals.array[0].at("rel_diff").number, 0.25 / 7.5);
  EXPECT_EQ(finals.array[1].at("name").string, "training bound per word");
  EXPECT_DOUBLE_EQ(finals.array[1].at("rel_diff").number, 1.0);  // |a - 0| / |a|
}

TEST(CompareJson, CpuOnlyRunSaysWhyAndLeavesTheGpuSideNull) {
  app::RunRecord cpu{"cpu", "CPU (2 threads)", {0.5, 0.25, 0.75}, {{"test_rmse", 0.91}}};
  test::TempDir dir;
  const std::string path = dir.file("compare.json");
  app::write_comparison_json(path, std::nullopt, cpu, "iter", "this build has no CUDA support");
  const Json j = read_json(path);
  EXPECT_EQ(j.at("iter_name").string, "iter");
  EXPECT_EQ(j.at("gpu_unavailable").string, "this build has no CUDA support");
  EXPECT_TRUE(j.at("gpu").is_null());
  EXPECT_TRUE(j.at("speedup_per_iter").is_null());
  EXPECT_TRUE(j.at("speedup_median").is_null());
  EXPECT_EQ(numbers(j.at("cpu").at("iter_seconds")), cpu.iter_seconds);
  EXPECT_DOUBLE_EQ(j.at("cpu").at("median_seconds").number, 0.5);
  const Json& finals = j.at("finals");
  ASSERT_EQ(finals.array.size(), 1u);
  EXPECT_EQ(finals.array[0].at("name").string, "test_rmse");
  EXPECT_TRUE(finals.array[0].at("gpu").is_null());
  EXPECT_DOUBLE_EQ(finals.array[0].at("cpu").number, 0.91);
  EXPECT_TRUE(finals.array[0].at("rel_diff").is_null());
}

TEST(CompareJson, NonFiniteAndMissingValuesAreNullNeverNanText) {
  // The GPU made one iteration more than the CPU, one GPU time is 0, one metric is NaN, one metric
  // only the CPU reports, and a run without iterations has a null median.
  app::RunRecord gpu{"gpu", "g", {0.0, 0.5, 0.25}, {{"objective", NAN}, {"gpu_only", 1.0}}};
  app::RunRecord cpu{"cpu", "c", {1.0, 1.0}, {{"objective", 3.0}, {"cpu_only", 2.0}}};
  test::TempDir dir;
  const std::string path = dir.file("compare.json");
  app::write_comparison_json(path, gpu, cpu);
  const std::string text = slurp(path);
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  const Json j = JsonReader(text).document();
  EXPECT_EQ(j.at("iter_name").string, "iter");  // the default
  const std::vector<double> sp = numbers(j.at("speedup_per_iter"));
  ASSERT_EQ(sp.size(), 2u);  // iterations both runs made
  EXPECT_TRUE(std::isnan(sp[0]));
  EXPECT_DOUBLE_EQ(sp[1], 2.0);
  EXPECT_DOUBLE_EQ(j.at("speedup_median").number, 1.0 / 0.25);
  const Json& finals = j.at("finals");
  ASSERT_EQ(finals.array.size(), 3u);
  EXPECT_EQ(finals.array[0].at("name").string, "objective");
  EXPECT_TRUE(finals.array[0].at("gpu").is_null());
  EXPECT_TRUE(finals.array[0].at("rel_diff").is_null());
  EXPECT_EQ(finals.array[1].at("name").string, "gpu_only");
  EXPECT_TRUE(finals.array[1].at("cpu").is_null());
  EXPECT_EQ(finals.array[2].at("name").string, "cpu_only");
  EXPECT_DOUBLE_EQ(finals.array[2].at("cpu").number, 2.0);

  app::RunRecord empty{"gpu", "g", {}, {}};
  app::write_comparison_json(path, empty, cpu);  // replaces the file
  const Json k = read_json(path);
  EXPECT_TRUE(k.at("gpu").at("median_seconds").is_null());
  EXPECT_TRUE(numbers(k.at("gpu").at("iter_seconds")).empty());
  EXPECT_TRUE(k.at("speedup_median").is_null());
}

TEST(CompareJson, UnwritablePathThrowsNamingItAndLeavesNoFile) {
  test::TempDir dir;
  const std::string path = dir.file("missing/compare.json");
  app::RunRecord cpu{"cpu", "c", {1.0}, {}};
  try {
    app::write_comparison_json(path, std::nullopt, cpu, "iter", "no GPU");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(CompareJson, PrintedTableIsUnchanged) {
  app::RunRecord gpu{"gpu", "G", {0.5, 0.25}, {{"metric", -2.0}}};
  app::RunRecord cpu{"cpu", "C", {1.0, 1.0, 3.0}, {{"metric", -1.0}}};
  gpu.memory.host_bytes = 300 << 20;
  gpu.memory.device_bytes = std::int64_t{3} << 29;  // 1.5 GiB
  cpu.memory.device_bytes = 7;                       // not shown: a CPU run's
  std::ostringstream os;
  app::print_comparison(os, gpu, cpu, "pass");
  const std::string want =
      "\n"
      "                                       gpu             cpu         speedup\n"
      "device                      G  |  C\n"
      "pass 1 time (s)                     0.5000          1.0000            2.0x\n"
      "pass 2 time (s)                     0.2500          1.0000            4.0x\n"
      "pass 3 time (s)                          -          3.0000               -\n"
      "median pass time (s)                0.3750          1.0000            2.7x\n"
      "peak host memory (MiB)                 300               -\n"
      "peak GPU memory (MiB)                 1536               -\n"
      "metric                           -2.000000       -1.000000    relative difference 5.0e-01\n";
  EXPECT_EQ(os.str(), want);
}

}  // namespace
}  // namespace fk
