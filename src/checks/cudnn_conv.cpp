// cudnn.conv: cuDNN loads completely from one install, matches the CUDA runtime, and computes a
// float32 forward convolution correctly.
//  1. Versions: cudnnGetVersion() against the header cudacheck was built with, and the CUDA
//     runtime cuDNN was built for (cudnnGetCudartVersion) against ours.
//  2. cuDNN's own sub-library checks (graph, ops, cnn), then an NCHW float convolution (3x3,
//     padding 1, stride 1) with FMA math (no TF32), every output compared with a float64 CPU
//     convolution; the algorithm is the one cuDNN's heuristics pick.
//  3. Which file each cuDNN 9 sub-library came from (the loader's record), judged against the
//     directory and version of libcudnn.so.9 itself: missing (CC508) or mixed installs (CC509).
#include "checks/cudnn_conv.hpp"
#include "bind/cudnn.hpp"
#include "bind/owned.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "checks/reference/convolution.hpp"
#include "cuda/library_families.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "probes/driver_probe.hpp"
#include "probes/probes.hpp"
#include "util/path.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <algorithm>
#include <array>
#include <cudnn.h>  // types, enums and CUDNN_VERSION only: cuDNN is opened at run time
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <memory>
#include <optional>

namespace cudacheck {

using sys::directory_of;

namespace {

constexpr MetricFamily conv_error{"cudnn_conv_relative_error", "relative_error", Unit::ratio,
                                  "Relative error of the convolution against float64."};
constexpr MetricFamily conv_elements{"cudnn_conv_elements_checked", "elements_checked", Unit::count,
                                     "Output elements of the convolution checked."};
constexpr MetricFamily conv_time{"cudnn_conv", "convolution_time", Unit::ms, "cuDNN convolution time."};
constexpr MetricFamily conv_rate{"cudnn_conv", "convolution_throughput", Unit::gflops,
                                 "cuDNN convolution throughput, in TFLOP/s."};

// "pip wheel", "conda", "CUDA toolkit" or "system": where a copy of cuDNN usually comes from.
std::string origin_of(const std::string& path) {
    if (path.find("/site-packages/") != std::string::npos || path.find("/dist-packages/") != std::string::npos)
        return "pip wheel";
    if (path.find("conda") != std::string::npos) return "conda";
    if (sys::starts_with(path, "/usr/local/cuda")) return "CUDA toolkit";
    if (sys::starts_with(path, "/usr/lib") || sys::starts_with(path, "/lib")) return "system";
    return "other location";
}

// The first three dot-separated parts: "9.14.0.64" and "9.14.0" are the same release.
std::string release_of(const std::string& version) {
    std::size_t dots = 0;
    for (std::size_t i = 0; i < version.size(); ++i)
        if (version[i] == '.' && ++dots == 3) return version.substr(0, i);
    return version;
}

}  // namespace

SubLibraryVerdict judge_sublibraries(const std::string& main_path, const std::string& main_version,
                                     const std::vector<SubLibraryState>& states) {
    SubLibraryVerdict verdict;
    const std::string main_dir = directory_of(main_path);
    std::vector<std::string> missing;
    std::vector<std::string> mixed;
    std::vector<std::string> other_dirs;
    for (const SubLibraryState& state : states) {
        if (state.loaded_path.empty()) {
            verdict.evidence.push_back({state.soname, state.exists_beside_main
                                                          ? "not loaded by this run; present beside libcudnn.so.9"
                                                          : "not loaded by this run; absent beside libcudnn.so.9"});
            if (!state.exists_beside_main) missing.push_back(state.soname);
            continue;
        }
        // "libcudnn_cnn.so.9" -> prefix "libcudnn_cnn.so." -> "9.14.0" from libcudnn_cnn.so.9.14.0.
        const std::string prefix = state.soname.substr(0, state.soname.find(".so.") + 4);
        const std::string file_version = library_version_from_path(state.loaded_path, prefix);
        const std::string dir = directory_of(state.loaded_path);
        verdict.evidence.push_back({state.soname, file_version.empty()
                                                      ? state.loaded_path
                                                      : fmt::format("{} ({})", state.loaded_path, file_version)});
        const bool other_dir = dir != main_dir;
        const bool other_version =
            !file_version.empty() && !main_version.empty() && release_of(file_version) != release_of(main_version);
        if (!other_dir && !other_version) continue;
        mixed.push_back(fmt::format("{} from {} ({}{})", state.soname, state.loaded_path, origin_of(state.loaded_path),
                                    file_version.empty() ? "" : ", " + file_version));
        if (other_dir && std::find(other_dirs.begin(), other_dirs.end(), dir) == other_dirs.end())
            other_dirs.push_back(dir);
    }
    const std::string main_described =
        fmt::format("{} ({}{})", main_path, origin_of(main_path), main_version.empty() ? "" : ", " + main_version);
    const std::string install_hint = cuda_library::cudnn.install_hint(CUDART_VERSION / 1000);
    if (!missing.empty())
        verdict.findings.push_back(
            make_finding(Code::cudnn_sublibrary_missing,
                         fmt::format("cuDNN sub-librar{} {} not beside libcudnn.so.9 {}: this run did not load {}, but "
                                     "cuDNN fails with "
                                     "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED (or takes another install's copy) when it "
                                     "needs {}",
                                     missing.size() == 1 ? "y" : "ies", fmt::join(missing, ", "), main_described,
                                     missing.size() == 1 ? "it" : "them", missing.size() == 1 ? "it" : "them"),
                         fmt::format("libcudnn.so.9 is only a shim: install the complete cuDNN so that {} holds all "
                                     "seven libcudnn_*.so.9 "
                                     "({}), and do not copy libcudnn.so.9 alone.",
                                     main_dir, install_hint)));
    if (!mixed.empty())
        verdict.findings.push_back(
            make_finding(Code::cudnn_version_mismatch,
                         fmt::format("cuDNN is mixed from two installs: libcudnn.so.9 is {} but {}", main_described,
                                     fmt::join(mixed, "; ")),
                         fmt::format("Load all of cuDNN from one install: keep {} and its sub-libraries together, and "
                                     "remove {} from "
                                     "LD_LIBRARY_PATH (or the ld.so.conf entry) or uninstall that copy; the shim looks "
                                     "for its sub-libraries on "
                                     "the loader's path first.",
                                     main_dir,
                                     other_dirs.empty() ? std::string("the other copy")
                                                        : fmt::format("{}", fmt::join(other_dirs, ", ")))));
    return verdict;
}

namespace cudnn_nvrtc {

Code code_for_cudnn_status(int status) {
    switch (status) {
        case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED:            // 1008, cuDNN 9.2+
        case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE:  // 3009
            return Code::cudnn_sublibrary_missing;
        case CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH:  // 1002 (was CUDNN_STATUS_VERSION_MISMATCH)
            return Code::cudnn_version_mismatch;
        default: return Code::library_call_failed;
    }
}

}  // namespace cudnn_nvrtc

double convolution_tolerance(int algorithm) {
    // Direct and GEMM-based algorithms: each output is one dot product of C*R*S float32 products
    // (27 at standard, 288 at full) accumulated with FMA. Rounding error grows like sqrt(C*R*S)
    // units of 2^-24 for random signed data, so the relative Frobenius error is ~1e-7..1e-6; 1e-5
    // leaves an order of magnitude of margin and is still 100x below TF32's (2^-11 ~ 5e-4 per
    // input), so a TF32 path slipping in despite CUDNN_FMA_MATH fails too.
    // FFT and Winograd compute in a transform domain: the forward and inverse transforms add
    // O(log tile) roundings and amplify them by the transform's norm (cuDNN documents them as less
    // accurate); measured errors are ~1e-6..1e-5, so they get 1e-4, still 5x below TF32.
    switch (algorithm) {
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return 1e-4;
        default: return 1e-5;
    }
}

namespace {

using namespace cudnn_nvrtc;
using reference::ConvShape;
using reference::reference_convolution;

void check(const CudnnApi& api, cudnnStatus_t status, const char* call) {
    if (status == CUDNN_STATUS_SUCCESS) return;
    std::array<char, 512> detail{};
    if (api.last_error_string != nullptr) api.last_error_string(detail.data(), detail.size());
    const std::string last(detail.data());
    throw CudnnFailure(status, call,
                       describe_status(api.error_string(status), static_cast<int>(status)) +
                           (last.empty() ? "" : ": " + last));
}

// One cuDNN handle or descriptor, created by `create` (a failure throws) and destroyed by `destroy`.
template <typename Handle, typename Create, typename Destroy>
[[nodiscard]] Owned<Handle, Destroy> create_owned(const CudnnApi& api, Create create, Destroy destroy,
                                                  const char* call) {
    Handle handle = nullptr;
    check(api, create(&handle), call);
    return Owned<Handle, Destroy>(handle, destroy);
}

ConvShape shape_for(Level level) {
    // Standard: the first layer of a small CNN (RGB in, 64 feature maps). Full: a middle layer,
    // large enough for cuDNN to prefer other algorithms, still ~0.3 G multiply-adds for the CPU.
    if (level == Level::full)
        return {.n = 4, .c = 32, .h = 64, .w = 64, .k = 64, .r = 3, .s = 3, .pad = 1, .stride = 1};
    return {.n = 2, .c = 3, .h = 32, .w = 32, .k = 64, .r = 3, .s = 3, .pad = 1, .stride = 1};
}

std::string_view algorithm_name(int algorithm) {
    switch (algorithm) {
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
        default: return "unknown";
    }
}

// Seeds of the random input and filter (kernels::uniform_value: the host recomputes them).
constexpr std::uint64_t input_seed = 31;
constexpr std::uint64_t filter_seed = 32;

void measure_convolution(const CudnnApi& api, CheckContext& context, ConvolutionOutcome& outcome) {
    const ConvShape shape = shape_for(context.options.level);
    outcome.shape = shape;
    gpu::Stream stream;
    const auto handle = create_owned<cudnnHandle_t>(api, api.create, api.destroy, "cudnnCreate");
    check(api, api.set_stream(handle.get(), stream.get()), "cudnnSetStream");

    const auto x_desc = create_owned<cudnnTensorDescriptor_t>(api, api.create_tensor, api.destroy_tensor,
                                                              "cudnnCreateTensorDescriptor");
    const auto y_desc = create_owned<cudnnTensorDescriptor_t>(api, api.create_tensor, api.destroy_tensor,
                                                              "cudnnCreateTensorDescriptor");
    const auto w_desc = create_owned<cudnnFilterDescriptor_t>(api, api.create_filter, api.destroy_filter,
                                                              "cudnnCreateFilterDescriptor");
    const auto conv_desc =
        create_owned<cudnnConvolutionDescriptor_t>(api, api.create_convolution, api.destroy_convolution,
                                                   "cudnnCreateConvolutionDescriptor");
    check(api, api.set_tensor_4d(x_desc.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, shape.n, shape.c, shape.h, shape.w),
          "cudnnSetTensor4dDescriptor");
    check(api, api.set_filter_4d(w_desc.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, shape.k, shape.c, shape.r, shape.s),
          "cudnnSetFilter4dDescriptor");
    check(api,
          api.set_convolution_2d(conv_desc.get(), shape.pad, shape.pad, shape.stride, shape.stride, 1, 1,
                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    // FMA math: plain float32 arithmetic. The default lets cuDNN use TF32 tensor cores on Ampere
    // and newer (10-bit mantissa, ~1e-3 relative error), which would make a float32 tolerance
    // meaningless; what is verified here is that float32 convolution is correct.
    check(api, api.set_math_type(conv_desc.get(), CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
    int out_n = 0, out_c = 0, out_h = 0, out_w = 0;
    check(api, api.output_dim(conv_desc.get(), x_desc.get(), w_desc.get(), &out_n, &out_c, &out_h, &out_w),
          "cudnnGetConvolution2dForwardOutputDim");
    outcome.output_dims = {out_n, out_c, out_h, out_w};
    if (out_n != shape.n || out_c != shape.k || out_h != shape.out_h() || out_w != shape.out_w())
        return;  // the judge says so
    check(api, api.set_tensor_4d(y_desc.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, out_n, out_c, out_h, out_w),
          "cudnnSetTensor4dDescriptor");

    // The algorithm cuDNN's heuristics rank first among those that work with FMA math; otherwise
    // IMPLICIT_GEMM, which supports every configuration.
    std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> ranked{};
    int returned = 0;
    check(api,
          api.forward_algorithm(handle.get(), x_desc.get(), w_desc.get(), conv_desc.get(), y_desc.get(),
                                static_cast<int>(ranked.size()), &returned, ranked.data()),
          "cudnnGetConvolutionForwardAlgorithm_v7");
    cudnnConvolutionFwdAlgo_t algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    std::string chosen_by = "fallback (no heuristic choice with FMA math)";
    for (int i = 0; i < returned && i < static_cast<int>(ranked.size()); ++i)
        if (ranked[static_cast<std::size_t>(i)].status == CUDNN_STATUS_SUCCESS &&
            ranked[static_cast<std::size_t>(i)].mathType == CUDNN_FMA_MATH) {
            algorithm = ranked[static_cast<std::size_t>(i)].algo;
            chosen_by = fmt::format("heuristics (rank {} of {})", i + 1, returned);
            break;
        }
    std::size_t workspace_bytes = 0;
    check(api,
          api.workspace_size(handle.get(), x_desc.get(), w_desc.get(), conv_desc.get(), y_desc.get(), algorithm,
                             &workspace_bytes),
          "cudnnGetConvolutionForwardWorkspaceSize");
    outcome.algorithm = static_cast<int>(algorithm);
    outcome.chosen_by = chosen_by;
    outcome.workspace_bytes = workspace_bytes;

    std::optional<gpu::DeviceWork> gpu_work(
        context.device.value_or(0));  // GPU phase; the float64 reference runs without it
    gpu::DeviceArray<float> input(shape.input_count());
    gpu::DeviceArray<float> filter(shape.filter_count());
    gpu::DeviceArray<float> output(shape.output_count());
    std::optional<gpu::DeviceArray<unsigned char>> workspace;
    if (workspace_bytes > 0) workspace.emplace(workspace_bytes);
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(input.data(), kernels::Element::f32, input.size(), input_seed, stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(filter.data(), kernels::Element::f32, filter.size(),
                                                              filter_seed, stream.get())),
               "fill kernel");
    gpu::check(cudaMemsetAsync(output.data(), 0xFF, output.bytes(), stream.get()),
               "cudaMemsetAsync");  // NaN: an unwritten output fails

    const float alpha = 1.0f;
    const float beta = 0.0f;
    auto forward = [&] {
        check(api,
              api.forward(handle.get(), &alpha, x_desc.get(), input.data(), w_desc.get(), filter.data(),
                          conv_desc.get(), algorithm, workspace ? workspace->data() : nullptr, workspace_bytes, &beta,
                          y_desc.get(), output.data()),
              "cudnnConvolutionForward");
    };
    forward();
    std::vector<float> gpu_output(output.size());
    gpu::check(cudaMemcpyAsync(gpu_output.data(), output.data(), output.bytes(), cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
    gpu_work.reset();
    {
        const trace::Span span("float64 reference (host)");
        outcome.accuracy = convolution_accuracy(shape, gpu_output);
    }
    if (!outcome.accuracy->within(convolution_tolerance(outcome.algorithm.value())))
        return;  // a wrong answer is not timed

    outcome.timed_runs = context.options.level == Level::full ? 20 : 5;
    gpu_work.emplace(context.device.value_or(0));
    outcome.times_ms = gpu::time_on_stream(stream, gpu_work, 1, outcome.timed_runs, forward);
}

void run_convolution(const CudnnApi& api, CheckContext& context, ResultBuilder& result) {
    measure_then_judge<ConvolutionOutcome>(
        [&](ConvolutionOutcome& outcome) { measure_convolution(api, context, outcome); },
        [&](const ConvolutionOutcome& outcome) { judge_convolution(outcome, result); });
}

// Where each sub-library came from, after cuDNN loaded what it needed.
SubLibraryVerdict inspect_sublibraries(const std::string& main_path, const std::string& main_version) {
    const std::string main_dir = main_path.substr(0, main_path.find_last_of('/'));
    std::vector<SubLibraryState> states;
    for (std::string_view soname : cudnn9_sublibraries()) {
        SubLibraryState state;
        state.soname = std::string(soname);
        // Never loads anything: engines_precompiled alone is hundreds of megabytes.
        const DynamicLibrary loaded = DynamicLibrary::find_loaded(soname);
        state.loaded_path = loaded.loaded_path();
        state.exists_beside_main = sys::exists(main_dir + "/" + state.soname);
        states.push_back(std::move(state));
    }
    return judge_sublibraries(main_path, main_version, states);
}

// A failed cuDNN call as a finding: a sub-library status is merged into the matching finding of
// the sub-library analysis (which names the files) when there is one.
void add_failure(const CudnnFailure& failure, const std::string& main_path, std::vector<Finding>& findings) {
    const Code code = code_for_cudnn_status(failure.status());
    for (Finding& finding : findings)
        if (finding.code == code_string(code)) {
            finding.message += fmt::format(" ({})", failure.what());
            return;
        }
    std::string remediation;
    if (code == Code::cudnn_sublibrary_missing)
        remediation = fmt::format(
            "cuDNN could not load one of its libcudnn_*.so.9 sub-libraries (or a library they need: libcublasLt, "
            "libnvrtc): install the complete cuDNN beside {} ({}).",
            main_path, cuda_library::cudnn.install_hint(CUDART_VERSION / 1000));
    else if (code == Code::cudnn_version_mismatch)
        remediation = fmt::format(
            "The sub-libraries cuDNN loaded are from another cuDNN release than {}: keep one cuDNN install on the "
            "loader's path (LD_LIBRARY_PATH, ld.so.conf).",
            main_path);
    else
        remediation =
            "Act on the status named; a cuDNN built for another CUDA major, or a damaged install, are the usual "
            "causes: reinstall "
            "cuDNN for CUDA " +
            std::to_string(CUDART_VERSION / 1000) + ".";
    findings.push_back(make_finding(code, failure.what(), remediation));
}

// The main cuDNN library, which the sub-libraries are compared with.
struct MainCudnn {
    std::string path;
    std::string version;
};

// 1. Versions: cuDNN's, its header's and its CUDA's as evidence; nullopt, after the finding, where
// cuDNN is of another major or CUDA (the GPU work then does not run). Neither call needs a GPU.
std::optional<MainCudnn> judge_cudnn_versions(const LoadedLibrary& library, const CudnnApi& api,
                                              ResultBuilder& result) {
    const LibraryVersion version = decode_cudnn_version(api.get_version());
    const LibraryVersion header = decode_cudnn_version(CUDNN_VERSION);
    const std::size_t cudnn_cudart = api.get_cudart_version();
    const std::string main_path = library.library.loaded_path();
    // The shim forwards cudnnGetVersion to the graph sub-library it loaded, so a shim of one release
    // with another's sub-libraries reports theirs: its own file name (libcudnn.so.9.14.0) is the
    // better reference where it has one (pip wheels' do not).
    std::string main_version = library.file_version.empty() ? version.text() : library.file_version;
    result.evidence("cudnn_version", fmt::format("{} (cudnnGetVersion; header {}{})", version.text(), header.text(),
                                                 library.file_version.empty() ? "" : "; file " + library.file_version));
    result.evidence("cudnn_cuda_version",
                    fmt::format("cuDNN built for CUDA {}.{}; cudacheck's runtime {}.{}", cudnn_cudart / 1000,
                                (cudnn_cudart % 1000) / 10, CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10));
    if (version.major != header.major) {
        result.add(Code::cudnn_version_mismatch,
                   fmt::format("{} is cuDNN {}, cudacheck was built with cuDNN {} headers", main_path, version.text(),
                               header.text()),
                   fmt::format("Install cuDNN {} ({}) and put it first on the loader's path.", header.major,
                               cuda_library::cudnn.install_hint(CUDART_VERSION / 1000)));
        return std::nullopt;
    }
    // An older library than the header (same major) is evidence, not a finding: cudacheck calls only
    // functions every cuDNN 9 release has (a missing one would be CC506), and the header is that of
    // cudacheck's build machine, not of the user's frameworks, so a warning would be noise.
    if (version.minor < header.minor)
        result.evidence("note", fmt::format("cuDNN {} is older than the {} headers cudacheck was built with; software "
                                            "built against newer "
                                            "cuDNN headers (e.g. PyTorch checks this) may refuse it",
                                            version.text(), header.text()));
    if (static_cast<int>(cudnn_cudart / 1000) != CUDART_VERSION / 1000) {
        result.add(Code::cudnn_version_mismatch,
                   fmt::format("{} (cuDNN {}) is built for CUDA {}, cudacheck uses CUDA {}: one soname (libcudnn.so.9) "
                               "serves every CUDA "
                               "major, so the wrong build loaded",
                               main_path, version.text(), cudnn_cudart / 1000, CUDART_VERSION / 1000),
                   fmt::format("Install cuDNN for CUDA {} ({}) and put it first on the loader's path.",
                               CUDART_VERSION / 1000, cuda_library::cudnn.install_hint(CUDART_VERSION / 1000)));
        return std::nullopt;  // not run: a cuDNN of another CUDA major would pull in that major's libraries
    }
    return MainCudnn{main_path, std::move(main_version)};
}

void run_cudnn_check(CheckContext& context, ResultBuilder& result) {
    MainCudnn main;
    const auto versions = [&](const LoadedLibrary& library, const CudnnApi& api) {
        std::optional<MainCudnn> judged = judge_cudnn_versions(library, api, result);
        if (judged) main = std::move(*judged);
        return judged.has_value();
    };
    // A failed cuDNN call is judged here, with the sub-libraries (add_failure): the Cudnn tag has no
    // one remediation for run_library_check to give.
    gpu::run_library_check<Cudnn>(context, result, cuda_library::cudnn, cudnn_symbols, versions,
                                  [&](const LoadedLibrary&, const CudnnApi& api, int) {
                                      std::optional<CudnnFailure> failure;
                                      try {
                                          // 2. cuDNN's own consistency checks (loading graph, ops and cnn), then the
                                          // convolution.
                                          check(api, api.graph_version_check(), "cudnnGraphVersionCheck");
                                          check(api, api.ops_version_check(), "cudnnOpsVersionCheck");
                                          check(api, api.cnn_version_check(), "cudnnCnnVersionCheck");
                                          run_convolution(api, context, result);
                                      } catch (const CudnnFailure& caught) {
                                          failure = caught;
                                      } catch (const gpu::CudaError&) {
                                          // The sub-library report is still worth having beside the CUDA error.
                                          const SubLibraryVerdict verdict =
                                              inspect_sublibraries(main.path, main.version);
                                          for (const Evidence& line : verdict.evidence) result.evidence(line);
                                          for (const Finding& finding : verdict.findings) result.add(finding);
                                          throw;
                                      }
                                      // 3. Sub-libraries, now that cuDNN has loaded the ones it needs.
                                      SubLibraryVerdict verdict = inspect_sublibraries(main.path, main.version);
                                      if (failure) add_failure(*failure, main.path, verdict.findings);
                                      for (const Evidence& line : verdict.evidence) result.evidence(line);
                                      for (const Finding& finding : verdict.findings) result.add(finding);
                                  });
}

}  // namespace

ConvolutionInputs seeded_convolution_inputs(const ConvShape& shape) {
    ConvolutionInputs inputs{std::vector<float>(shape.input_count()), std::vector<float>(shape.filter_count())};
    for (std::size_t i = 0; i < inputs.input.size(); ++i) inputs.input[i] = kernels::uniform_value(input_seed, i);
    for (std::size_t i = 0; i < inputs.filter.size(); ++i) inputs.filter[i] = kernels::uniform_value(filter_seed, i);
    return inputs;
}

gpu::Accuracy convolution_accuracy(const ConvShape& shape, std::span<const float> output) {
    const ConvolutionInputs inputs = seeded_convolution_inputs(shape);
    const std::vector<double> reference = reference_convolution(shape, inputs.input, inputs.filter);
    gpu::AccuracyAccumulator accumulator;
    for (std::size_t i = 0; i < reference.size(); ++i)
        accumulator.add(i < output.size() ? static_cast<double>(output[i]) : std::numeric_limits<double>::quiet_NaN(),
                        reference[i]);
    return accumulator.result();
}

void judge_convolution(const ConvolutionOutcome& outcome, ResultBuilder& result) {
    const ConvShape& shape = outcome.shape;
    if (outcome.output_dims) {
        const auto [out_n, out_c, out_h, out_w] = *outcome.output_dims;
        if (out_n != shape.n || out_c != shape.k || out_h != shape.out_h() || out_w != shape.out_w()) {
            result.add(Code::wrong_result,
                       fmt::format("cuDNN gives output {}x{}x{}x{} for a {}x{}x{}x{} input and {}x{}x{}x{} filter, "
                                   "padding {}; "
                                   "expected {}x{}x{}x{}",
                                   out_n, out_c, out_h, out_w, shape.n, shape.c, shape.h, shape.w, shape.k, shape.c,
                                   shape.r, shape.s, shape.pad, shape.n, shape.k, shape.out_h(), shape.out_w()));
            return;
        }
    }
    if (!outcome.algorithm) return;
    const std::string_view algorithm = algorithm_name(*outcome.algorithm);
    result.evidence("algorithm", fmt::format("{} by {}; workspace {} bytes; math CUDNN_FMA_MATH", algorithm,
                                             outcome.chosen_by, outcome.workspace_bytes));
    if (!outcome.accuracy) return;
    const gpu::Accuracy& accuracy = *outcome.accuracy;
    const double tolerance = convolution_tolerance(*outcome.algorithm);
    const std::string problem =
        fmt::format("{}x{}x{}x{} * {}x{}x{}x{} (NCHW float, pad {}, stride {})", shape.n, shape.c, shape.h, shape.w,
                    shape.k, shape.c, shape.r, shape.s, shape.pad, shape.stride);
    result.evidence("problem", problem);
    result.metric(conv_error, accuracy.relative_error);
    result.metric(conv_elements, static_cast<double>(accuracy.count));
    if (!accuracy.within(tolerance)) {
        result.add(Code::wrong_result, fmt::format("cuDNN convolution {} with {}: {} over all {} outputs", problem,
                                                   algorithm, gpu::describe(accuracy, tolerance), accuracy.count));
        return;
    }
    if (outcome.times_ms.empty()) return;
    const double milliseconds = gpu::median(outcome.times_ms);
    result.metric(conv_time, milliseconds);
    if (milliseconds > 0) result.metric(conv_rate, 2.0 * shape.multiply_adds() / (milliseconds * 1e-3) / 1e9);
    // The problem's layout and the tolerance are evidence ("problem", "accuracy"); the headline keeps the shapes.
    result.evidence("accuracy", gpu::describe(accuracy, tolerance));
    result.summary(fmt::format("convolution {}x{}x{}x{} * {}x{}x{}x{} correct ({}, relative error {:.2e}); {:.3f} ms",
                               shape.n, shape.c, shape.h, shape.w, shape.k, shape.c, shape.r, shape.s, algorithm,
                               accuracy.relative_error, milliseconds));
}

std::unique_ptr<Check> make_cudnn_conv_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info({.id = "cudnn.conv",
                                 .title = "cuDNN convolution",
                                 .description = "cuDNN loads whole from one install and matches the runtime; a float32 "
                                                "convolution matches a float64 CPU reference",
                                 .raises = {Code::cudnn_sublibrary_missing, Code::cudnn_version_mismatch},
                                 .answers = "a convolution against a float64 reference; cuDNN, header and runtime "
                                            "versions; every cuDNN 9 "
                                            "sub-library present and from one install"},
                                cuda_library::cudnn),
        [](CheckContext& context, ResultBuilder& result) { run_cudnn_check(context, result); });
}

const CheckRegistration cudnn_conv_registration{1500, make_cudnn_conv_check};

}  // namespace cudacheck
