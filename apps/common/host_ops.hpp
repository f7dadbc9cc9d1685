#pragma once
// What every app's CpuOps shares: memory as 64-byte aligned vectors on the host
// (core/aligned_vector.hpp), CSR matrices as HostCsr, and sums with a fixed summation order. An
// app's CpuOps derives from HostOps and adds its own math; its engine (a template over the Ops)
// then sees the same alloc/upload/download/make_csr/view/fill on the CPU as on the GPU
// (apps/common/device_ops.cuh).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/aligned_vector.hpp"
#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/error.hpp"

namespace fk::app {

class HostOps {
 public:
  template <class T>
  using Buffer = AlignedVector<T>;

  // A sparse matrix as an engine holds it. The host reads the caller's matrix in place: a copy
  // doubled the input in memory (fk-als held R and Rᵀ twice: 8 bytes a rating each), so a matrix
  // given by reference must outlive the engine, as the apps' data does (built once, for both
  // runs of --compare). A matrix given as an rvalue (one the engine built) is kept here, and so
  // are values of the engine's own on a caller's pattern (fk-sfa's centred ratings). Move-only:
  // view_ points into the vectors, whose buffers a move hands over.
  class Csr {
   public:
    Csr() = default;
    explicit Csr(const HostCsr& borrowed) : view_(borrowed.view()) {}
    explicit Csr(HostCsr&& owned) : owned_(std::move(owned)), view_(owned_.view()) {}
    Csr(const HostCsr& pattern, std::vector<float>&& vals)
        : vals_(std::move(vals)), view_(pattern.view()) {
      FK_CHECK(static_cast<std::int64_t>(vals_.size()) == pattern.nnz(),
               "values for " << pattern.nnz() << " entries, got " << vals_.size());
      view_.vals = vals_.empty() ? nullptr : vals_.data();
    }
    Csr(Csr&&) = default;
    Csr& operator=(Csr&&) = default;
    Csr(const Csr&) = delete;
    Csr& operator=(const Csr&) = delete;
    CsrView view() const { return view_; }

   private:
    HostCsr owned_;
    std::vector<float> vals_;
    CsrView view_;
  };

  HostOps() = default;
  explicit HostOps(const Context&) {}

  // The CPU keeps the items' products of a ratings model on Rᵀ (DeviceOps::items_on_r): on 16
  // Xeon cores fk-als's netflix iteration ran 1.45x slower on R (on 2 threads 1.2-1.3x faster on
  // ml-100k and ml-20m; docs/benchmarks/checks/als-items-on-r).
  bool items_on_r(const Context&, std::int64_t) const { return false; }

  // A zero-filled buffer of n elements.
  template <class T>
  Buffer<T> alloc(std::int64_t n) const {
    return Buffer<T>(static_cast<std::size_t>(n));
  }
  // Copies n elements from host `src` into the first n of `dst`.
  template <class T>
  void upload(Buffer<T>& dst, const T* src, std::int64_t n) const {
    FK_CHECK(static_cast<std::int64_t>(dst.size()) >= n, "host upload out of range");
    if (n > 0) std::memcpy(dst.data(), src, static_cast<std::size_t>(n) * sizeof(T));
  }
  // Copies the first n elements of `src` to host `dst`.
  template <class T>
  void download(const Buffer<T>& src, T* dst, std::int64_t n) const {
    FK_CHECK(static_cast<std::int64_t>(src.size()) >= n, "host download out of range");
    if (n > 0) std::memcpy(dst, src.data(), static_cast<std::size_t>(n) * sizeof(T));
  }
  Csr make_csr(const HostCsr& h) const { return Csr(h); }
  Csr make_csr(HostCsr&& h) const { return Csr(std::move(h)); }
  // `pattern`'s rows and columns (read in place: it must outlive the engine) with `vals`.
  Csr make_csr(const HostCsr& pattern, std::vector<float>&& vals) const {
    return Csr(pattern, std::move(vals));
  }
  static CsrView view(const Csr& c) { return c.view(); }

  // p[0, n) = v (host).
  void fill(const Context&, float* p, std::int64_t n, float v) const { std::fill(p, p + n, v); }
};

// Elements per partial sum of the chunked sums below.
constexpr std::int64_t kSumChunk = 16384;

// Σ_j f(j) over [0, n): OpenMP over fixed chunks of kSumChunk, each summed in order from T{} by
// add(T& sum, const T& term), then the chunks' sums in chunk order, so the result does not depend
// on the thread count.
template <class T, class F, class Add>
T chunked_reduce(std::int64_t n, F f, Add add) {
  const std::int64_t chunks = (n + kSumChunk - 1) / kSumChunk;
  std::vector<T> part(static_cast<std::size_t>(chunks), T{});
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    T a{};
    const std::int64_t j1 = std::min(n, (c + 1) * kSumChunk);
    for (std::int64_t j = c * kSumChunk; j < j1; ++j) add(a, f(j));
    part[c] = a;
  }
  T total{};
  for (const T& p : part) add(total, p);
  return total;
}

// f returns a double.
template <class F>
double chunked_sum(std::int64_t n, F f) {
  return chunked_reduce<double>(n, f, [](double& s, double t) { s += t; });
}

// Two sums at once: f returns a std::pair<double, double>.
template <class F>
std::pair<double, double> chunked_sum2(std::int64_t n, F f) {
  using Pair = std::pair<double, double>;
  return chunked_reduce<Pair>(n, f, [](Pair& s, const Pair& t) {
    s.first += t.first;
    s.second += t.second;
  });
}

}  // namespace fk::app
