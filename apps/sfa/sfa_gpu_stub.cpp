// Builds without CUDA: the GPU backend does not exist, and asking for it says so.
#include "apps/sfa/sfa_backend.hpp"
#include "core/error.hpp"

namespace fk::sfa {
std::unique_ptr<SfaBackend> make_gpu_sfa_backend(Context, const SfaHyper&, const HostCsr&,
                                                 const HostCsr&, const HostCsr&,
                                                 const std::vector<float>&, app::StatsReducer*) {
  throw Error("fk-sfa: this build has no CUDA support (nvcc was not found at configure time)");
}
}  // namespace fk::sfa
