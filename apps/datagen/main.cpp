// fk-datagen: writes the seeded synthetic data sets of core/generate to files.
//   fk-datagen lda     [--preset NAME] [--docs D --words W --topics K ...] --out DIR
//   fk-datagen ratings [--preset NAME] [--users U --items I --ratings N ...] --out FILE.csv
//   fk-datagen sparse  --spec SPEC --out FILE.mtx|FILE.smtx
// Every command takes --seed, --threads, --quiet and --help. Errors are one line on stderr and
// exit status 2 (usage) or 1 (runtime), see apps/common/app_main.hpp.
#include <omp.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/app_main.hpp"
#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "core/build_info.hpp"
#include "core/context.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"
#include "core/generate/sparse.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "core/io/ratings.hpp"
#include "core/io/smtx.hpp"
#include "core/io/staging_dir.hpp"
#include "core/io/uci.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk {
namespace {

namespace po = boost::program_options;
using app::usage_fail;
using app::UsageError;

// --out's problems before the data is generated, which can take a while, rather than at the end.
// With the exit statuses of lda and of the training apps (apps/common/output.hpp): a folder where
// the file is to be written is a usage error naming --out (2, as check_no_directory_in_the_way);
// a place that cannot be written (a file where a folder should be, a folder that cannot be
// written or created in) is a runtime failure (1, as check_output_dir).
void check_out_file(const std::string& out) {
  if (out.empty()) usage_fail("out", "must not be empty");  // as the training apps
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    usage_fail("out", "cannot write " + out +
                          ": it is a directory (give a file name, or move the folder away)");
  try {
    io::check_output_file(out);
  } catch (const Error& e) {
    throw Error(std::string("--out: ") + e.what());
  }
}

constexpr const char* kApp = "fk-datagen";

// stdout for a command's "wrote ..." line, or nowhere under -q (warnings and errors only, as in
// the apps).
std::ostream& result_stream() {
  static std::ostream nowhere(nullptr);
  return log_level() <= LogLevel::kInfo ? std::cout : nowhere;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void print_usage(std::ostream& os) {
  os << "fk-datagen: seeded synthetic data sets (the same seed gives the same files on any "
        "machine\n"
        "and any thread count)\n\n"
        "usage:\n"
        "  fk-datagen lda     [--preset NAME] [--docs D --words W --topics K ...] --out DIR\n"
        "      LDA corpus from the generative model: DIR/docword.txt (UCI bag of words),\n"
        "      DIR/vocab.txt and DIR/true_topics.npy (topics x words, float32, rows sum to 1).\n"
        "      Presets: "
     << join(gen::lda_preset_names())
     << ".\n"
        "  fk-datagen ratings [--preset NAME] [--users U --items I --ratings N ...] --out "
        "FILE.csv\n"
        "      Ratings from a low-rank model with power-law activity, CSV user,item,rating.\n"
        "      Presets: "
     << join(gen::ratings_preset_names())
     << ".\n"
        "  fk-datagen sparse  --spec SPEC --out FILE.mtx|FILE.smtx\n"
        "      Synthetic sparse matrix as Matrix Market (with values) or DLMC .smtx (pattern).\n"
        "  fk-datagen COMMAND --help   explains every option of COMMAND\n"
        "  fk-datagen --version        prints the commit it was built from\n";
}

// Options every command has.
struct Common {
  std::int64_t seed = 1;  // signed: Boost reads "-1" into an unsigned value as 2^64 - 1
  int threads = 0;
  bool quiet = false;
};

void add_common(po::options_description& desc, Common& c, const std::string& seed_help) {
  // clang-format off
  desc.add_options()
      ("seed", po::value<std::int64_t>(&c.seed), seed_help.c_str())
      ("threads", po::value<int>(&c.threads)->default_value(0),
       "OpenMP threads (0: OpenMP's default); the output does not depend on it")
      ("quiet", po::bool_switch(&c.quiet),
       "only warnings and errors on stderr (no progress lines); -q for short, as in fk-lda, "
       "fk-als, fk-sfa and fk-gap")
      ("help", "print this help and exit (-h for short)");
  // clang-format on
}

// Parses argv[2..]. Short options are off so that negative values ("--min-rating -1") read as
// values; "-q" and "-h" alone are taken for --quiet and --help, as every app takes them. Returns
// false when --help was printed.
bool parse(int argc, char** argv, const po::options_description& desc, const std::string& usage,
           po::variables_map& vm) {
  std::vector<std::string> args(argv + 2, argv + argc);
  for (std::string& a : args) {
    if (a == "-q") a = "--quiet";
    if (a == "-h") a = "--help";
  }
  // No abbreviations, as in the apps: "--rat 100" must not silently mean "--ratings 100".
  const int style = (po::command_line_style::unix_style ^ po::command_line_style::allow_short) &
                    ~po::command_line_style::allow_guessing;
  const po::parsed_options parsed = po::command_line_parser(args).options(desc).style(style).run();
  for (const po::option& o : parsed.options)
    if (o.position_key >= 0 || o.string_key.empty())
      throw UsageError("unexpected argument '" +
                       (o.original_tokens.empty() ? o.value.front() : o.original_tokens.front()) +
                       "' (every value needs its --option)");
  po::store(parsed, vm);
  if (vm.count("help")) {
    std::cout << usage << "\n\n" << desc << std::endl;
    return false;
  }
  po::notify(vm);
  return true;
}

void apply_common(const Common& c) {
  if (c.seed < 0) usage_fail("seed", "must be at least 0, got " + std::to_string(c.seed));
  if (c.threads < 0 || c.threads > Context::kMaxThreads)
    usage_fail("threads", "must be between 0 and " + std::to_string(Context::kMaxThreads) +
                              ", got " + std::to_string(c.threads));
  if (c.threads > 0) omp_set_num_threads(c.threads);
  if (c.quiet) set_log_level(LogLevel::kWarn);
}

// Range check of option `name` (of type T) when it was given, naming the option; `lo_open`
// excludes the lower bound. Preset values are valid by construction.
template <typename T>
void check(const po::variables_map& vm, const std::string& name, T lo, T hi, bool lo_open = false) {
  if (!vm.count(name)) return;
  const T value = vm[name].as<T>();
  if (std::isfinite(static_cast<double>(value)) && (lo_open ? value > lo : value >= lo) &&
      value <= hi)
    return;
  std::ostringstream os;
  if (hi == std::numeric_limits<T>::max())
    os << "must be " << (lo_open ? "> " : ">= ") << lo << ", got " << value;
  else
    os << "must be in " << (lo_open ? "(" : "[") << lo << ", " << hi << "], got " << value;
  usage_fail(name, os.str());
}

// Sets `field` from option `name` when it was given.
template <typename T, typename F>
void take(const po::variables_map& vm, const std::string& name, F& field) {
  if (vm.count(name)) field = static_cast<F>(vm[name].as<T>());
}

double seconds_since(const Stopwatch& sw) { return std::round(sw.seconds() * 100) / 100; }

int run_lda(int argc, char** argv) {
  Common common;
  std::string preset = "default", out;
  po::options_description desc("fk-datagen lda options (values not given come from the preset)");
  // clang-format off
  desc.add_options()
      ("preset", po::value<std::string>(&preset)->default_value(preset),
       ("shape and concentrations to start from: " + join(gen::lda_preset_names()) +
        " (default ~2,000 x 5,000; kos 3,430 x 6,906; nips 1,500 x 12,419; nytimes 300,000 x "
        "102,660, ~70M nonzeros, about 10 s and 0.8 GB on 2 cores)").c_str())
      ("docs", po::value<std::int64_t>(), "number of documents (>= 1)")
      ("words", po::value<std::int64_t>(), "vocabulary size (>= 1)")
      ("topics", po::value<int>(), "number of true topics K (>= 1)")
      ("mean-length", po::value<double>(), "mean tokens per document (log-normal mean, >= 1)")
      ("length-sigma", po::value<double>(), "log-normal shape of the document lengths, in [0, 3]")
      ("doc-alpha", po::value<double>(), "document-topic Dirichlet concentration (> 0)")
      ("topic-eta", po::value<double>(),
       "topic-word Dirichlet concentration per word, shaped by the Zipf base measure (> 0)")
      ("zipf", po::value<double>(), "Zipf exponent of the vocabulary base measure, in [0, 5]")
      ("out", po::value<std::string>(&out)->required(),
       "output directory (created): docword.txt, vocab.txt, true_topics.npy");
  // clang-format on
  add_common(desc, common, "random seed (default 1)");
  po::variables_map vm;
  if (!parse(argc, argv, desc, "usage: fk-datagen lda [--preset NAME] [options] --out DIR", vm))
    return 0;
  apply_common(common);

  gen::LdaCorpusSpec spec;
  try {
    spec = gen::lda_preset(preset);
  } catch (const Error& e) {
    usage_fail("preset", e.what());
  }
  const std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
  check<std::int64_t>(vm, "docs", 1, INT64_MAX);
  check<std::int64_t>(vm, "words", 1, kMaxIndex);
  check<int>(vm, "topics", 1, 1 << 20);
  check<double>(vm, "mean-length", 1.0, 1e7);
  check<double>(vm, "length-sigma", 0.0, 3.0);
  check<double>(vm, "doc-alpha", 0.0, 1e6, true);
  check<double>(vm, "topic-eta", 0.0, 1e6, true);
  check<double>(vm, "zipf", 0.0, 5.0);
  take<std::int64_t>(vm, "docs", spec.docs);
  take<std::int64_t>(vm, "words", spec.words);
  take<int>(vm, "topics", spec.topics);
  take<double>(vm, "mean-length", spec.mean_doc_length);
  take<double>(vm, "length-sigma", spec.doc_length_sigma);
  take<double>(vm, "doc-alpha", spec.doc_alpha);
  take<double>(vm, "topic-eta", spec.topic_eta);
  take<double>(vm, "zipf", spec.zipf_exponent);
  if (vm.count("seed")) spec.seed = static_cast<std::uint64_t>(common.seed);

  if (out.empty()) usage_fail("out", "must not be empty");  // as the training apps
  app::check_output_dir(out);  // before generating, which may take seconds and gigabytes
  const std::vector<std::string> names = {"docword.txt", "vocab.txt", "true_topics.npy"};
  for (const std::string& name : names) {
    const std::filesystem::path target = out + "/" + name;
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(target, ec)) &&
        !std::filesystem::is_regular_file(std::filesystem::symlink_status(target, ec)))
      // A usage error, as the training apps' check of a folder in the way of one of their files.
      usage_fail("out", "cannot write " + target.string() +
                            ": it is not a regular file (a folder, a link or a device); nothing was written");
  }
  log_info() << "lda: " << spec.docs << " docs x " << spec.words << " words, " << spec.topics
             << " topics, mean length " << spec.mean_doc_length << ", seed " << spec.seed;
  Stopwatch sw;
  gen::GeneratedCorpus c = gen::generate_lda_corpus(spec);
  const double gen_s = seconds_since(sw);
  double tokens = 0;
  for (float v : c.counts.vals) tokens += v;
  const std::int64_t nnz = c.counts.nnz();
  log_info() << "generated " << nnz << " nonzeros, " << static_cast<std::int64_t>(tokens)
             << " tokens in " << gen_s << " s; writing " << out;

  sw.restart();
  app::ensure_output_dir(out);  // a message naming --out's problem, not the filesystem's
  const std::string docword = out + "/docword.txt", vocab = out + "/vocab.txt",
                    topics = out + "/true_topics.npy";
  // The three files are one data set: written into a staging folder beside them (its own name,
  // mkdtemp) and moved into place together once all are written, so that a failed write (a full
  // disk) leaves the folder as it was, not a new docword.txt beside an older data set's
  // true_topics.npy. (What would be in the way of a rename was refused before generating.)
  // A name of its own, with the pid, so that a later run removes what a killed one (kill -9: its
  // signal cleanup could not run) left there, up to the whole data set.
  const std::string staging_prefix = ".fk-datagen.";
  io::remove_dead_leftovers(out, staging_prefix);
  std::string staging = out + "/" + staging_prefix + std::to_string(::getpid()) + ".XXXXXX";
  if (::mkdtemp(staging.data()) == nullptr)
    throw Error("cannot create a staging folder in " + out + " (" + std::strerror(errno) + ")");
  std::vector<std::string> moved;
  try {
    io::StagingDir stage(staging);  // removed with what is left in it, the files moved or not
    io::Corpus corpus;
    corpus.counts = std::move(c.counts);
    corpus.vocab = std::move(c.vocab);
    io::write_uci(stage.file("docword.txt"), stage.file("vocab.txt"), corpus);
    io::write_npy(stage.file("true_topics.npy"), c.topics);
    for (const std::string& name : names) {
      std::filesystem::rename(stage.path() + "/" + name, out + "/" + name);
      moved.push_back(name);
    }
  } catch (const std::exception& e) {
    std::string changed = "nothing there changed";
    if (!moved.empty()) {
      changed = "replaced only";
      for (const std::string& name : moved) changed += " " + name;
    }
    throw Error("writing the data set into " + out + " failed (" + changed + "): " + e.what());
  }
  result_stream() << "wrote " << docword << ", " << vocab << ", " << topics << ": " << spec.docs
                  << " docs x " << spec.words << " words, " << nnz << " nonzeros, "
                  << static_cast<std::int64_t>(tokens) << " tokens, " << spec.topics
                  << " topics (generated in " << gen_s << " s, written in " << seconds_since(sw)
                  << " s)" << std::endl;
  return 0;
}

int run_ratings(int argc, char** argv) {
  Common common;
  std::string preset = "ml-100k", out;
  po::options_description desc(
      "fk-datagen ratings options (values not given come from the preset)");
  // clang-format off
  desc.add_options()
      ("preset", po::value<std::string>(&preset)->default_value(preset),
       ("shape and skew to start from: " + join(gen::ratings_preset_names()) +
        " (ml-100k 943 x 1,682, 100K; ml-20m 138,493 x 26,744, 20M; netflix 480,189 x 17,770, "
        "100M, about 5 s and 1.3 GB on 2 cores plus the CSV writing)").c_str())
      ("users", po::value<std::int64_t>(), "number of users (>= 1)")
      ("items", po::value<std::int64_t>(), "number of items (>= 1)")
      ("ratings", po::value<std::int64_t>(),
       "number of ratings, no duplicate (user, item) pairs: at most users x items")
      ("rank", po::value<int>(), "rank of the true model (>= 1)")
      ("noise", po::value<double>(), "standard deviation of the rating noise, in rating units (>= 0)")
      ("user-exponent", po::value<double>(), "Zipf exponent of user activity by rank, in [0, 5]")
      ("item-exponent", po::value<double>(), "Zipf exponent of item popularity by rank, in [0, 5]")
      ("min-rating", po::value<float>(), "lowest rating (ratings are clipped to it)")
      ("max-rating", po::value<float>(), "highest rating (ratings are clipped to it)")
      ("step", po::value<float>(), "ratings are rounded to min-rating + k * step; 0 keeps real values")
      ("min-user-ratings", po::value<std::int64_t>(),
       "every user rates at least this many items (MovieLens presets: 20)")
      ("out", po::value<std::string>(&out)->required(), "output CSV file (user,item,rating; ids from 1)");
  // clang-format on
  add_common(desc, common, "random seed (default 1)");
  po::variables_map vm;
  if (!parse(argc, argv, desc, "usage: fk-datagen ratings [--preset NAME] [options] --out FILE.csv",
             vm))
    return 0;
  apply_common(common);

  gen::RatingsSpec spec;
  try {
    spec = gen::ratings_preset(preset);
  } catch (const Error& e) {
    usage_fail("preset", e.what());
  }
  const std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
  check<std::int64_t>(vm, "users", 1, kMaxIndex);
  check<std::int64_t>(vm, "items", 1, kMaxIndex);
  check<std::int64_t>(vm, "ratings", 0, INT64_MAX);
  check<int>(vm, "rank", 1, 4096);
  check<double>(vm, "noise", 0.0, 1e6);
  check<double>(vm, "user-exponent", 0.0, 5.0);
  check<double>(vm, "item-exponent", 0.0, 5.0);
  check<float>(vm, "min-rating", -1e9f, 1e9f);
  check<float>(vm, "max-rating", -1e9f, 1e9f);
  check<float>(vm, "step", 0.0f, 1e9f);
  check<std::int64_t>(vm, "min-user-ratings", 0, kMaxIndex);
  take<std::int64_t>(vm, "users", spec.users);
  take<std::int64_t>(vm, "items", spec.items);
  take<std::int64_t>(vm, "ratings", spec.ratings);
  take<int>(vm, "rank", spec.rank);
  take<double>(vm, "noise", spec.noise);
  take<double>(vm, "user-exponent", spec.user_exponent);
  take<double>(vm, "item-exponent", spec.item_exponent);
  take<float>(vm, "min-rating", spec.min_rating);
  take<float>(vm, "max-rating", spec.max_rating);
  take<float>(vm, "step", spec.step);
  take<std::int64_t>(vm, "min-user-ratings", spec.min_user_ratings);
  if (vm.count("seed")) spec.seed = static_cast<std::uint64_t>(common.seed);
  check_out_file(out);
  // Checks that involve several options, named by the options. Each value is shown, marked as the
  // preset's where the option was not given: "--min-user-ratings: must not exceed items (5)"
  // after '--users 5 --items 5 --ratings 10' named an option the user never gave, and not its 20.
  const auto shown = [&](const std::string& name, auto value) {
    std::ostringstream os;
    os << value;
    if (!vm.count(name)) os << " (the " << preset << " preset's " << name << ")";
    return os.str();
  };
  if (!(spec.min_rating < spec.max_rating))
    usage_fail("min-rating/--max-rating", "need min-rating < max-rating, got " +
                                              shown("min-rating", spec.min_rating) + " and " +
                                              shown("max-rating", spec.max_rating));
  if (spec.step > spec.max_rating - spec.min_rating)
    usage_fail("step", shown("step", spec.step) + " must not exceed max-rating - min-rating = " +
                           shown("max-rating", spec.max_rating) + " - " +
                           shown("min-rating", spec.min_rating));
  if (static_cast<double>(spec.ratings) >
      static_cast<double>(spec.users) * static_cast<double>(spec.items))
    usage_fail("ratings", shown("ratings", spec.ratings) + " do not fit in users x items = " +
                              shown("users", spec.users) + " x " + shown("items", spec.items));
  if (spec.min_user_ratings > spec.items)
    usage_fail("min-user-ratings", shown("min-user-ratings", spec.min_user_ratings) +
                                       " must not exceed items = " + shown("items", spec.items));
  if (static_cast<double>(spec.ratings) <
      static_cast<double>(spec.users) * static_cast<double>(spec.min_user_ratings))
    usage_fail("ratings", shown("ratings", spec.ratings) +
                              " are fewer than users x min-user-ratings = " +
                              shown("users", spec.users) + " x " +
                              shown("min-user-ratings", spec.min_user_ratings));

  log_info() << "ratings: " << spec.users << " users x " << spec.items << " items, " << spec.ratings
             << " ratings, rank " << spec.rank << ", seed " << spec.seed;
  Stopwatch sw;
  const gen::GeneratedRatings g = gen::generate_ratings(spec);
  const double gen_s = seconds_since(sw);
  log_info() << "generated in " << gen_s << " s; writing " << out;
  sw.restart();
  const std::filesystem::path parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  io::write_ratings_csv(out, g.ratings);
  result_stream() << "wrote " << out << ": " << spec.users << " users x " << spec.items
                  << " items, " << g.ratings.size() << " ratings (generated in " << gen_s
                  << " s, written in " << seconds_since(sw) << " s)" << std::endl;
  return 0;
}

int run_sparse(int argc, char** argv) {
  Common common;
  std::string spec_text, out;
  po::options_description desc("fk-datagen sparse options");
  // clang-format off
  desc.add_options()
      ("spec", po::value<std::string>(&spec_text)->required(),
       "KIND:rows=R,cols=C,nnz=Z[,param=P][,seed=S]. KIND: uniform (Poisson row lengths, uniform "
       "columns; no param), powerlaw (row lengths and column popularity Zipf with exponent P in "
       "[0, 5], default 1; 0: equal row lengths, uniform columns), banded (uniform within a band "
       "of P >= 1 columns around the scaled diagonal, default 2*ceil(nnz/rows)+1), clustered "
       "(groups of P rows, 1 to rows, default 32, share a column set that holds 80% of their "
       "entries), vector (blocks of P consecutive rows, 2, 4 or 8, default 4, share one uniformly "
       "drawn column set: exactly P x 1 structured; rows and nnz multiples of P). A P outside its "
       "kind's range is an error. nnz is met exactly; counts may be written as 1e6")
      ("out", po::value<std::string>(&out)->required(),
       "output file: .mtx (Matrix Market coordinate real general, values in [0.5, 1.5)) or .smtx "
       "(DLMC pattern CSR)");
  // clang-format on
  add_common(desc, common, "random seed, overriding the spec's seed=");
  po::variables_map vm;
  if (!parse(argc, argv, desc, "usage: fk-datagen sparse --spec SPEC --out FILE.mtx|FILE.smtx", vm))
    return 0;
  apply_common(common);
  gen::SparseSpec spec;
  try {
    spec = gen::parse_sparse_spec(spec_text);
  } catch (const Error& e) {
    usage_fail("spec", e.what());
  }
  if (vm.count("seed")) spec.seed = static_cast<std::uint64_t>(common.seed);
  const std::string ext = std::filesystem::path(out).extension().string();
  if (ext != ".mtx" && ext != ".smtx")
    usage_fail("out", "'" + out + "' must end in .mtx (Matrix Market) or .smtx (DLMC)");
  check_out_file(out);

  log_info() << "sparse: " << gen::to_string(spec);
  Stopwatch sw;
  const HostCsr m = gen::generate_sparse(spec);
  const double gen_s = seconds_since(sw);
  sw.restart();
  const std::filesystem::path parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  if (ext == ".mtx")
    io::write_matrix_market(out, m);
  else
    io::write_smtx(out, m);
  result_stream() << "wrote " << out << ": " << gen::to_string(spec) << " (generated in " << gen_s
                  << " s, written in " << seconds_since(sw) << " s)" << std::endl;
  return 0;
}

int datagen_main(int argc, char** argv) {
  if (argc < 2) throw UsageError("no command given (lda, ratings or sparse)");
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    print_usage(std::cout);
    return 0;
  }
  if (cmd == "--version") {
    std::cout << kApp << " (factorkit " << build_commit() << ")\n";
    return 0;
  }
  if (cmd == "lda" || cmd == "ratings" || cmd == "sparse")
    app::set_current_command(std::string(kApp) + " " + cmd);  // usage errors point at its help
  if (cmd == "lda") return run_lda(argc, argv);
  if (cmd == "ratings") return run_ratings(argc, argv);
  if (cmd == "sparse") return run_sparse(argc, argv);
  throw UsageError("unknown command '" + cmd + "' (expected lda, ratings or sparse)");
}

}  // namespace
}  // namespace fk

int main(int argc, char** argv) {
  return fk::app::run_main(fk::kApp, argc, argv, fk::datagen_main);
}
