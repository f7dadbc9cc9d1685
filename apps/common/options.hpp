#pragma once
// The command line every factorkit app shares (Boost.Program_options): the common options, an
// optional INI config file (--config FILE; the command line wins), help text that explains every
// option including the app's own, and the resolved configuration for the output directory.
//
//   app::CommandLine cli("fk-lda", "train an LDA topic model", "fk-lda [options]", {.iters = 10});
//   cli.app_options().add_options()(
//       "topics", po::value<int>(&opt.topics)->default_value(100), "...");
//   if (!cli.parse(argc, argv)) return 0;  // --help was printed
//   const app::CommonOptions& common = cli.common();
//
// Unknown options and values that do not parse are app::UsageError naming the option (and the
// config file when the problem is there); apps exit 2 on those (apps/common/app_main.hpp).
#include <boost/program_options.hpp>
#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/context.hpp"
#include "core/error.hpp"
#include "core/io/format.hpp"

namespace fk::app {

namespace po = boost::program_options;

// A problem with how the program was called (unknown option, bad value, conflicting options):
// apps print it and exit with status 2, where runtime failures exit with 1.
class UsageError : public Error {
 public:
  using Error::Error;
};

// The command whose options were last described ("fk-als recommend"): run_main's usage errors
// point at its --help. Empty before any CommandLine.
const std::string& current_command();
// Sets it for a command that parses its own options (fk-datagen lda).
void set_current_command(const std::string& command);

struct CommonOptions {
  std::string config;                               // --config FILE ("" when none)
  std::string input;                                // --input PATH ("" when not given)
  io::InputFormat format = io::InputFormat::kAuto;  // --format
  std::string out;                                  // --out DIR
  DeviceRequest device = DeviceRequest::kAuto;      // --device
  int threads = 0;                                  // --threads (0: OpenMP's default)
  std::uint64_t seed = 1;                           // --seed
  int iters = 10;                                   // --iters
  bool compare = false;                             // --compare
  bool quiet = false;                               // --quiet
  bool verbose = false;                             // --verbose (debug lines)
  bool repeatable = false;                          // --repeatable
};

// Per-app defaults of the common options.
struct CommonDefaults {
  std::string out = "out";
  int iters = 10;
  std::uint64_t seed = 1;
  // A command that reads a saved model (fk-als recommend, fk-lda infer): the common options it
  // rejects are left out of its --help, and --out's help says what it writes there.
  std::vector<std::string> not_applicable;
  std::string out_help;  // empty: a training run's text
  // What --seed seeds in this command, in place of the training text's "It seeds what the run
  // draws (initial values, the held-out split), not generated gen: input..." (fk-lda infer has
  // neither a split nor gen: input). Empty: that text.
  std::string seed_use;
  // The --format values (besides auto) the command reads, in its --help's order; another is a
  // usage error. Empty: every format.
  std::vector<std::string> formats;
  // Options of the app's subcommands and which ("model" -> "infer"): given to the training command
  // by mistake, the error names the subcommand.
  std::vector<std::pair<std::string, std::string>> subcommand_options;
};

// One resolved option: its name and value as INI text and as a JSON value.
struct ConfigEntry {
  std::string key;
  std::string ini;   // e.g. 0.5, gen:default, true
  std::string json;  // e.g. 0.5, "gen:default", true
};
using ResolvedConfig = std::vector<ConfigEntry>;

class CommandLine {
 public:
  // `app` is the executable name ("fk-lda"); `synopsis` one line for --help; `usage` the usage
  // line(s) printed under it (e.g. "fk-lda [options]\n  fk-lda infer --model DIR --input FILE").
  CommandLine(std::string app, std::string synopsis, std::string usage,
              CommonDefaults defaults = {});

  // The app adds its own options here before parse(); bind them with po::value<T>(&field).
  po::options_description& app_options() { return app_; }

  // Parses argv[first..argc) and then --config FILE (values from the command line win). Returns
  // false when --help or --version was asked for: the help text, or the app's name and
  // fk::build_commit(), has then been written to `help_out`. Throws
  // UsageError naming the option for an unknown option, a value that does not parse, a bad
  // --format/--device value, or a config file that cannot be read.
  bool parse(int argc, const char* const* argv, int first = 1);
  bool parse(int argc, const char* const* argv, std::ostream& help_out, int first = 1);

  const CommonOptions& common() const { return common_; }
  // True when the option was given on the command line or in the config file (not defaulted).
  bool given(const std::string& name) const;
  // True when it was given on the command line: a value there may conflict with another option,
  // while a config file's value may be one the command line makes moot.
  bool given_on_command_line(const std::string& name) const;
  // Of `names`, options that exclude one another (ways of holding data out, say; the first is
  // the default), the one that applies: the one given on the command line, else the one given in
  // the config file, else "" (a switch set to false, an empty string or a fraction of 0 counts as
  // not given: --holdout-frac 0 --test FILE is one way). Two
  // on the command line, or two in the config file and none on the command line, are a usage
  // error saying `why`; config values the command line overrides this way are logged as not
  // used. The others become moot (below).
  std::string one_of(const std::vector<std::string>& names, const std::string& why);
  // An option that does not apply to this run (--alpha without --implicit): resolved() leaves it
  // out, so that the config.ini a run writes runs again as it is.
  void set_moot(const std::string& name) { moot_.insert(name); }
  // Of `names`, one given on the command line is a usage error saying that it does not apply to
  // `command` (a command that reads a saved model ignores the training options; a config file's
  // values for them are moot, not errors).
  void reject(const std::vector<std::string>& names, const std::string& command) const;
  const std::string& app() const { return app_name_; }

  // Every option (common and app) with its final value, in declaration order; --config, --help,
  // --version and options without a value are left out. `overrides` replaces the value of a key
  // (an app's derived default, e.g. alpha = 1/K) or appends it when the key is unknown.
  ResolvedConfig resolved(const ResolvedConfig& overrides = {}) const;

 private:
  void print_help(std::ostream& os) const;  // --help's text

  std::string app_name_, synopsis_, usage_;
  std::vector<std::string> not_applicable_;  // left out of --help
  po::options_description common_desc_;
  po::options_description app_;
  po::variables_map vm_;
  std::set<std::string> command_line_;  // the options given on the command line
  std::set<std::string> moot_;          // left out of resolved()
  CommonOptions common_;
  std::string format_text_, device_text_;
  std::vector<std::string> formats_;  // CommonDefaults::formats, or every format
  std::vector<std::pair<std::string, std::string>> subcommand_options_;
  std::string format_list_;  // formats_ as "a, b, c"
  std::int64_t seed_ = 0;  // --seed as given (common_.seed once checked)
};

// The common options that the commands scoring a saved model on the host (fk-als/fk-sfa
// recommend and similar: one pass over the factors, no kernels, no threads) do not read; they
// leave them out of their --help and CommandLine::reject them.
inline const std::vector<std::string> kTrainingOnly = {
    "input", "format", "iters", "seed", "compare", "device", "threads", "repeatable"};

// Helpers for apps' own checks; each throws UsageError "--NAME: ...".
[[noreturn]] void usage_fail(const std::string& option, const std::string& message);
template <typename T>
void require_at_least(const std::string& option, T value, T minimum) {
  if (!(value >= minimum)) {  // NaN too
    std::ostringstream os;
    os << "must be at least " << minimum << ", got " << value;
    usage_fail(option, os.str());
  }
}

// Shortest decimal text that reads back as the same double ("0.1", not "0.10000000000000001");
// "nan"/"inf" for non-finite values.
std::string format_double(double v);
// JSON string literal with escapes.
std::string json_quote(const std::string& s);
// The non-empty items of a comma-separated list, blanks at their ends dropped ("a, ,b " gives
// {"a", "b"}).
std::vector<std::string> split_list(const std::string& text);
// `text` without the blanks at its ends.
std::string trim_blanks(const std::string& text);
// An id a user gave, with where: the option it came with and, for a file, "FILE, line N: ".
struct GivenId {
  std::string id;
  std::string option;
  std::string place;
};
// The ids in the file at `path`, one per line exactly as written (an id may hold commas, blanks or
// quotes, as a quoted CSV field of a ratings file can); blank lines are skipped, and a line's
// trailing '\r' and the file's UTF-8 byte order mark are not part of an id. UsageError naming
// --<option> when the file cannot be read or an id is given twice (with the file and line).
std::vector<GivenId> read_id_file(const std::string& option, const std::string& path);
// The ids of --<option> (`list`, comma-separated: split_list; one given twice is a UsageError)
// followed by those of --<option>-file (`file`, one per line: read_id_file; "" when not given).
// An id in both is a UsageError.
std::vector<GivenId> id_list_and_file(const std::string& option, const std::string& list,
                                      const std::string& file);
// printf-style text of one double for log lines and tables: fmt("%.4f", 0.5) is "0.5000".
std::string fmt(const char* format, double v);

}  // namespace fk::app
