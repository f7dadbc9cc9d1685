// Builds without CUDA: the GPU backend does not exist, and asking for it says so.
#include "apps/lda/lda_backend.hpp"
#include "core/error.hpp"

namespace fk::lda {
std::unique_ptr<LdaBackend> make_gpu_lda_backend(Context, const LdaHyper&) {
  throw Error("fk-lda: this build has no CUDA support (nvcc was not found at configure time)");
}
}  // namespace fk::lda
