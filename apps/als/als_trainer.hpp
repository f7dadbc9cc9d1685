#pragma once
// Training, evaluation, checkpoints and output of fk-als on top of an AlsBackend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/als/als_backend.hpp"
#include "apps/als/als_data.hpp"
#include "apps/als/als_options.hpp"
#include "apps/common/options.hpp"

namespace fk::als {

struct IterReport {
  int iter = 0;
  double seconds = 0;       // wall time of the two half-steps (evaluation excluded)
  double eval_seconds = 0;  // metrics of this iteration
  double gflops = 0;        // SDDMM + SpMM flops of the half-steps / seconds
  double objective = 0;     // training objective J (see als_backend.hpp)
  std::optional<double> train_rmse, test_rmse, test_mae;      // explicit
  std::optional<double> precision_at_k, map_at_k, ndcg_at_k;  // implicit with a test set
};

struct TrainResult {
  std::string device;              // Context::describe()
  std::vector<IterReport> iters;   // the iterations this invocation ran (after a resume: the rest)
  std::optional<IterReport> last;  // metrics of the final model (--iters 0: the initial one)
  HostDense<float> users, items;   // augmented factors (users x K, items x K), host
  std::string kernels;
  double prepare_seconds = 0;
  std::int64_t ranking_users = 0;  // test users the ranking metrics averaged over (implicit)
};

// Ranking quality of factors on held-out interactions: for every evaluated user, items rated in
// training are excluded, the rest ranked by x_u·y_i (ties: lower index first), and the top k
// compared with the user's test items (binary relevance). precision@k = hits / k; AP@k = Σ over
// hit positions i of precision@i, divided by min(k, |test items|); NDCG@k = DCG / ideal DCG with
// gain 1 / log2(position + 1). Averages over `users`.
struct RankingMetrics {
  double precision = 0, map = 0, ndcg = 0;
  std::int64_t users = 0;
};
RankingMetrics ranking_metrics(const HostDense<float>& user_factors,
                               const HostDense<float>& item_factors, const HostCsr& train,
                               const HostCsr& test, const std::vector<std::int64_t>& users, int k);

// Trains on ctx's device and writes every output into `out_dir` (created when missing):
// config.ini/json, metrics.jsonl, summary.json, the model files (als_model.hpp) and, with
// --checkpoint-every, checkpoint/.
TrainResult train_als(const AlsOptions& opt, const app::CommonOptions& common, const AlsData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config);

// The seeded initial factors: users zero; items with training ratings N(0, init_scale²) in the
// factor columns (bias column 0); items without ratings zero. Independent of the thread count.
void initial_factors(const AlsData& data, int factors, bool biases, double init_scale,
                     std::uint64_t seed, HostDense<float>& users, HostDense<float>& items);

}  // namespace fk::als
