#include "apps/bench/options.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "apps/common/po_error_text.hpp"
#include "core/context.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"

namespace po = boost::program_options;

namespace fk::bench {

const char* to_string(BenchOp op) {
  switch (op) {
    case BenchOp::kSddmm:
      return "sddmm";
    case BenchOp::kSpmm:
      return "spmm";
    case BenchOp::kRatioSpmm:
      return "ratio-spmm";
  }
  return "?";
}

std::string ratio_form_label(RatioForm form, Op op) {
  const char* name = form == RatioForm::kProduct    ? "product"
                     : form == RatioForm::kResidual ? "residual"
                                                    : "fused";
  return std::string(name) + (op == Op::kTrans ? "-t" : "");
}

namespace {

constexpr unsigned kHelpWidth = 100;

// The visible options, in three groups (also what --help prints).
void add_option_groups(po::options_description& out) {
  auto listed = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
    return text;
  };
  const std::string preset_help = "a generator preset: an LDA corpus (documents x words counts: " +
                                  listed(gen::lda_preset_names()) + ") or ratings (users x items: " +
                                  listed(gen::ratings_preset_names()) + ")";
  po::options_description source("Matrix (exactly one)", kHelpWidth, kHelpWidth / 2);
  source.add_options()
      ("input", po::value<std::string>()->value_name("FILE"),
       "Matrix Market .mtx, DLMC .smtx, UCI docword.X.txt[.gz] or a ratings file; a pattern-only "
       "matrix gets random values in [0.5, 1.5)")
      ("format", po::value<std::string>()->value_name("NAME"), "format of --input: auto (default), mtx, smtx, uci, ratings")
      ("gen", po::value<std::string>()->value_name("SPEC"),
       "generated matrix 'KIND:rows=R,cols=C,nnz=Z[,param=P][,seed=S]', KIND one of uniform, "
       "powerlaw, banded, clustered, vector (blocks of P = 2, 4 or 8 rows sharing their columns: "
       "the tensor-core variants' V x 1 structure; fk-datagen sparse --help has the details)")
      ("preset", po::value<std::string>()->value_name("NAME"), preset_help.c_str())
      ("name", po::value<std::string>()->value_name("LABEL"), "label of the matrix in the table and the CSV (default: from the source)")
      ("transpose", "use the transpose of the matrix given (its label gains '^T'): the other side an "
       "app solves on its own CSR, e.g. fk-als's items x users ratings");

  po::options_description run("Run", kHelpWidth, kHelpWidth / 2);
  run.add_options()
      ("k", po::value<std::string>()->value_name("K,K,.."),
       "comma-separated dense widths K (default sddmm and ratio-spmm 32,64,128,256,512; spmm "
       "1,4,32,64,128,256,512)")
      ("device", po::value<std::string>()->value_name("DEV"), "cpu, gpu or auto (default auto: the GPU when one is usable)")
      ("threads", po::value<int>()->value_name("N"),
       "OpenMP threads on the CPU (default 0: OpenMP's default, usually all cores)")
      ("gpu", po::value<int>()->value_name("ID"), "GPU id (default 0)")
      ("variants", po::value<std::string>()->value_name("V,V,.."),
       "comma-separated variant names and/or 'auto' (default: every variant of the device that applies, "
       "plus auto; ref.* is left out when nnz*K > 2e8 unless named). The baseline variant is always "
       "timed when it exists, for the speedup column")
      ("form", po::value<std::string>()->value_name("FORM"),
       "sddmm: scaled (default; out = S .* (A B^T)), unscaled, or both; ratio-spmm: ratio (default; "
       "C = (S ./ (A B^T + eps)) B), product (C = (S .* (A B^T)) B, the CG products of fk-als and "
       "fk-sfa), residual (C = (S - A B^T at S's nonzeros) B, their CG solves' first residuals), "
       "or all; the table and the CSV's form column call them fused, product and residual, with "
       "'-t' for --op t")
      ("op", po::value<std::string>()->value_name("OP"), "spmm and ratio-spmm: n (default; C = S B, or the ratio SpMM over S), t (C = S^T B, or the ratio SpMM over S^T), or both")
      ("warmup", po::value<int>()->value_name("N"), "untimed runs per variant after the check run (default 3)")
      ("runs", po::value<int>()->value_name("N"), "timed runs per variant; the median is reported (default 20)")
      ("no-flush", "do not evict caches before each timed run (default: flush; see below)")
      ("seed", po::value<std::int64_t>()->value_name("N"), "seed of the dense operands and of random values (default 1)")
      ("precision", po::value<std::string>()->value_name("P"),
       "fp32 (default), fp16 or bf16: the lowest operand precision accepted. fp16/bf16 add the tensor-core "
       "variants (cuda.*.tc_v*, which round the operands and accumulate in fp32) and let auto pick them on "
       "V x 1 structured matrices")
      ("tolerance", po::value<double>()->value_name("X"),
       "max_rel_err above which a row is marked 'wrong' (default 1e-4; on the GPU 2e-3 with "
       "--precision fp16, 1e-2 with bf16)")
      ("check-nnz", po::value<std::int64_t>()->value_name("N"),
       "nonzeros' worth of rows checked against the reference (default 200000; all rows when nnz is smaller "
       "and rows x K is at most 4e6, the cap on the reference's copy of rows)")
      ("csv", po::value<std::string>()->value_name("FILE"),
       "write one row per (matrix, K, form, variant); appended when FILE exists with the same header");

  po::options_description info("Information", kHelpWidth, kHelpWidth / 2);
  info.add_options()
      ("list", "print every registered variant with its backend and summary, then exit")
      ("explain-auto",
       "print the variant 'auto' chooses for each K (and form or op) on --device (gpu when auto; cpu in a CPU-only build), with the "
       "matrix features its rules read, then exit: nothing is prepared or run, so no GPU is needed (and "
       "--warmup, --runs, --no-flush, --tolerance, --check-nnz, --seed, --threads and --gpu are "
       "refused). With --csv, one row per choice (op, form, matrix, m, n, nnz, k, device, rows, row_mean, row_cv, row_max, "
       "col_span, neighbour_share, auto_pick)")
      ("help,h", "print this help, then exit")
      ("version", "print the commit this program was built from, then exit");

  out.add(source).add(run).add(info);
}

// The items of option `option`'s comma-separated list; an empty one ("4,,8", a trailing comma) is
// a usage error rather than skipped, as it is more likely a typo than meant.
std::vector<std::string> split_commas(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty())
      throw UsageError(option + ": empty item in '" + text + "' (expected a comma-separated list)");
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<int> parse_widths(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : split_commas(text, "--k")) {
    std::size_t used = 0;
    long value = -1;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    const bool digits = !item.empty() && std::isdigit(static_cast<unsigned char>(item[0]));
    if (used != item.size() || value < 1 || value > (1 << 20) || !digits)
      throw UsageError("--k: '" + item + "' is not a width between 1 and 1048576");
    if (std::find(out.begin(), out.end(), static_cast<int>(value)) != out.end())
      throw UsageError("--k: " + std::to_string(value) + " is given twice");
    out.push_back(static_cast<int>(value));
  }
  if (out.empty()) throw UsageError("--k: expected a comma-separated list of widths, got '" + text + "'");
  return out;
}

}  // namespace

double default_tolerance(Precision precision, DeviceKind device) {
  if (device == DeviceKind::kGpu && precision == Precision::kF16) return 2e-3;
  if (device == DeviceKind::kGpu && precision == Precision::kBF16) return 1e-2;
  return 1e-4;  // fp32, and every CPU row (the CPU has no reduced-precision variants)
}

BenchOptions parse_options(int argc, const char* const argv[]) {
  po::options_description desc;
  add_option_groups(desc);
  desc.add_options()("command", po::value<std::string>(), "sddmm, spmm or ratio-spmm");  // positional, hidden
  po::positional_options_description positional;
  positional.add("command", 1);
  po::variables_map vm;
  try {
    // No abbreviations, as in the apps: "--run 2" must not silently mean "--runs 2".
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(
        po::command_line_parser(argc, argv).options(desc).positional(positional).style(style).run(),
        vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fk::app::po_error_text(e));
  }

  BenchOptions o;
  o.help = vm.count("help") > 0;
  o.version = vm.count("version") > 0;
  o.list = vm.count("list") > 0;
  if (o.help || o.version || o.list) return o;

  if (!vm.count("command")) throw UsageError("missing command: 'sddmm', 'spmm' or 'ratio-spmm'");
  const std::string command = vm["command"].as<std::string>();
  if (command == "sddmm") {
    o.op = BenchOp::kSddmm;
  } else if (command == "spmm") {
    o.op = BenchOp::kSpmm;
  } else if (command == "ratio-spmm") {
    o.op = BenchOp::kRatioSpmm;
  } else {
    throw UsageError("unknown command '" + command + "': expected 'sddmm', 'spmm' or 'ratio-spmm'");
  }

  const int sources = int(vm.count("input")) + int(vm.count("gen")) + int(vm.count("preset"));
  if (sources != 1) throw UsageError("give exactly one of --input, --gen, --preset (got " + std::to_string(sources) + ")");
  // An empty value would read as "not given" below and be blamed on another option.
  for (const char* option : {"input", "gen", "preset", "csv"})
    if (vm.count(option) && vm[option].as<std::string>().empty())
      throw UsageError(std::string("--") + option + ": empty value");
  if (vm.count("input")) o.input = vm["input"].as<std::string>();
  if (vm.count("gen")) o.gen = vm["gen"].as<std::string>();
  if (vm.count("preset")) o.preset = vm["preset"].as<std::string>();
  if (vm.count("format")) {
    if (o.input.empty()) throw UsageError("--format applies only to --input");
    o.input_format = vm["format"].as<std::string>();
  }
  if (vm.count("name")) {
    o.name = vm["name"].as<std::string>();
    if (o.name.empty())
      throw UsageError("--name: an empty label (leave the option out for the default)");
  }
  o.transpose = vm.count("transpose") > 0;

  o.ks = parse_widths(vm.count("k") ? vm["k"].as<std::string>()
                                    : (o.op == BenchOp::kSpmm ? "1,4,32,64,128,256,512" : "32,64,128,256,512"));
  if (vm.count("device")) {
    o.device = vm["device"].as<std::string>();
    try {
      parse_device_request(o.device);  // checked here, for --explain-auto too
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
  if (vm.count("threads")) {
    o.threads = vm["threads"].as<int>();
    if (o.threads < 0 || o.threads > Context::kMaxThreads)  // 0: OpenMP's default
      throw UsageError("--threads: must be between 0 and " + std::to_string(Context::kMaxThreads) +
                       ", got " + std::to_string(o.threads));
  }
  if (vm.count("gpu")) {
    o.gpu = vm["gpu"].as<int>();
    o.gpu_given = true;
    if (o.gpu < 0) throw UsageError("--gpu: must be a device id >= 0, got " + std::to_string(o.gpu));
  }
  if (vm.count("variants")) {
    o.variants = split_commas(vm["variants"].as<std::string>(), "--variants");
    if (o.variants.empty()) throw UsageError("--variants: expected a comma-separated list of names");
  }

  if (vm.count("form") && o.op == BenchOp::kSpmm)
    throw UsageError("--form applies only to 'sddmm' and 'ratio-spmm', not to 'spmm'");
  if (vm.count("op") && o.op == BenchOp::kSddmm)
    throw UsageError("--op applies only to 'spmm' and 'ratio-spmm', not to 'sddmm'");
  const bool ratio_op = o.op == BenchOp::kRatioSpmm;
  const std::string form =
      vm.count("form") ? vm["form"].as<std::string>() : ratio_op ? "ratio" : "scaled";
  if (ratio_op) {
    if (form == "ratio") {
      o.ratio_forms = {RatioForm::kRatio};
    } else if (form == "product") {
      o.ratio_forms = {RatioForm::kProduct};
    } else if (form == "residual") {
      o.ratio_forms = {RatioForm::kResidual};
    } else if (form == "all") {
      o.ratio_forms = {RatioForm::kRatio, RatioForm::kProduct, RatioForm::kResidual};
    } else {
      throw UsageError("--form: expected ratio, product, residual or all, got '" + form + "'");
    }
  } else if (form == "scaled") {
    o.sddmm_scaled = {true};
  } else if (form == "unscaled") {
    o.sddmm_scaled = {false};
  } else if (form == "both") {
    o.sddmm_scaled = {true, false};
  } else {
    throw UsageError("--form: expected scaled, unscaled or both, got '" + form + "'");
  }
  const std::string op = vm.count("op") ? vm["op"].as<std::string>() : "n";
  if (op == "n") {
    o.spmm_ops = {Op::kNoTrans};
  } else if (op == "t") {
    o.spmm_ops = {Op::kTrans};
  } else if (op == "both") {
    o.spmm_ops = {Op::kNoTrans, Op::kTrans};
  } else {
    throw UsageError("--op: expected n, t or both, got '" + op + "'");
  }

  if (vm.count("warmup")) o.warmup = vm["warmup"].as<int>();
  if (o.warmup < 0) throw UsageError("--warmup: must be at least 0, got " + std::to_string(o.warmup));
  if (vm.count("runs")) o.runs = vm["runs"].as<int>();
  if (o.runs < 1) throw UsageError("--runs: must be at least 1, got " + std::to_string(o.runs));
  o.flush = vm.count("no-flush") == 0;
  if (vm.count("seed")) {  // read signed: Boost reads "-1" into an unsigned value as 2^64 - 1
    const std::int64_t seed = vm["seed"].as<std::int64_t>();
    if (seed < 0) throw UsageError("--seed: must be at least 0, got " + std::to_string(seed));
    o.seed = static_cast<std::uint64_t>(seed);
  }
  if (vm.count("precision")) {
    try {
      o.precision = parse_precision(vm["precision"].as<std::string>());
    } catch (const Error& e) {
      throw UsageError(std::string("--precision: ") + e.what());
    }
  }
  // Half precision rounds each input to 11 (fp16) or 8 (bf16) significant bits: products err by up
  // to ~2^-10 or ~2^-8 of sum |terms|.
  o.tolerance_given = vm.count("tolerance") > 0;
  if (o.tolerance_given) o.tolerance = vm["tolerance"].as<double>();
  if (!(o.tolerance > 0) || !std::isfinite(o.tolerance))
    throw UsageError("--tolerance: must be positive and finite");
  if (vm.count("check-nnz")) o.check_nnz = vm["check-nnz"].as<std::int64_t>();
  if (o.check_nnz < 1) throw UsageError("--check-nnz: must be at least 1, got " + std::to_string(o.check_nnz));
  if (vm.count("csv")) o.csv = vm["csv"].as<std::string>();
  o.explain_auto = vm.count("explain-auto") > 0;
  if (o.explain_auto && vm.count("variants")) throw UsageError("--explain-auto explains 'auto' only; drop --variants");
  // It prepares and times nothing, and its rules read neither the operands' values nor the thread
  // count: these went unused without a word, as if the picks depended on them.
  if (o.explain_auto)
    for (const char* option :
         {"warmup", "runs", "no-flush", "tolerance", "check-nnz", "seed", "threads", "gpu"})
      if (vm.count(option))
        throw UsageError(std::string("--") + option +
                         " applies to a timed run; --explain-auto runs nothing (drop one of them)");
  return o;
}

std::string help_text() {
  std::ostringstream os;
  os << "fk-bench: time every SDDMM, SpMM or ratio SpMM variant on one problem, check each against the\n"
        "reference.\n"
        "\n"
        "usage: fk-bench sddmm|spmm|ratio-spmm (--input FILE | --gen SPEC | --preset NAME) [options]\n"
        "       fk-bench --list\n"
        "\n"
        "examples:\n"
        "  fk-bench sddmm --preset nips --k 32,128 --device gpu --csv results.csv\n"
        "  fk-bench spmm --gen powerlaw:rows=100000,cols=50000,nnz=2000000 --op both --k 1,64\n"
        "  fk-bench spmm --input ../shared/data/suitesparse/hep-th.mtx --device cpu --threads 2\n"
        "  fk-bench ratio-spmm --preset nips --k 64,256\n"
        "\n"
        "ratio-spmm: C = (S ./ (A B^T + eps)) B over S's nonzeros (kernels/ratio_spmm.hpp), with A and B\n"
        "uniform in [0.5, 1.5) and eps = 1e-30; its baseline 'pair' runs auto's SDDMM, a division pass\n"
        "and auto's SpMM, the unfused way.\n";
  po::options_description shown(kHelpWidth, kHelpWidth / 2);
  add_option_groups(shown);
  os << "\n" << shown;
  os << "\n"
        "what happens, per (K, form or op):\n"
        "  For each variant: prepare the plan once (prep_ms, reported apart), poison the output with NaN,\n"
        "  run once and check it, run --warmup times, then time --runs runs and report the median.\n"
        "  The baseline and auto are prepared side by side and timed in turn, run by run, so that\n"
        "  their ratio compares medians taken over the same stretch of time.\n"
        "  GPU runs are timed with CUDA events on the context's stream; CPU runs with the steady clock.\n"
        "  Before every timed run the caches are flushed (not timed): on the GPU by writing a buffer of\n"
        "  2x the L2 size (from the device attributes); on the CPU by writing 2x the last-level cache\n"
        "  (at most 512 MiB), skipped when the problem's compulsory bytes exceed that buffer anyway.\n"
        "\n"
        "columns:\n"
        "  GFLOP/s    2*nnz*K / median time (SDDMM and SpMM alike; 4*nnz*K for ratio-spmm)\n"
        "  GB/s       compulsory bytes / median time, where compulsory bytes are\n"
        "               SDDMM: 12*nnz (8*nnz unscaled: no scale values read) + 4*K*(non-empty\n"
        "                      rows + non-empty columns): the rows of A and B some nonzero reads\n"
        "               SpMM:  8*nnz + 4*K*(non-empty columns of op(S) + rows of op(S))\n"
        "               ratio-spmm: 8*nnz + 4*K*(non-empty columns + non-empty rows + rows)\n"
        "                      (B and A read where nonzeros are, every row of C written)\n"
        "  floor_ms   max(compulsory bytes / measured bandwidth, flops / peak fp32): no variant can run\n"
        "             much faster. Bandwidth is measured once per process: on the GPU a large device-to-\n"
        "             device cudaMemcpy (read + write bytes, median of 10); on the CPU a STREAM-like triad.\n"
        "             Peak fp32 is computed, not measured: GPU = SMs x clock x fp32 lanes per SM (128 on\n"
        "             sm_86 and later, 64 on sm_70/sm_80) x 2; CPU = threads (at most the logical\n"
        "             CPUs) x clock x 32 flop/cycle\n"
        "             (an assumption: AVX2, 2 FMA units x 8 fp32 lanes x 2 flops), or bandwidth only\n"
        "             when the clock cannot be read. It assumes data from memory: with\n"
        "             --no-flush a run may beat it (x_floor < 1) on what the caches kept.\n"
        "  x_floor    median / floor_ms (1.0 = at the floor)\n"
        "  speedup    baseline median / variant median; baseline = cuda.<op>.cusparse on the GPU\n"
        "             (for scaled SDDMM that is cuSPARSE plus its scale pass), omp.<op>.rows on the CPU;\n"
        "             for ratio-spmm 'pair' (auto's SDDMM, a division, auto's SpMM) on either device\n"
        "  max_rel_err  over the checked outputs, max |out - ref| / sum_t |term_t|, the sum of the\n"
        "             absolute products that make up that output (the scale of float32 rounding in a\n"
        "             dot product); ref = ref.sddmm / ref.spmm / ref.ratio_spmm in double on the CPU over a\n"
        "             deterministic sample of rows (all rows when nnz <= --check-nnz and rows x K <= 4e6:\n"
        "             the sample keeps the reference's copy of rows to 4e6 values whatever --check-nnz\n"
        "             says). NaN (unwritten)\n"
        "             counts as inf.\n"
        "  auto       its own row: the variant `auto` picks, with its own plan; the summary line compares it\n"
        "             with the fastest variant.\n"
        "  CSV only   chosen (auto's pick), min_ms and max_ms (the spread of the timed runs), runs, bound\n"
        "             (memory or compute), baseline, checked_rows, status (ok, wrong: above --tolerance,\n"
        "             failed: threw; speedup is empty unless the baseline row is ok), message, seed, and\n"
        "             how the row was measured: precision, flush_bytes (0: no flush), warmup, tolerance,\n"
        "             bandwidth_gbs (the bandwidth floor_ms assumes, measured by this run: floors of\n"
        "             separate runs differ with it), build (the commit fk-bench was built from).\n"
        "\n"
        "exit status: 0 all rows ok; 1 a variant failed or exceeded --tolerance, or a run-time error;\n"
        "             2 a bad command line.\n";
  return os.str();
}

}  // namespace fk::bench
