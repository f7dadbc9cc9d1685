// Fuzzes the --config INI reader and Boost.Program_options' conversion of its values, through
// CommandLine::parse as the apps call it, with app options of each value type the apps use; and
// the same bytes as an id file (--users-file and the like, read_id_file).
#include <cstdint>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "core/log.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const std::string path = fuzz::write_file("config.ini", data, size);
  int topics = 0;
  double alpha = 0;
  float beta = 0;
  std::int64_t users = 0;
  std::string vocab;
  std::vector<std::string> list;
  bool implicit = false;
  app::CommandLine cli("fk-fuzz", "the fuzzed config reader", "fk-fuzz [options]");
  app::po::options_description_easy_init add = cli.app_options().add_options();
  add("topics", app::po::value<int>(&topics)->default_value(10), "");
  add("alpha", app::po::value<double>(&alpha), "");
  add("beta", app::po::value<float>(&beta), "");
  add("users", app::po::value<std::int64_t>(&users), "");
  add("vocab", app::po::value<std::string>(&vocab), "");
  add("list", app::po::value<std::vector<std::string>>(&list)->multitoken(), "");
  add("implicit", app::po::bool_switch(&implicit), "");
  add("model.rank", app::po::value<int>(), "");  // set by "rank = 8" under a [model] section
  const char* argv[] = {"fk-fuzz", "--config", path.c_str()};
  // parse() sets the log level from the file's quiet/verbose; keep the fuzzer's output quiet.
  if (!fuzz::refused([&] { cli.parse(3, argv); })) {
    const app::ResolvedConfig config = cli.resolved();
    for (const app::ConfigEntry& e : config) fuzz::require(!e.key.empty(), "an empty key");
  }
  set_log_level(LogLevel::kWarn);
  std::vector<app::GivenId> ids;
  if (!fuzz::refused([&] { ids = app::read_id_file("users-file", path); }))
    for (const app::GivenId& id : ids)
      fuzz::require(!id.id.empty() && id.id.find('\n') == std::string::npos, "a bad id");
  return 0;
}
