// cufft.fft: placeholder while the check is written (replaced before this lands).
#include "checks/checks.hpp"

namespace cudacheck {

std::unique_ptr<Check> make_cufft_fft_check() {
    return std::make_unique<FunctionCheck>(CheckInfo{"cufft.fft", "cufft.fft", "placeholder", Scope::device, Level::standard, {"cuda.devices"}},
                                           [](CheckContext&, ResultBuilder& result) { result.skip("not written yet"); });
}

}  // namespace cudacheck
