// One minibatch E-step of the LDA backend (SDDMM → divide → SpMM loop, transposed SpMM for the
// statistics) against a direct per-document computation in double, written the way gensim's
// inference loop reads; likewise the λ update, the document-completion likelihood and the bound's
// word term. Runs for every CPU kernel variant that applies; the GPU backend is checked against
// the CPU one (skipped without a device).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_backend.hpp"
#include "apps/lda/lda_math.hpp"
#include "core/random.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "tests/test_util.hpp"

namespace fk::lda {
namespace {

constexpr int kK = 4;
constexpr std::int64_t kW = 11;
constexpr std::uint64_t kKey = 0x5eed, kStream = 5;

// 7 documents over 11 words, document 3 empty, word 10 never used; fresh random counts.
HostCsr random_docs(std::uint64_t seed) {
  Rng rng(seed);
  HostCsr d;
  d.rows = 7;
  d.cols = kW;
  for (std::int64_t i = 0; i < d.rows; ++i) {
    if (i != 3) {
      for (std::int32_t w = 0; w < 10; ++w)
        if (rng.uniform() < 0.45) {
          d.col_idx.push_back(w);
          d.vals.push_back(static_cast<float>(1 + rng.below(5)));
        }
    }
    d.row_ptr.push_back(d.nnz());
  }
  return d;
}

HostDense<float> random_lambda(std::uint64_t seed) {
  Rng rng(seed);
  HostDense<float> l(kW, kK);
  for (float& v : l.storage()) v = static_cast<float>(rng.uniform(0.3, 3.0));
  return l;
}

struct Direct {
  std::vector<double> gamma;  // docs x K
  std::vector<double> stats;  // W x K
};

std::vector<double> colsums(const HostDense<float>& lambda) {
  std::vector<double> s(kK, 0.0);
  for (std::int64_t w = 0; w < kW; ++w)
    for (int k = 0; k < kK; ++k) s[k] += lambda(w, k);
  return s;
}

std::vector<double> expect_log_dirichlet_row(const std::vector<double>& g) {
  double sum = 0;
  for (double v : g) sum += v;
  std::vector<double> e(g.size());
  for (std::size_t k = 0; k < g.size(); ++k) e[k] = std::exp(digamma(g[k]) - digamma(sum));
  return e;
}

// gensim-style inference, one document at a time, exactly `iters` γ updates.
Direct direct_estep(const HostCsr& docs, const HostDense<float>& lambda, double alpha, int iters) {
  const std::vector<double> cs = colsums(lambda);
  std::vector<double> ebeta(kW * kK);
  for (std::int64_t w = 0; w < kW; ++w)
    for (int k = 0; k < kK; ++k)
      ebeta[w * kK + k] = std::exp(digamma(lambda(w, k)) - digamma(cs[k]));
  Direct out;
  out.gamma.assign(docs.rows * kK, 0.0);
  out.stats.assign(kW * kK, 0.0);
  for (std::int64_t d = 0; d < docs.rows; ++d) {
    std::vector<double> g(kK);
    for (int k = 0; k < kK; ++k) g[k] = gamma100_draw(kKey, kStream, d, k);
    std::vector<double> et = expect_log_dirichlet_row(g);
    auto phinorm = [&](std::int64_t j) {
      double s = 0;
      for (int k = 0; k < kK; ++k) s += et[k] * ebeta[docs.col_idx[j] * kK + k];
      return s + kPhiEps;
    };
    for (int it = 0; it < iters; ++it) {
      std::vector<double> acc(kK, 0.0);
      for (std::int64_t j = docs.row_ptr[d]; j < docs.row_ptr[d + 1]; ++j) {
        const double ratio = docs.vals[j] / phinorm(j);
        for (int k = 0; k < kK; ++k) acc[k] += ratio * ebeta[docs.col_idx[j] * kK + k];
      }
      for (int k = 0; k < kK; ++k) g[k] = alpha + et[k] * acc[k];
      et = expect_log_dirichlet_row(g);
    }
    for (std::int64_t j = docs.row_ptr[d]; j < docs.row_ptr[d + 1]; ++j) {
      const double ratio = docs.vals[j] / phinorm(j);
      for (int k = 0; k < kK; ++k)
        out.stats[docs.col_idx[j] * kK + k] += et[k] * ratio * ebeta[docs.col_idx[j] * kK + k];
    }
    for (int k = 0; k < kK; ++k) out.gamma[d * kK + k] = g[k];
  }
  return out;
}

double rel_error(const float* got, const std::vector<double>& want) {
  double scale = 1e-30, err = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    err = std::max(err, std::fabs(got[i] - want[i]));
  }
  return err / scale;
}

LdaHyper hyper(const std::string& sddmm = "auto", const std::string& spmm = "auto",
               const std::string& ratio_spmm = "auto") {
  LdaHyper h;
  h.topics = kK;
  h.words = kW;
  h.alpha = 0.3;
  h.eta = 0.2;
  h.max_inner = 6;
  h.tol = 0;  // exactly max_inner updates, as the direct computation makes
  h.sddmm = sddmm;
  h.spmm = spmm;
  h.ratio_spmm = ratio_spmm;
  return h;
}

// Runs the E-step + λ update on `be` and compares everything with the direct computation.
void check_backend(LdaBackend& be, const HostCsr& docs, const HostDense<float>& lambda,
                   const std::string& what) {
  SCOPED_TRACE(what);
  be.set_lambda(lambda);
  const LocalBatch batch = make_local_batch(docs, 0, docs.rows);  // read in place: kept alive
  const int id = be.add_batch(batch, BatchRole::kTrain);
  const EStepResult r = be.e_step(id, kKey, kStream);
  EXPECT_EQ(r.inner_iters, 6);
  const Direct want = direct_estep(docs, lambda, 0.3, 6);
  const HostDense<float> gamma = be.gamma(id);
  EXPECT_LT(rel_error(gamma.data(), want.gamma), 2e-5);
  for (int k = 0; k < kK; ++k)
    EXPECT_FLOAT_EQ(gamma(3, k), 0.3f);  // the empty document keeps the prior

  // λ ← (1 − ρ) λ + ρ (η + scale · stats); stats ← 0.
  const double rho = 0.6, scale = 2.5;
  std::vector<double> want_lambda(kW * kK);
  for (std::int64_t i = 0; i < kW * kK; ++i)
    want_lambda[i] = (1 - rho) * lambda.data()[i] + rho * (0.2 + scale * want.stats[i]);
  if (!be.context().is_gpu()) {  // stats() is host memory on the CPU backend
    EXPECT_LT(rel_error(be.stats(), want.stats), 2e-5);
    for (int k = 0; k < kK; ++k)
      EXPECT_EQ(be.stats()[10 * kK + k], 0.0f);  // word 10 is in no document
  }
  be.update_lambda(rho, scale);
  EXPECT_LT(rel_error(be.lambda().data(), want_lambda), 2e-5);
  if (!be.context().is_gpu()) {
    for (std::int64_t i = 0; i < kW * kK; ++i) ASSERT_EQ(be.stats()[i], 0.0f);
  }

  // Bound word term with the stored γ and the updated λ: Σ n log Σ_k Eθ Eβ.
  HostDense<float> lam2(kW, kK);
  for (std::int64_t i = 0; i < kW * kK; ++i) lam2.data()[i] = static_cast<float>(want_lambda[i]);
  const std::vector<double> cs = colsums(lam2);
  double word_term = 0;
  for (std::int64_t d = 0; d < docs.rows; ++d) {
    std::vector<double> g(gamma.row(d), gamma.row(d) + kK);
    const std::vector<double> et = expect_log_dirichlet_row(g);
    for (std::int64_t j = docs.row_ptr[d]; j < docs.row_ptr[d + 1]; ++j) {
      double s = 0;
      for (int k = 0; k < kK; ++k)
        s += et[k] * std::exp(digamma(lam2(docs.col_idx[j], k)) - digamma(cs[k]));
      word_term += docs.vals[j] * std::log(s);
    }
  }
  EXPECT_NEAR(be.bound_word_term(id), word_term, 1e-5 * std::fabs(word_term));

  // Document completion: θ from the fit half, Σ n log Σ_k θ β on the scored half.
  HostCsr observed, scored;
  completion_halves(docs, observed, scored);
  const LocalBatch fit_batch = make_local_batch(observed, 0, observed.rows),
                   score_batch = make_local_batch(scored, 0, scored.rows);
  const int fit = be.add_batch(fit_batch, BatchRole::kFit);
  const int score = be.add_batch(score_batch, BatchRole::kScore);
  be.e_step(fit, kKey, kStream);
  const HostDense<float> gfit = be.gamma(fit);
  double ll = 0;
  for (std::int64_t d = 0; d < scored.rows; ++d) {
    double gs = 0;
    for (int k = 0; k < kK; ++k) gs += gfit(d, k);
    for (std::int64_t j = scored.row_ptr[d]; j < scored.row_ptr[d + 1]; ++j) {
      double p = 0;
      for (int k = 0; k < kK; ++k) p += gfit(d, k) / gs * lam2(scored.col_idx[j], k) / cs[k];
      ll += scored.vals[j] * std::log(p);
    }
  }
  EXPECT_NEAR(be.completion_loglik(fit, score), ll, 1e-5 * std::fabs(ll));
}

TEST(LdaEStep, CpuBackendMatchesDirectComputation) {
  const HostCsr docs = random_docs(11);
  const HostDense<float> lambda = random_lambda(12);
  auto be = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), hyper());
  check_backend(*be, docs, lambda, "auto variants");
}

// The E-step with its SDDMM, division and SpMM as separate kernels (--ratio-spmm off) and fused
// (auto's omp.ratio_spmm.rows, named), both against the direct computation; the fused kernel is
// the one the backend reports.
TEST(LdaEStep, CpuFusedAndSeparateKernels) {
  const HostCsr docs = random_docs(13);
  const HostDense<float> lambda = random_lambda(14);
  for (const char* ratio : {"off", "omp.ratio_spmm.rows"}) {
    auto be = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), hyper("auto", "auto", ratio));
    check_backend(*be, docs, lambda, std::string("--ratio-spmm ") + ratio);
    const bool fused = be->kernel_names().find("omp.ratio_spmm.rows") != std::string::npos;
    EXPECT_EQ(fused, std::string(ratio) != "off") << be->kernel_names();
  }
  // A named SpMM variant is asked for by name: auto does not fuse it away.
  auto named = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), hyper("auto", "omp.spmm.rows"));
  check_backend(*named, docs, lambda, "--spmm omp.spmm.rows");
  EXPECT_EQ(named->kernel_names().find("ratio_spmm"), std::string::npos) << named->kernel_names();
}

// Every CPU SDDMM and SpMM variant that applies gives the same E-step.
TEST(LdaEStep, EveryCpuKernelVariant) {
  const HostCsr docs = random_docs(21);
  const HostDense<float> lambda = random_lambda(22);
  int tried = 0;
  auto attempt = [&](const std::string& sddmm, const std::string& spmm) {
    try {
      auto be = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), hyper(sddmm, spmm));
      check_backend(*be, docs, lambda, "sddmm " + sddmm + ", spmm " + spmm);
      ++tried;
    } catch (const Error& e) {
      // A variant may decline a problem this small; any other failure is a real one.
      if (std::string(e.what()).find("does not apply") == std::string::npos)
        ADD_FAILURE() << e.what();
    }
  };
  for (const SddmmVariant* v : sddmm_variants())
    if (v->backend() != Backend::kCuda) attempt(v->name(), "auto");
  for (const SpmmVariant* v : spmm_variants())
    if (v->backend() != Backend::kCuda) attempt("auto", v->name());
  EXPECT_GE(tried, 2);
}

// Cutting the documents into minibatches changes neither γ nor the summed statistics.
TEST(LdaEStep, MinibatchesSumToTheWholeBatch) {
  const HostCsr docs = random_docs(31);
  const HostDense<float> lambda = random_lambda(32);
  auto whole = make_cpu_lda_backend(Context(DeviceKind::kCpu, 1), hyper());
  auto parts = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), hyper());
  whole->set_lambda(lambda);
  parts->set_lambda(lambda);
  const LocalBatch whole_batch = make_local_batch(docs, 0, 7);
  const std::vector<LocalBatch> part_batches = make_batches(docs, 3);
  const int w = whole->add_batch(whole_batch, BatchRole::kTrain);
  whole->e_step(w, kKey, kStream);
  HostDense<float> g(7, kK);
  std::int64_t row = 0;
  for (const LocalBatch& b : part_batches) {
    const int id = parts->add_batch(b, BatchRole::kTrain);
    parts->e_step(id, kKey, kStream);
    const HostDense<float> gb = parts->gamma(id);
    std::copy(gb.data(), gb.data() + gb.size(), g.row(row));
    row += gb.rows();
  }
  const HostDense<float> gw = whole->gamma(w);
  EXPECT_LT(test::max_rel_error(g.storage(), gw.storage()), 1e-6);
  const std::vector<float> sw(whole->stats(), whole->stats() + kW * kK),
      sp(parts->stats(), parts->stats() + kW * kK);
  EXPECT_LT(test::max_rel_error(sp, sw), 1e-6);
}

TEST(LdaEStep, GpuBackendMatchesDirectComputation) {
  FK_REQUIRE_GPU();
  const HostCsr docs = random_docs(41);
  const HostDense<float> lambda = random_lambda(42);
  // auto's choice on this small problem is the GPU rule's business (kernels/select.cpp); the
  // fused kernel is named to be sure it runs, and auto must agree with the direct computation too.
  for (const char* ratio : {"cuda.ratio_spmm.fused", "auto", "off"}) {
    auto be = make_gpu_lda_backend(Context(DeviceKind::kGpu), hyper("auto", "auto", ratio));
    check_backend(*be, docs, lambda, std::string("GPU, --ratio-spmm ") + ratio);
    const bool fused = be->kernel_names().find("cuda.ratio_spmm.fused") != std::string::npos;
    if (std::string(ratio) != "auto") {
      EXPECT_EQ(fused, std::string(ratio) != "off") << be->kernel_names();
    }
  }
}

// 300 documents over 500 words, word w in a document with probability p(w), counts 1-4: larger
// than a warp in every direction, for the tests below.
HostCsr docs_300x500(Rng& rng, const std::function<double(std::int32_t)>& p) {
  HostCsr docs;
  docs.rows = 300;
  docs.cols = 500;
  for (std::int64_t d = 0; d < docs.rows; ++d) {
    for (std::int32_t w = 0; w < 500; ++w)
      if (rng.uniform() < p(w)) {
        docs.col_idx.push_back(w);
        docs.vals.push_back(static_cast<float>(1 + rng.below(4)));
      }
    docs.row_ptr.push_back(docs.nnz());
  }
  return docs;
}

LdaHyper hyper_k70(int max_inner) {
  LdaHyper h;
  h.topics = 70;
  h.words = 500;
  h.alpha = 1.0 / 70;
  h.eta = 1.0 / 70;
  h.max_inner = max_inner;
  h.tol = 0;
  return h;
}

HostDense<float> lambda_500x70(Rng& rng) {
  HostDense<float> lambda(500, 70);
  for (float& v : lambda.storage()) v = static_cast<float>(rng.uniform(0.5, 2.0));
  return lambda;
}

// The last E-step's statistics are held back by the engine: update_lambda adds them to λ directly
// (on the GPU in the λ pass itself, lda_gpu.cu), unless something asked for stats() or reused the
// E-step's buffers first, when they go through the W x K buffer. Both ways must give the same λ,
// bit for bit: 300 documents over 500 words (λ rows in several of the update's blocks, minibatches
// with different word sets), K = 70, one backend asking for stats() after every E-step and the
// other only evaluating after the second one.
void check_held_back_statistics(const std::function<std::unique_ptr<LdaBackend>(const LdaHyper&)>& make) {
  Rng rng(71);
  // Every seventh word rare, so that it is in few minibatches.
  const HostCsr docs = docs_300x500(rng, [](std::int32_t w) { return w % 7 == 0 ? 0.002 : 0.05; });
  const LdaHyper h = hyper_k70(4);
  const HostDense<float> lambda = lambda_500x70(rng);
  const std::vector<LocalBatch> batches = make_batches(docs, 64);  // the backends read them
  std::unique_ptr<LdaBackend> direct = make(h), buffered = make(h);
  std::vector<int> ids;
  for (LdaBackend* be : {direct.get(), buffered.get()}) {
    be->set_lambda(lambda);
    ids.clear();
    for (const LocalBatch& b : batches) ids.push_back(be->add_batch(b, BatchRole::kTrain));
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double rho = 0.9 - 0.1 * static_cast<double>(i), scale = 300.0 / 64;
    direct->e_step(ids[i], kKey, i);
    buffered->e_step(ids[i], kKey, i);
    buffered->stats();
    if (i == 1) direct->bound_word_term(ids[0]);  // reuses E[β]'s buffer before the update
    direct->update_lambda(rho, scale);
    buffered->update_lambda(rho, scale);
    ASSERT_EQ(direct->lambda().storage(), buffered->lambda().storage()) << "after minibatch " << i;
  }
  EXPECT_EQ(direct->gamma(ids.back()).storage(), buffered->gamma(ids.back()).storage());
  // A minibatch of empty documents (no words at all) held back: λ only decays.
  HostCsr empty;
  empty.rows = 3;
  empty.cols = 500;
  empty.row_ptr.assign(4, 0);
  const LocalBatch empty_batch = make_local_batch(empty, 0, 3);
  for (LdaBackend* be : {direct.get(), buffered.get()}) {
    const int id = be->add_batch(empty_batch, BatchRole::kTrain);
    be->e_step(id, kKey, 9);
    if (be == buffered.get()) be->stats();
    be->update_lambda(0.5, 1.0);
  }
  EXPECT_EQ(direct->lambda().storage(), buffered->lambda().storage());
}

TEST(LdaEStep, HeldBackStatisticsGiveTheSameLambdaOnTheCpu) {
  check_held_back_statistics(
      [](const LdaHyper& h) { return make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), h); });
}

TEST(LdaEStep, HeldBackStatisticsGiveTheSameLambdaOnTheGpu) {
  FK_REQUIRE_GPU();
  check_held_back_statistics(
      [](const LdaHyper& h) { return make_gpu_lda_backend(Context(DeviceKind::kGpu), h); });
}

// Larger than a warp in every direction (K = 70 topics, 300 documents, 500 words, several
// minibatches): the GPU backend's γ, statistics, λ and likelihoods against the CPU backend's.
TEST(LdaEStep, GpuAgreesWithCpuOnLargerProblem) {
  FK_REQUIRE_GPU();
  Rng rng(51);
  const HostCsr docs = docs_300x500(rng, [](std::int32_t) { return 0.08; });
  const LdaHyper h = hyper_k70(8);
  const HostDense<float> lambda = lambda_500x70(rng);
  HostCsr observed, scored;
  completion_halves(docs, observed, scored);
  // The CPU backend reads the minibatches in place: they outlive it.
  const std::vector<LocalBatch> batches = make_batches(docs, 128);
  const LocalBatch fit_batch = make_local_batch(observed, 0, 300),
                   score_batch = make_local_batch(scored, 0, 300);
  auto cpu = make_cpu_lda_backend(Context(DeviceKind::kCpu, 2), h);
  auto gpu = make_gpu_lda_backend(Context(DeviceKind::kGpu), h);
  double ll[2] = {0, 0}, bound[2] = {0, 0};
  HostDense<float> gammas[2], lambdas[2];
  LdaBackend* bes[2] = {cpu.get(), gpu.get()};
  for (int i = 0; i < 2; ++i) {
    LdaBackend& be = *bes[i];
    be.set_lambda(lambda);
    std::vector<int> ids;
    for (const LocalBatch& b : batches) ids.push_back(be.add_batch(b, BatchRole::kTrain));
    for (int id : ids) {
      be.e_step(id, kKey, kStream);
      be.update_lambda(0.7, 300.0 / 128);
    }
    gammas[i] = be.gamma(ids.back());
    lambdas[i] = be.lambda();
    for (int id : ids) bound[i] += be.bound_word_term(id);
    const int fit = be.add_batch(fit_batch, BatchRole::kFit);
    const int score = be.add_batch(score_batch, BatchRole::kScore);
    be.e_step(fit, kKey, 0);
    ll[i] = be.completion_loglik(fit, score);
  }
  EXPECT_LT(test::max_rel_error(gammas[1].storage(), gammas[0].storage()), 1e-4);
  EXPECT_LT(test::max_rel_error(lambdas[1].storage(), lambdas[0].storage()), 1e-4);
  EXPECT_NEAR(ll[1], ll[0], 1e-5 * std::fabs(ll[0]));
  EXPECT_NEAR(bound[1], bound[0], 1e-5 * std::fabs(bound[0]));
}

}  // namespace
}  // namespace fk::lda
