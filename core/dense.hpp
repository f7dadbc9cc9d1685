#pragma once
// Dense row-major matrices: an owning host matrix and a non-owning view that kernels take.
// Row-major with no padding: element (r, c) lives at data[r * cols + c].
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/aligned_vector.hpp"
#include "core/error.hpp"

namespace fk {

// Non-owning view of a rows x cols row-major matrix. Whether `data` is host or device memory is
// decided by the caller: CPU kernels take host views, CUDA kernels take device views.
template <typename T>
struct DenseView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  std::int64_t size() const { return rows * cols; }
  T* row(std::int64_t r) const { return data + r * cols; }
  T& operator()(std::int64_t r, std::int64_t c) const { return data[r * cols + c]; }
  // A view of mutable elements passes where a read-only one is taken (implicit by design). Only
  // for non-const T: for T = const X it would convert a type to itself, which nvcc warns about
  // (#554) in every file that includes this.
  template <typename U = T, typename = std::enable_if_t<!std::is_const_v<U>>>
  operator DenseView<const U>() const {  // NOLINT: implicit by design
    return {data, rows, cols};
  }
};

// Whether the elements of two views share memory (pointer ranges only: host or device alike, no
// access). Kernels that write one operand while reading the other take it as an error, since rows
// written early are read again later (C = S·B with C == B gives garbage, not an in-place product).
template <typename T, typename U>
bool overlaps(DenseView<T> x, DenseView<U> y) {
  if (x.data == nullptr || y.data == nullptr || x.size() <= 0 || y.size() <= 0) return false;
  const auto x0 = reinterpret_cast<std::uintptr_t>(x.data),
             y0 = reinterpret_cast<std::uintptr_t>(y.data);
  const auto x1 = x0 + static_cast<std::uintptr_t>(x.size()) * sizeof(T);
  const auto y1 = y0 + static_cast<std::uintptr_t>(y.size()) * sizeof(U);
  return x0 < y1 && y0 < x1;
}

// Owning row-major host matrix; its first element is 64-byte aligned (core/aligned_vector.hpp).
template <typename T>
class HostDense {
 public:
  HostDense() = default;
  HostDense(std::int64_t rows, std::int64_t cols, T fill = T{})
      : rows_(rows), cols_(cols), data_(checked_size(rows, cols), fill) {}

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t size() const { return rows_ * cols_; }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  T& operator()(std::int64_t r, std::int64_t c) { return data_[r * cols_ + c]; }
  const T& operator()(std::int64_t r, std::int64_t c) const { return data_[r * cols_ + c]; }
  T* row(std::int64_t r) { return data_.data() + r * cols_; }
  const T* row(std::int64_t r) const { return data_.data() + r * cols_; }
  AlignedVector<T>& storage() { return data_; }
  const AlignedVector<T>& storage() const { return data_; }
  // The elements in row-major order as a plain std::vector (a copy).
  std::vector<T> values() const { return std::vector<T>(data_.begin(), data_.end()); }
  // Replaces the elements, row-major; `v` must hold exactly rows x cols of them.
  void assign_values(const std::vector<T>& v) {
    FK_CHECK(static_cast<std::int64_t>(v.size()) == size(),
             v.size() << " values for a " << rows_ << " x " << cols_ << " matrix");
    data_.assign(v.begin(), v.end());
  }

  DenseView<T> view() { return {data_.data(), rows_, cols_}; }
  DenseView<const T> view() const { return {data_.data(), rows_, cols_}; }

 private:
  static std::size_t checked_size(std::int64_t rows, std::int64_t cols) {
    FK_CHECK(rows >= 0 && cols >= 0, "negative matrix shape " << rows << " x " << cols);
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  AlignedVector<T> data_;
};

}  // namespace fk
