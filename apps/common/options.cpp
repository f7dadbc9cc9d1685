#include "apps/common/options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "apps/common/output.hpp"
#include "apps/common/po_error_text.hpp"
#include "core/build_info.hpp"
#include "core/io/parse.hpp"
#include "core/log.hpp"

namespace fk::app {
namespace {

// A hidden option that collects stray positional words so the error can name them.
constexpr const char* kPositional = "fk-positional";
constexpr unsigned kHelpWidth = 100;
constexpr const char* kCommonCaption = "Common options (every factorkit app)";

std::string value_text(const boost::any& v, bool json) {
  if (v.empty()) return {};
  if (const auto* s = boost::any_cast<std::string>(&v)) return json ? json_quote(*s) : *s;
  if (const auto* b = boost::any_cast<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = boost::any_cast<int>(&v)) return std::to_string(*i);
  if (const auto* l = boost::any_cast<long>(&v)) return std::to_string(*l);
  if (const auto* ll = boost::any_cast<long long>(&v)) return std::to_string(*ll);
  if (const auto* u = boost::any_cast<unsigned>(&v)) return std::to_string(*u);
  if (const auto* ul = boost::any_cast<unsigned long>(&v)) return std::to_string(*ul);
  if (const auto* ull = boost::any_cast<unsigned long long>(&v)) return std::to_string(*ull);
  if (const auto* d = boost::any_cast<double>(&v)) {
    const std::string t = format_double(*d);
    return json && !std::isfinite(*d) ? "null" : t;
  }
  if (const auto* f = boost::any_cast<float>(&v)) {
    const std::string t = format_double(*f);
    return json && !std::isfinite(*f) ? "null" : t;
  }
  return json ? "null" : "";
}

// Where the options a config file set came from, for the messages that name an option: the file
// and each key's line (keys the command line overrode are left out). Set by CommandLine::parse.
struct ConfigSource {
  std::string path;
  std::map<std::string, std::int64_t> line_of;
};
ConfigSource& config_source() {
  static ConfigSource source;
  return source;
}

// One `key = value` line of a config file.
struct ConfigEntryLine {
  std::string key, value;
  std::int64_t line = 0;
};

// The text of a config file as its entries. The syntax is Boost's INI subset, read here rather
// than by Boost so that a value may hold '#' (a path such as "runs/#3", which --out writes into
// config.ini): a comment is a line whose first non-blank is '#' or ';', or starts at a '#' that
// follows a blank; "[name]" prefixes the keys after it with "name."; blanks around keys and
// values go. Each entry is checked for what Boost would report without a line (a line that is no
// `key = value`, a key given twice, a key that is no option) and for the keys a config file cannot
// set: it is read after --help and --config were looked at, so `config = other.ini` or
// `help = true` would be stored with nothing acting on them. Each a UsageError naming the file and
// the line.
std::vector<ConfigEntryLine> read_config_entries(const std::string& path, const std::string& text,
                                                 const po::options_description& options) {
  std::vector<ConfigEntryLine> entries;
  std::map<std::string, std::int64_t> first_line;
  auto fail = [&](std::int64_t line_no, const std::string& what) {
    throw UsageError("config file '" + path + "', line " + std::to_string(line_no) + ": " + what);
  };
  std::istringstream in(text);
  std::string line, section;
  for (std::int64_t line_no = 1; std::getline(in, line); ++line_no) {
    for (std::size_t hash = line.find('#'); hash != std::string::npos;
         hash = line.find('#', hash + 1))
      if (hash == 0 || line[hash - 1] == ' ' || line[hash - 1] == '\t') {
        line.erase(hash);
        break;
      }
    line = trim_blanks(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = trim_blanks(line.substr(1, line.size() - 2));
      if (!section.empty() && section.back() != '.') section += '.';
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail(line_no, "expected 'key = value', found '" + line + "'");
    const std::string key = section + trim_blanks(line.substr(0, eq));
    if (key.empty() || key.back() == '.' || key.front() == '-')
      fail(line_no,
           "expected 'key = value' with a long option name as the key, found '" + line + "'");
    if (key == "config")
      fail(line_no,
           "'config' cannot be set inside a config file: nested config files are not "
           "read; give --config on the command line");
    if (key == "help" || key == "h" || key == "version")
      fail(line_no, "'" + key +
                        "' cannot be set inside a config file: it is printed when given on the "
                        "command line");
    if (!options.find_nothrow(key, /*approx=*/false))
      fail(line_no, "'" + key + "' is not an option of this command");
    const auto [it, fresh] = first_line.emplace(key, line_no);
    if (!fresh)
      fail(line_no,
           "'" + key + "' is given again (first at line " + std::to_string(it->second) + ")");
    entries.push_back({key, trim_blanks(line.substr(eq + 1)), line_no});
  }
  return entries;
}

}  // namespace

void usage_fail(const std::string& option, const std::string& message) {
  const ConfigSource& config = config_source();
  const auto it = config.line_of.find(option);
  if (it == config.line_of.end()) throw UsageError("--" + option + ": " + message);
  throw UsageError("--" + option + ": " + message + " (set in config file '" + config.path +
                   "', line " + std::to_string(it->second) + ")");
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(text);
  while (std::getline(in, cur, ',')) {
    const std::string_view item = io::detail::trim_blanks(cur);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

std::string trim_blanks(const std::string& text) {
  return std::string(io::detail::trim_blanks(text));
}

namespace {

std::vector<std::string> split_id_list(const std::string& option, const std::string& text) {
  std::vector<std::string> out = split_list(text);
  std::set<std::string> seen;
  for (const std::string& id : out)
    if (!seen.insert(id).second) usage_fail(option, "'" + id + "' is given twice");
  return out;
}

}  // namespace

std::vector<GivenId> read_id_file(const std::string& option, const std::string& path) {
  // A pipe is fine too (--users-file /dev/stdin, <(...)): the ids are read once, in order.
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    usage_fail(option, "cannot open '" + path + "'" +
                           (std::filesystem::is_directory(path) ? " (it is a directory)" : ""));
  std::vector<GivenId> ids;
  std::set<std::string> seen;
  std::string line;
  for (std::int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line_no == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file written on Windows
    // A line of blanks names no id; an id is taken as written (the apps look it up trimmed when
    // it is not in the model as written).
    if (io::detail::blank_line(line)) continue;
    const std::string& id = line;
    const std::string place = path + ", line " + std::to_string(line_no) + ": ";
    if (!seen.insert(id).second) usage_fail(option, place + "'" + id + "' is given twice");
    ids.push_back({id, option, place});
  }
  return ids;
}

std::vector<GivenId> id_list_and_file(const std::string& option, const std::string& list,
                                      const std::string& file) {
  std::vector<GivenId> ids;
  for (std::string& id : split_id_list(option, list)) ids.push_back({std::move(id), option, ""});
  if (file.empty()) return ids;
  std::set<std::string> seen;
  for (const GivenId& given : ids) seen.insert(given.id);
  std::vector<GivenId> from_file = read_id_file(option + "-file", file);
  // An empty file (or the wrong one, of blank lines) was reported as a missing --<option>, or
  // with --<option> given too, passed over in silence.
  if (from_file.empty())
    usage_fail(option + "-file", file + " holds no id (one per line; blank lines name none)");
  for (GivenId& given : from_file) {
    if (!seen.insert(given.id).second)
      usage_fail(given.option, given.place + "'" + given.id + "' is also given with --" + option);
    ids.push_back(std::move(given));
  }
  return ids;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

namespace {
std::string& command_name() {
  static std::string name;
  return name;
}
}  // namespace

const std::string& current_command() { return command_name(); }
void set_current_command(const std::string& command) { command_name() = command; }

CommandLine::CommandLine(std::string app, std::string synopsis, std::string usage,
                         CommonDefaults defaults)
    : app_name_(std::move(app)),
      synopsis_(std::move(synopsis)),
      usage_(std::move(usage)),
      common_desc_(kCommonCaption, kHelpWidth, kHelpWidth / 2),
      app_("Options of " + app_name_, kHelpWidth, kHelpWidth / 2) {
  command_name() = app_name_;
  common_.out = defaults.out;
  common_.iters = defaults.iters;
  common_.seed = defaults.seed;
  not_applicable_ = defaults.not_applicable;
  const std::string out_help =
      defaults.out_help.empty() ? std::string("output directory (created when missing); "
                                              "metrics.jsonl and the resolved configuration are "
                                              "written there")
                                : defaults.out_help;
  subcommand_options_ = defaults.subcommand_options;
  formats_ = defaults.formats.empty()
                 ? std::vector<std::string>{"uci", "mtx", "text", "ratings", "smtx"}
                 : defaults.formats;
  format_list_.clear();
  for (const std::string& f : formats_) format_list_ += (format_list_.empty() ? "" : ", ") + f;
  const std::string format_help =
      "input format: auto (detect from the content) or one of " + format_list_;
  const std::string seed_help =
      "random seed, 0 to 2^63 - 1; the same seed gives the same result on the same device (on "
      "the CPU with any --threads: work splits that order sums follow the processors the process "
      "may use and their caches, so another machine or CPU affinity may round differently), bit "
      "for bit unless the log's kernel line says 'not bitwise repeatable' (a GPU kernel that "
      "adds partial sums in the order the hardware runs them: then up to rounding). " +
      (defaults.seed_use.empty()
           ? std::string("It seeds what the run draws (initial values, the held-out split), not "
                         "generated gen: input, whose spec's seed= does (1 unless given)")
           : defaults.seed_use);
  // A command without --device (fk-als recommend, similar) makes no kernel plans to tell of.
  const bool plans = std::find(not_applicable_.begin(), not_applicable_.end(), "device") ==
                     not_applicable_.end();
  const std::string verbose_help =
      plans ? "also print debug lines: the variant auto chose for each kernel plan, the repeatable "
              "one put in its place (--repeatable), how the GPU's ASpT and dense kernels tile S"
            : "also print debug lines";
  // clang-format off
  common_desc_.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the commit this program was built from and exit")
    ("config", po::value<std::string>(&common_.config)->value_name("FILE"),
     "read options from an INI file (key = value per line, keys are the long option names "
     "without '--'; not help, version or config; '#' at a line's start or after a blank starts a "
     "comment); options given on the command line win over the file")
    ("input", po::value<std::string>(&common_.input)->value_name("PATH"),
     "input data file (see the app's description for what it accepts); relative paths are "
     "relative to the current directory, also inside a config file")
    ("format", po::value<std::string>(&format_text_)->default_value("auto")->value_name("FMT"),
     format_help.c_str())
    ("out", po::value<std::string>(&common_.out)->default_value(defaults.out)->value_name("DIR"),
     out_help.c_str())
    ("device", po::value<std::string>(&device_text_)->default_value("auto")->value_name("DEV"),
     "where to run: auto (a CUDA GPU when one is usable, else the CPU), gpu or cpu")
    ("threads", po::value<int>(&common_.threads)->default_value(0)->value_name("N"),
     "CPU threads (0: OpenMP's default, usually all cores)")
    // Read signed and checked below: Boost reads "-1" into an unsigned value as 2^64 - 1.
    ("seed", po::value<std::int64_t>(&seed_)->default_value(std::int64_t(defaults.seed))->value_name("N"),
     seed_help.c_str())
    ("iters", po::value<int>(&common_.iters)->default_value(defaults.iters)->value_name("N"),
     "iterations (passes over the data)")
    ("compare", po::bool_switch(&common_.compare),
     "run the same configuration on the GPU and on the CPU and print a side-by-side table "
     "(time per iteration, speedup, final quality); the runs write --out/gpu and --out/cpu "
     "(each a model folder), --out/compare.json and --out/compare.ini (run the comparison again "
     "with --config OUT/compare.ini); without a GPU, runs the CPU only")
    ("repeatable", po::bool_switch(&common_.repeatable),
     "GPU: only kernels that give the same bits run after run. Where auto's pick would not (the "
     "kernel line says 'not bitwise repeatable': cuSPARSE's SpMM and a few kernels with atomics), "
     "the fastest repeatable variant, timed as each plan is made, runs instead; may be slower. "
     "Variants named with --spmm/--sddmm are kept")
    ("quiet,q", po::bool_switch(&common_.quiet), "print warnings and errors only")
    ("verbose,v", po::bool_switch(&common_.verbose), verbose_help.c_str());
  // clang-format on
}

namespace {
// A switch given as off (--quiet=false, or `quiet = false` in a config file) is as good as not
// given: mode checks (--no-clip with --implicit) and reject() must not refuse it.
bool switch_off(const po::variables_map& vm, const std::string& name) {
  const auto it = vm.find(name);
  return it != vm.end() && it->second.value().type() == typeid(bool) &&
         !boost::any_cast<bool>(it->second.value());
}
}  // namespace

bool CommandLine::given(const std::string& name) const {
  const auto it = vm_.find(name);
  return it != vm_.end() && !it->second.defaulted() && !it->second.empty() &&
         !switch_off(vm_, name);
}

bool CommandLine::given_on_command_line(const std::string& name) const {
  return command_line_.count(name) > 0 && !switch_off(vm_, name);
}

std::string CommandLine::one_of(const std::vector<std::string>& names, const std::string& why) {
  auto set = [&](const std::string& n) {
    if (!given(n)) return false;
    const boost::any& v = vm_.find(n)->second.value();
    if (v.type() == typeid(bool)) return boost::any_cast<bool>(v);
    if (v.type() == typeid(std::string)) return !boost::any_cast<std::string>(v).empty();
    // A fraction of 0 holds nothing out (--holdout-frac 0 beside --test). Counts stay given at 0:
    // --leave-k-out 0 is the way "no test set" is asked for.
    if (v.type() == typeid(double)) return boost::any_cast<double>(v) != 0;
    return true;
  };
  std::vector<std::string> cli, file;
  for (const std::string& n : names)
    if (set(n)) (given_on_command_line(n) ? cli : file).push_back(n);
  const std::vector<std::string>& from = cli.empty() ? file : cli;
  if (from.size() > 1) usage_fail(from[1], "conflicts with --" + from[0] + ": " + why);
  if (!cli.empty())
    for (const std::string& n : file)
      log_info() << "--" << n << " from the config file is not used: --" << cli[0]
                 << " is given on the command line";
  const std::string& applies = from.empty() ? names.front() : from.front();
  for (const std::string& n : names)
    if (n != applies) set_moot(n);
  return from.empty() ? "" : from.front();
}

void CommandLine::reject(const std::vector<std::string>& names, const std::string& command) const {
  for (const std::string& n : names)
    if (given_on_command_line(n)) usage_fail(n, "does not apply to " + command);
}

bool CommandLine::parse(int argc, const char* const* argv, int first) {
  return parse(argc, argv, std::cout, first);
}

bool CommandLine::parse(int argc, const char* const* argv, std::ostream& help_out, int first) {
  config_source() = {};  // an earlier parse in this process (the tests run apps in-process)
  po::options_description all;
  all.add(common_desc_).add(app_);
  po::options_description with_hidden;
  with_hidden.add(all);
  with_hidden.add_options()(kPositional, po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add(kPositional, -1);

  std::vector<std::string> args;
  for (int i = first; i < argc; ++i) args.emplace_back(argv[i]);
  // "--quiet=false": a switch takes no value, but one given so (true/false, yes/no, on/off, 1/0)
  // lets the command line turn off a switch that a config file turns on.
  std::vector<po::option> switch_values;
  for (auto a = args.begin(); a != args.end() && *a != "--";) {
    const std::size_t eq = a->find('=');
    const po::option_description* d = a->rfind("--", 0) == 0 && eq != std::string::npos && eq > 2
                                          ? all.find_nothrow(a->substr(2, eq - 2), /*approx=*/false)
                                          : nullptr;
    // Switches only (bool values taking no token): not --help, which has no value at all.
    if (!d || d->semantic()->max_tokens() != 0 ||
        !dynamic_cast<const po::typed_value<bool>*>(d->semantic().get())) {
      ++a;
      continue;
    }
    po::option o;
    o.string_key = d->long_name();
    o.value.push_back(a->substr(eq + 1));
    o.original_tokens = {*a};
    switch_values.push_back(std::move(o));
    a = args.erase(a);
  }
  namespace style = po::command_line_style;
  try {
    // No abbreviations: "--comp" must not silently mean "--compare".
    po::parsed_options parsed = po::command_line_parser(args)
                                    .options(with_hidden)
                                    .positional(positional)
                                    .style(style::default_style & ~style::allow_guessing)
                                    .run();
    parsed.options.insert(parsed.options.end(), switch_values.begin(), switch_values.end());
    po::store(parsed, vm_);
  } catch (const po::unknown_option& e) {
    std::string name = e.get_option_name();  // "--users=5" whole when given so
    name.erase(0, name.find_first_not_of('-'));
    name.erase(std::min(name.size(), name.find('=')));
    const std::string executable = app_name_.substr(0, app_name_.find(' '));
    for (const auto& [option, sub] : subcommand_options_)
      if (option == name)
        throw UsageError(po_error_text(e) + ": it is an option of '" + executable + " " + sub +
                         "'");
    throw UsageError(po_error_text(e));
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e));
  }
  for (const auto& [name, value] : vm_)
    if (!value.defaulted()) command_line_.insert(name);
  if (vm_.count(kPositional)) {
    const auto& stray = vm_[kPositional].as<std::vector<std::string>>();
    throw UsageError("unexpected argument '" + stray.front() + "' (options start with --)");
  }
  if (vm_.count("help")) {
    print_help(help_out);
    return false;
  }
  if (vm_.count("version")) {
    help_out << app_name_ << " (factorkit " << build_commit() << ")\n";
    return false;
  }
  if (vm_.count("config")) {
    const std::string path = vm_["config"].as<std::string>();
    std::ifstream in(path);
    // A directory opens on Linux and reads as empty: say so rather than run on the defaults.
    if (!in || !std::filesystem::is_regular_file(path))
      throw UsageError("--config: cannot open config file '" + path + "'" +
                       (std::filesystem::is_directory(path) ? " (it is a directory)" : ""));
    std::ostringstream whole;
    whole << in.rdbuf();
    std::string text = whole.str();
    // A UTF-8 byte order mark (Windows editors write one) is not part of the first key.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    const std::vector<ConfigEntryLine> entries = read_config_entries(path, text, all);
    std::map<std::string, std::int64_t> line_of;
    po::parsed_options parsed(&all);
    for (const ConfigEntryLine& e : entries) {
      line_of[e.key] = e.line;
      po::option o;
      o.string_key = e.key;
      o.value.push_back(e.value);
      o.original_tokens = {e.key, e.value};
      parsed.options.push_back(std::move(o));
    }
    try {
      po::store(parsed, vm_);
    } catch (const po::error& e) {
      // A value Boost cannot convert names its option: give its line too.
      std::string where;
      if (const auto* bad = dynamic_cast<const po::error_with_option_name*>(&e)) {
        std::string name = bad->get_option_name();
        name.erase(0, name.find_first_not_of('-'));
        if (const auto it = line_of.find(name); it != line_of.end())
          where = ", line " + std::to_string(it->second);
      }
      throw UsageError("config file '" + path + "'" + where + ": " + po_error_text(e));
    }
    for (const std::string& name : command_line_) line_of.erase(name);  // the command line won
    config_source() = {path, std::move(line_of)};
  }
  try {
    po::notify(vm_);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e));
  }
  std::optional<io::InputFormat> format;
  try {
    format = io::parse_input_format(format_text_);  // any case, and its aliases (mm, txt)
  } catch (const Error&) {
  }
  if (!format ||
      (*format != io::InputFormat::kAuto &&
       std::find(formats_.begin(), formats_.end(), io::to_string(*format)) == formats_.end()))
    usage_fail("format",
               "expected auto or one of " + format_list_ + ", got '" + format_text_ + "'");
  common_.format = *format;
  // A generated input has no file format: a --format given with it would be ignored.
  if (common_.input.rfind("gen:", 0) == 0 && common_.format != io::InputFormat::kAuto)
    usage_fail("format", "does not apply to a generated input (" + common_.input + ")");
  try {
    common_.device = parse_device_request(device_text_);
  } catch (const Error&) {
    usage_fail("device", "expected auto, gpu or cpu, got '" + device_text_ + "'");
  }
  require_at_least("seed", seed_, std::int64_t{0});
  common_.seed = static_cast<std::uint64_t>(seed_);
  require_at_least("threads", common_.threads, 0);
  if (common_.threads > Context::kMaxThreads)
    usage_fail("threads", "must be at most " + std::to_string(Context::kMaxThreads) + ", got " +
                              std::to_string(common_.threads));
  require_at_least("iters", common_.iters, 0);
  if (common_.out.empty()) usage_fail("out", "must not be empty");
  check_output_dir(common_.out);  // before a possibly long load and training
  if (!common_.compare) check_device_request(common_.device);  // --compare ignores --device
  if (common_.quiet && common_.verbose) {  // the command line's wins over the config file's
    const std::string level = one_of({"quiet", "verbose"}, "give one of them");
    (level == "quiet" ? common_.verbose : common_.quiet) = false;
  }
  set_log_level(common_.quiet     ? LogLevel::kWarn
                : common_.verbose ? LogLevel::kDebug
                                  : LogLevel::kInfo);
  return true;
}

void CommandLine::print_help(std::ostream& os) const {
  os << app_name_ << ": " << synopsis_ << "\n\nUsage:\n  " << usage_ << "\n\n";
  po::options_description common(kCommonCaption, kHelpWidth, kHelpWidth / 2);
  for (const auto& opt : common_desc_.options())
    if (std::find(not_applicable_.begin(), not_applicable_.end(), opt->long_name()) ==
        not_applicable_.end())
      common.add(opt);
  os << app_ << "\n" << common << "\n";
  os << "Options can also come from an INI file given with --config (`key = value` lines, e.g.\n"
        "`out = runs/a`; a switch as `quiet = true`); the command line wins, and --NAME=false\n"
        "turns off a switch the file turns on. Exit status: 0 success, 1 runtime failure (bad\n"
        "input file, device error), 2 usage error (unknown option, bad value).\n";
  // What --out's description cannot say in a line: what becomes of a folder that is not empty.
  const bool trains =
      std::find(not_applicable_.begin(), not_applicable_.end(), "iters") == not_applicable_.end();
  if (trains)
    os << "An --out that holds this app's earlier model keeps it in --out/previous-run until\n"
          "the run completes, and puts it back if the run fails; another app's model there is\n"
          "refused, and other files there are left alone. Ctrl-C or a kill leaves the last\n"
          "checkpoint (--checkpoint-every) for the same command with --resume.\n";
}

ResolvedConfig CommandLine::resolved(const ResolvedConfig& overrides) const {
  ResolvedConfig out;
  auto add_from = [&](const po::options_description& desc) {
    for (const auto& opt : desc.options()) {
      const std::string& key = opt->long_name();
      if (key == "help" || key == "version" || key == "config" || key == kPositional) continue;
      const auto it = vm_.find(key);
      if (it == vm_.end() || it->second.empty()) continue;
      out.push_back(
          {key, value_text(it->second.value(), false), value_text(it->second.value(), true)});
    }
  };
  add_from(common_desc_);
  add_from(app_);
  for (const ConfigEntry& o : overrides) {
    bool replaced = false;
    for (ConfigEntry& e : out)
      if (e.key == o.key) {
        e = o;
        replaced = true;
      }
    if (!replaced) out.push_back(o);
  }
  // Moot options, and options that do not apply to this command (infer's iters and compare):
  // the written config.ini must run again with --config.
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const ConfigEntry& e) {
                             return moot_.count(e.key) > 0 ||
                                    std::find(not_applicable_.begin(), not_applicable_.end(),
                                              e.key) != not_applicable_.end();
                           }),
            out.end());
  return out;
}

}  // namespace fk::app
