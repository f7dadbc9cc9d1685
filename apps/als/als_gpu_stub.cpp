// Builds without CUDA: the GPU backend does not exist, and asking for it says so.
#include "apps/als/als_backend.hpp"
#include "core/error.hpp"

namespace fk::als {
std::unique_ptr<AlsBackend> make_gpu_als_backend(Context, const AlsHyper&, const HostCsr&,
                                                 const HostCsr&, const HostCsr&) {
  throw Error("fk-als: this build has no CUDA support (nvcc was not found at configure time)");
}
}  // namespace fk::als
