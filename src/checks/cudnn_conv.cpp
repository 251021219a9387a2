// cudnn.conv: placeholder while the check is written (replaced before this lands).
#include "checks/checks.hpp"

namespace cudacheck {

std::unique_ptr<Check> make_cudnn_conv_check() {
    return std::make_unique<FunctionCheck>(CheckInfo{"cudnn.conv", "cudnn.conv", "placeholder", Scope::device, Level::standard, {"cuda.devices"}},
                                           [](CheckContext&, ResultBuilder& result) { result.skip("not written yet"); });
}

}  // namespace cudacheck
