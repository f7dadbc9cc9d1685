#pragma once
// RAII device memory and device-side matrices, usable from host code (no CUDA headers). In a
// CPU-only build constructing a non-empty buffer throws "not compiled with CUDA".
#include <cstdint>
#include <utility>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/gpu_hooks.hpp"

namespace fk {

// Move-only owner of `size` elements of T in device memory (uninitialised).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::int64_t size) : size_(size) {
    FK_CHECK(size >= 0, "negative device buffer size " << size);
    if (size > 0) data_ = static_cast<T*>(hooks::device_allocate(bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(static_cast<std::int64_t>(host.size())) {
    upload(host.data(), size_);
  }
  ~DeviceBuffer() { hooks::device_free(data_, bytes()); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      hooks::device_free(data_, bytes());
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::int64_t size() const { return size_; }
  std::size_t bytes() const { return static_cast<std::size_t>(size_) * sizeof(T); }

  void upload(const T* host, std::int64_t count, std::int64_t offset = 0) {
    FK_CHECK(offset >= 0 && count >= 0 && offset + count <= size_, "device upload out of range");
    if (count > 0) hooks::copy_host_to_device(data_ + offset, host, count * sizeof(T));
  }
  void download(T* host, std::int64_t count, std::int64_t offset = 0) const {
    FK_CHECK(offset >= 0 && count >= 0 && offset + count <= size_, "device download out of range");
    if (count > 0) hooks::copy_device_to_host(host, data_ + offset, count * sizeof(T));
  }
  std::vector<T> to_host() const {
    std::vector<T> out(static_cast<std::size_t>(size_));
    download(out.data(), size_);
    return out;
  }
  void fill_bytes(int byte) {
    if (size_ > 0) hooks::device_fill_bytes(data_, byte, bytes());
  }

 private:
  T* data_ = nullptr;
  std::int64_t size_ = 0;
};

// Row-major dense matrix in device memory.
template <typename T>
class DeviceDense {
 public:
  DeviceDense() = default;
  DeviceDense(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols), buf_(rows * cols) {}
  explicit DeviceDense(const HostDense<T>& host) : DeviceDense(host.rows(), host.cols()) {
    buf_.upload(host.data(), host.size());
  }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  T* data() { return buf_.data(); }
  const T* data() const { return buf_.data(); }
  DenseView<T> view() { return {buf_.data(), rows_, cols_}; }
  DenseView<const T> view() const { return {buf_.data(), rows_, cols_}; }
  void upload(const HostDense<T>& host) {
    FK_CHECK(host.rows() == rows_ && host.cols() == cols_, "device upload shape mismatch");
    buf_.upload(host.data(), host.size());
  }
  HostDense<T> to_host() const {
    HostDense<T> out(rows_, cols_);
    buf_.download(out.data(), out.size());
    return out;
  }
  void fill_bytes(int byte) { buf_.fill_bytes(byte); }

 private:
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  DeviceBuffer<T> buf_;
};

// CSR matrix in device memory.
struct DeviceCsr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<std::int32_t> col_idx;
  DeviceBuffer<float> vals;

  DeviceCsr() = default;
  // Validated on the host first (fk::validate): plans of a device pattern do not read it back.
  explicit DeviceCsr(const HostCsr& h)
      : rows(h.rows),
        cols(h.cols),
        row_ptr((validate(h.view()), h.row_ptr)),
        col_idx(h.col_idx),
        vals(h.vals) {}
  std::int64_t nnz() const { return col_idx.size(); }
  CsrView view() const {
    return {rows, cols, nnz(), row_ptr.data(), col_idx.data(), vals.size() ? vals.data() : nullptr};
  }
  HostCsr to_host() const {
    HostCsr h;
    h.rows = rows;
    h.cols = cols;
    h.row_ptr = row_ptr.to_host();
    h.col_idx = col_idx.to_host();
    h.vals = vals.to_host();
    return h;
  }
};

}  // namespace fk
