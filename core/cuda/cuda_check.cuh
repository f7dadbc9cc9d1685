#pragma once
// Checked CUDA, cuSPARSE, cuBLAS and cuSOLVER calls: a failure throws fk::Error naming the call,
// the library's error string and the source location. FK_CUDA_CHECK_LAUNCH() checks the last
// kernel launch (and synchronizes in Debug builds so that asynchronous faults point at their launch).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <sstream>
#include <string>

#include "core/error.hpp"

namespace fk::detail {
[[noreturn]] inline void throw_cuda(const char* what, const std::string& why, const char* file, int line) {
  std::ostringstream os;
  os << what << " failed: " << why << " at " << file << ':' << line;
  throw Error(os.str());
}
}  // namespace fk::detail

#define FK_CUDA_CHECK(call)                                                              \
  do {                                                                                   \
    cudaError_t fk_err_ = (call);                                                        \
    if (fk_err_ != cudaSuccess)                                                          \
      ::fk::detail::throw_cuda(#call, cudaGetErrorString(fk_err_), __FILE__, __LINE__);  \
  } while (0)

#define FK_CUSPARSE_CHECK(call)                                                           \
  do {                                                                                    \
    cusparseStatus_t fk_st_ = (call);                                                     \
    if (fk_st_ != CUSPARSE_STATUS_SUCCESS)                                                \
      ::fk::detail::throw_cuda(#call, cusparseGetErrorString(fk_st_), __FILE__, __LINE__); \
  } while (0)

#define FK_CUBLAS_CHECK(call)                                                               \
  do {                                                                                      \
    cublasStatus_t fk_st_ = (call);                                                         \
    if (fk_st_ != CUBLAS_STATUS_SUCCESS)                                                    \
      ::fk::detail::throw_cuda(#call, cublasGetStatusString(fk_st_), __FILE__, __LINE__);   \
  } while (0)

#define FK_CUSOLVER_CHECK(call)                                                                   \
  do {                                                                                            \
    cusolverStatus_t fk_st_ = (call);                                                             \
    if (fk_st_ != CUSOLVER_STATUS_SUCCESS)                                                        \
      ::fk::detail::throw_cuda(#call, "status " + std::to_string(int(fk_st_)), __FILE__, __LINE__); \
  } while (0)

#ifdef NDEBUG
#define FK_CUDA_CHECK_LAUNCH() FK_CUDA_CHECK(cudaGetLastError())
#else
#define FK_CUDA_CHECK_LAUNCH()             \
  do {                                     \
    FK_CUDA_CHECK(cudaGetLastError());     \
    FK_CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
#endif
