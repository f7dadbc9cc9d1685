#include "apps/bench/problem.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"
#include "core/generate/sparse.hpp"
#include "core/io/format.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/ratings.hpp"
#include "core/io/smtx.hpp"
#include "core/io/uci.hpp"
#include "core/random.hpp"

namespace fk::bench {

void randomize_values(HostCsr& s, std::uint64_t seed) {
  Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  s.vals.resize(s.col_idx.size());
  for (float& v : s.vals) v = static_cast<float>(rng.uniform(0.5, 1.5));
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "dir/0.9/layer.smtx" -> "0.9/layer" (DLMC keeps one file name per sparsity folder);
// "hep-th.mtx" -> "hep-th"; "docword.kos.txt.gz" -> "docword.kos".
std::string label_of_file(const std::string& path, io::InputFormat format) {
  const std::filesystem::path p(path);
  std::string name = p.filename().string();
  for (const char* suffix : {".gz", ".txt", ".mtx", ".smtx", ".csv", ".dat"})
    if (ends_with(name, suffix) && name.size() > std::string(suffix).size()) name.resize(name.size() - std::string(suffix).size());
  if (format == io::InputFormat::kSmtx && p.has_parent_path() && p.parent_path().has_filename())
    name = p.parent_path().filename().string() + "/" + name;
  return name;
}

// Matrix Market pattern files come back from the reader with every value 1: the header says so.
bool is_matrix_market_pattern(const std::string& path) {
  io::LineReader reader(path);
  std::string header;
  if (!reader.next(header)) return false;
  std::transform(header.begin(), header.end(), header.begin(), [](unsigned char c) { return std::tolower(c); });
  return header.find(" pattern") != std::string::npos;
}

BenchMatrix from_file(const BenchOptions& o) {
  io::InputFormat format = io::InputFormat::kAuto;
  try {
    format = io::parse_input_format(o.input_format);
  } catch (const Error&) {
    format = io::InputFormat::kText;  // refused below with fk-bench's own list
  }
  // The shared parser's list of formats has text, which is no sparse matrix: a misspelt --format
  // was told to give text, and --format text then refused.
  if (format == io::InputFormat::kText)
    throw UsageError("--format: expected auto, mtx, smtx, uci or ratings, got '" + o.input_format +
                     "'");
  if (format == io::InputFormat::kAuto) format = io::detect_format(o.input);

  BenchMatrix m;
  bool pattern_only = false;
  switch (format) {
    case io::InputFormat::kMtx:
      m.s = io::read_matrix_market(o.input);
      pattern_only = is_matrix_market_pattern(o.input);
      break;
    case io::InputFormat::kSmtx:
      m.s = io::read_smtx(o.input);
      pattern_only = true;
      break;
    case io::InputFormat::kUci:
      m.s = io::read_uci(o.input).counts;
      break;
    case io::InputFormat::kRatings:
      m.s = io::read_ratings(o.input).to_csr();
      break;
    default:
      throw UsageError("--input " + o.input + ": format '" + io::to_string(format) +
                       "' is not a sparse matrix (expected mtx, smtx, uci or ratings)");
  }
  if (pattern_only || m.s.vals.size() != m.s.col_idx.size()) randomize_values(m.s, o.seed);
  m.name = label_of_file(o.input, format);
  m.source = "file " + o.input + " (" + io::to_string(format) + (pattern_only ? ", pattern: random values" : "") + ")";
  return m;
}

BenchMatrix from_spec(const BenchOptions& o) {
  BenchMatrix m;
  gen::SparseSpec spec;
  try {  // a spec that does not parse or is out of range (e.g. more nnz than a band holds)
    spec = gen::parse_sparse_spec(o.gen);
    m.s = gen::generate_sparse(spec);
  } catch (const Error& e) {
    throw UsageError(std::string("--gen: ") + e.what());
  }
  m.name = gen::to_string(spec);
  m.source = "generated " + m.name;
  return m;
}

BenchMatrix from_preset(const BenchOptions& o) {
  const auto lda = gen::lda_preset_names();
  const auto ratings = gen::ratings_preset_names();
  BenchMatrix m;
  m.name = o.preset;
  if (std::find(lda.begin(), lda.end(), o.preset) != lda.end()) {
    gen::LdaCorpusSpec spec = gen::lda_preset(o.preset);
    m.s = gen::generate_lda_corpus(spec).counts;
    m.source = "preset " + o.preset + " (LDA corpus generator: documents x words counts)";
  } else if (std::find(ratings.begin(), ratings.end(), o.preset) != ratings.end()) {
    gen::RatingsSpec spec = gen::ratings_preset(o.preset);
    m.s = gen::generate_ratings(spec).ratings.to_csr();
    m.source = "preset " + o.preset + " (ratings generator: users x items)";
  } else {
    std::ostringstream os;
    os << "--preset: unknown name '" << o.preset << "'; known:";
    for (const auto& n : lda) os << ' ' << n;
    for (const auto& n : ratings) os << ' ' << n;
    throw UsageError(os.str());
  }
  if (m.s.vals.size() != m.s.col_idx.size()) randomize_values(m.s, o.seed);
  return m;
}

}  // namespace

BenchMatrix load_matrix(const BenchOptions& options) {
  BenchMatrix m = !options.input.empty() ? from_file(options)
                  : !options.gen.empty() ? from_spec(options)
                                         : from_preset(options);
  validate(m.s.view());
  if (options.transpose) {
    m.s = transpose(m.s.view());
    m.name += "^T";
    m.source += ", transposed";
  }
  if (!options.name.empty()) m.name = options.name;
  return m;
}

}  // namespace fk::bench
