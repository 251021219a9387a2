// What the checks built on cuBLAS share (cublas.gemm, gpu.stress): binding the library opened at
// run time (bind/cublas.hpp), a handle owner, and the sampled float64 verification of a
// large product whose inputs came from kernels/random_fill.cuh.
#pragma once

#include "bind/cublas.hpp"
#include "bind/owned.hpp"
#include "engine/check.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::gpu {

// Records the cuBLAS version as evidence.
void record_cublas_version(const CublasApi& api, ResultBuilder& result);

// A cuBLAS call failed: reported as a library_call_failed finding with the status name.
struct Cublas {
    using Status = cublasStatus_t;
    [[nodiscard]] static std::string remediation(Status status);
};
using CublasFailure = LibraryFailure<Cublas>;

// run_library_check for a check built on cuBLAS (cublas.gemm, gpu.stress): the cuBLAS version as
// evidence, then `body(api, device)` on the check's device.
template <typename Body>
void run_cublas_check(CheckContext& context, ResultBuilder& result, Body&& body) {
    const auto version = [&](const LoadedLibrary&, const CublasApi& api) {
        record_cublas_version(api, result);
        return true;
    };
    run_library_check<Cublas>(context, result, cuda_library::cublas, cublas_symbols, version,
                              [&](const LoadedLibrary&, const CublasApi& api, int device) { body(api, device); });
}

// The step of creating a cuBLAS handle on `device` (cuBLASLt's set-up in its context): announced,
// so that a crash or hang there is charged to it (util/actions.hpp).
[[nodiscard]] actions::Action cublas_handle_step(int device);

class CublasHandle {
public:
    explicit CublasHandle(const CublasApi& api) : CublasHandle(api, nullptr) {}
    // Takes over a handle created earlier, or creates one on the current device when `early` is
    // null (throws StepRefused when that failed earlier in the run).
    CublasHandle(const CublasApi& api, cublasHandle_t early);
    [[nodiscard]] cublasHandle_t get() const { return handle_.get(); }
    // Throws CublasFailure naming `call` unless `status` is success.
    void check(cublasStatus_t status, const std::string& call) const;

private:
    const CublasApi& api_;
    Owned<cublasHandle_t, decltype(CublasApi::destroy)> handle_;
};

// Column-major index of element (row, column) in a matrix with `rows` rows.
[[nodiscard]] inline std::size_t at(std::size_t row, std::size_t column, std::size_t rows) {
    return row + column * rows;
}

// The value the fill kernel stores at `index`, as the element type rounds it, widened to double.
[[nodiscard]] double stored_value(kernels::Element element, std::uint64_t seed, std::size_t index);
[[nodiscard]] std::size_t element_bytes(kernels::Element element);

// Entries of a size x size column-major product A * B, copied from the GPU (positions spread over
// the whole output by a fixed hash), to be recomputed in float64 from A's and B's seeds.
struct GemmSamples {
    std::size_t size = 0;
    kernels::Element output = kernels::Element::f32;
    std::vector<std::pair<std::size_t, std::size_t>> positions;  // (row, column)
    std::vector<double> values;                                 // as the GPU wrote them
};
// Copies `count` entries of `product` (elements of type `output`) and waits for them.
[[nodiscard]] GemmSamples copy_gemm_samples(const unsigned char* product, kernels::Element output, std::size_t size,
                                            int count, const Stream& stream);
// The entries against the float64 product of inputs filled with (input, seed_a) and (input, seed_b).
[[nodiscard]] Accuracy compare_gemm_samples(const GemmSamples& samples, kernels::Element input, std::uint64_t seed_a,
                                            std::uint64_t seed_b);

}  // namespace cudacheck::gpu
