// Builds without CUDA: the GPU backend does not exist, and asking for it says so.
#include "apps/gap/gap_backend.hpp"
#include "core/error.hpp"

namespace fk::gap {
std::unique_ptr<GapBackend> make_gpu_gap_backend(Context, const GapHyper&, const GapMatrices&) {
  throw Error("fk-gap: this build has no CUDA support (nvcc was not found at configure time)");
}
}  // namespace fk::gap
