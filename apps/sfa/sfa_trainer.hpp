#pragma once
// Training, evaluation, checkpoints and output of fk-sfa on top of an SfaBackend. The data (ids,
// split, matrices) is fk-als's AlsData; the saved model is fk-als's format (als_model.hpp) with
// the item means as item biases and zero user biases, so that `recommend` and `similar` work on it
// unchanged.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/als/als_data.hpp"
#include "apps/common/options.hpp"
#include "apps/sfa/sfa_backend.hpp"
#include "apps/sfa/sfa_options.hpp"

namespace fk::sfa {

struct PassReport {
  int iter = 0;
  double seconds = 0;       // wall time of the E-step and the M-step (evaluation excluded)
  double eval_seconds = 0;  // metrics of this pass
  double gflops = 0;        // SDDMM + SpMM flops of the pass / seconds
  double objective = 0;     // J (sfa_backend.hpp)
  double train_rmse = 0;
  std::optional<double> test_rmse, test_mae;
};

struct TrainResult {
  std::string device;              // Context::describe()
  std::vector<PassReport> iters;   // the passes this invocation ran (after a resume: the rest)
  std::optional<PassReport> last;  // metrics of the final model (--iters 0: the initial one)
  HostDense<float> users, items;   // X (users x F), Λ (items x F), host
  std::vector<float> item_means;   // m_i
  std::string kernels;
  double prepare_seconds = 0;
};

// m_i = Σ_(u,i) (r_ui − μ) / (n_i + prior): the item means that centre the ratings, shrunk
// towards μ (0 for items without training ratings).
std::vector<float> item_means(const als::AlsData& data, double prior);

// The data options of fk-sfa in fk-als's terms (the split), for als::prepare_als_data.
als::AlsOptions data_options(const SfaOptions& opt);

// Trains on ctx's device and writes every output into `out_dir` (created when missing):
// config.ini/json, metrics.jsonl, summary.json, the model files (als_model.hpp) plus
// item_means.npy, and with --checkpoint-every, checkpoint/.
TrainResult train_sfa(const SfaOptions& opt, const app::CommonOptions& common,
                      const als::AlsData& data, Context ctx, const std::string& out_dir,
                      const app::ResolvedConfig& config);

}  // namespace fk::sfa
