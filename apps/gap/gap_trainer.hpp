#pragma once
// Training, evaluation, checkpoints and output of fk-gap on top of a GapBackend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "apps/common/reduce.hpp"
#include "apps/gap/gap_backend.hpp"
#include "apps/gap/gap_data.hpp"
#include "apps/gap/gap_options.hpp"
#include "apps/lda/coherence.hpp"

namespace fk::gap {

struct IterReport {
  int iter = 0;
  double seconds = 0;                // wall time of the iteration (evaluation excluded)
  double eval_seconds = 0;           // metrics of this iteration
  double gflops = 0;                 // SDDMM + SpMM flops of the iteration / seconds
  bool evaluated = false;            // the metrics below were computed (--eval-every)
  double objective = 0;              // MAP objective J (gap_backend.hpp), the whole sum
  double train_ll = 0;               // Poisson log-likelihood per training token
  std::optional<double> heldout_ll;  // per held-out (thinning) or scored (--test) token
};

struct TrainResult {
  std::string device;              // Context::describe()
  std::vector<IterReport> iters;   // the iterations this invocation ran (after a resume: the rest)
  std::optional<IterReport> last;  // metrics of the final model
  HostDense<float> lambda, x;      // W x K (columns sum to 1), D x K
  std::string kernels;
  double prepare_seconds = 0;
  // Of each factor's --top-words most probable words (as in fk-lda) over the training counts'
  // documents (none when --top-words is below 2).
  std::optional<lda::TopicCoherence> coherence;
};

// Trains on ctx's device and writes every output into `out_dir` (created when missing):
// config.ini/json, metrics.jsonl, summary.json, lambda.npy (W x K), x.npy (D x K),
// top_words.txt, coherence.csv, vocab.txt (when known) and, with --checkpoint-every, checkpoint/.
TrainResult train_gap(const GapOptions& opt, const app::CommonOptions& common, const GapData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config,
                      app::StatsReducer* reducer = nullptr);

// The seeded initial model: λ_wk ∝ (c_w + 1)(0.5 + u_wk) with columns normalized, and
// x_dk = max(len_d, 1)/K · (0.5 + u_dk) (c_w, len_d training counts, u uniform in [0, 1), one
// stream per row). Independent of the thread count.
void initial_model(const GapData& data, int factors, std::uint64_t seed, HostDense<float>& lambda,
                   HostDense<float>& x);

// The MAP objective from the backend's sums: Σ f log r − Σ r − Σ log f! + prior − D K (a log b +
// log Γ(a)).
double map_objective(const ModelSums& s, const GapData& data, double a, double b, int factors);

}  // namespace fk::gap
