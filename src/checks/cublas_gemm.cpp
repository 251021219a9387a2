// cublas.gemm: placeholder while the check is written (replaced before this lands).
#include "checks/checks.hpp"

namespace cudacheck {

std::unique_ptr<Check> make_cublas_gemm_check() {
    return std::make_unique<FunctionCheck>(CheckInfo{"cublas.gemm", "cublas.gemm", "placeholder", Scope::device, Level::standard, {"cuda.devices"}},
                                           [](CheckContext&, ResultBuilder& result) { result.skip("not written yet"); });
}

}  // namespace cudacheck
