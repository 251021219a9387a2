// toolkit.compile: nvcc end to end and a PyTorch extension built by PyTorch itself, each held to
// toolkit.build's prediction. See toolkit_compile.hpp for the flow.
#include "checks/toolkit_compile.hpp"

#include "checks/checks.hpp"
#include "checks/frameworks_run.hpp"
#include "cuda/gpu_code.hpp"
#include "engine/report_builder.hpp"
#include "gpu/cuda_runtime.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/json_read.hpp"
#include "util/path.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <unistd.h>

namespace cudacheck {

namespace {

constexpr MetricFamily compile_time{"toolkit_compile", "compile_time", Unit::ms,
                                    "Time nvcc took to build the test program."};
constexpr MetricFamily output_size{"toolkit_compile_output", "{artifact}_bytes", Unit::B,
                                   "Size of what nvcc wrote, by artifact."};
constexpr MetricFamily extension_time{"toolkit_compile_extension", "extension_time", Unit::ms,
                                      "Time the PyTorch extension build took."};

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The program nvcc builds: y = a*x + i over 2^20 unsigned integers (exact, so any wrong element
// counts), on each device named on the command line (all without one). One line per device.
constexpr std::string_view probe_source = R"CU(#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale_add(const unsigned* x, unsigned* y, unsigned n, unsigned a) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + i;
}

static int run_on(int device) {
    const unsigned n = 1u << 20, a = 2654435761u;
    std::vector<unsigned> x(n), y(n);
    for (unsigned i = 0; i < n; ++i) x[i] = (i * 40503u) ^ 0x9e3779b9u;
    unsigned* dx = nullptr;
    unsigned* dy = nullptr;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaMalloc(&dx, n * sizeof(unsigned));
    if (e == cudaSuccess) e = cudaMalloc(&dy, n * sizeof(unsigned));
    if (e == cudaSuccess) e = cudaMemcpy(dx, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        scale_add<<<(n + 255) / 256, 256>>>(dx, dy, n, a);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(y.data(), dy, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    if (e != cudaSuccess) {
        std::printf("device %d error %s: %s\n", device, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    unsigned wrong = 0;
    for (unsigned i = 0; i < n; ++i) wrong += y[i] != a * x[i] + i;
    std::printf("device %d %s %u\n", device, wrong == 0 ? "ok" : "wrong", wrong);
    return wrong == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        std::printf("devices error %s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    int failed = 0;
    if (argc > 1)
        for (int i = 1; i < argc; ++i) failed |= run_on(std::atoi(argv[i]));
    else
        for (int device = 0; device < count; ++device) failed |= run_on(device);
    return failed;
}
)CU";

constexpr std::string_view extension_marker = "CUDACHECK_EXTENSION ";

// PyTorch builds, imports and runs a one-kernel extension with its own builder
// (torch.utils.cpp_extension.load: ninja, the host compiler and nvcc, PyTorch's flags, the link
// against libtorch, libc10 and libcudart): the path every custom op, flash-attn JIT build and
// kernels library takes. argv[1] is the build directory (fresh, so the build is real).
//
// Two translation units, as a real extension has them, built in parallel by ninja:
//  - probe_binding.cpp, by the host compiler: torch/python.h (ATen, Python.h, pybind11 and
//    PyTorch's Tensor type casters) and PYBIND11_MODULE, the binding every Python-module extension
//    has. Not torch/extension.h, which adds torch/all.h (the C++ frontend: nn, optim, data, jit,
//    serialize) that a kernel binding does not use (docs/performance.md, "PyTorch extension
//    build", measures both).
//  - probe_kernel.cu, by nvcc: ATen/cuda/CUDAContext.h, which real extensions include for the
//    current stream (it brings c10's and ATen's core headers through nvcc's front end, and the
//    toolkit's cublas_v2.h, cublasLt.h, cusparse.h, cusolverDn.h), the kernel, and a launcher on raw
//    pointers on PyTorch's current stream. Not torch/types.h (all of ATen's operators), which
//    load_inline prepends and which made this file the slowest of the build.
// load, not load_inline: load_inline without use_pch deletes torch/include/torch/extension.h.gch
// from the user's PyTorch installation (remove_extension_h_precompiler_headers in
// torch/utils/cpp_extension.py), and with use_pch writes it there.
constexpr std::string_view extension_sources =
    "probe_binding.cpp with torch/python.h and PYBIND11_MODULE (host compiler), probe_kernel.cu with "
    "ATen/cuda/CUDAContext.h (nvcc), linked against libtorch, libc10, libtorch_python and libcudart; not "
    "compiled: torch/extension.h's C++ frontend (torch/all.h: nn, optim, data, jit) and ATen's operator "
    "declarations through nvcc";
constexpr std::string_view extension_script = R"PY(
import json, os, re, sys, time
start = time.time()
R = {"stage": "import", "ran": False, "correct": False}
BINDING = r"""#include <torch/python.h>

// Launches the kernel on PyTorch's current stream; nullptr when the launch worked, else CUDA's message.
const char* twice_plus_one_launch(const float* x, float* y, int n);

torch::Tensor twice_plus_one(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.is_contiguous(), "a contiguous float CUDA tensor");
    auto y = torch::empty_like(x);
    const char* error = twice_plus_one_launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(x.numel()));
    TORCH_CHECK(error == nullptr, "CUDA error: ", error);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("twice_plus_one", torch::wrap_pybind_function(twice_plus_one), "twice_plus_one");
}
"""
KERNEL = r"""#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

__global__ void twice_plus_one_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

const char* twice_plus_one_launch(const float* x, float* y, int n) {
    twice_plus_one_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x, y, n);
    // A launch without a kernel image for the GPU fails here, not at the next synchronisation.
    const cudaError_t launched = cudaGetLastError();
    return launched == cudaSuccess ? nullptr : cudaGetErrorString(launched);
}
"""
try:
    import torch
    from torch.utils.cpp_extension import load
    R["stage"] = "build"
    if torch.cuda.device_count() == 0 and not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        # PyTorch builds for the visible GPUs and, with none and no TORCH_CUDA_ARCH_LIST, stops with
        # "IndexError: list index out of range" (cpp_extension._get_cuda_arch_flags). Without a GPU
        # the build is for the oldest architecture this PyTorch was built for, which an nvcc of its
        # CUDA release knows (as the nvcc build takes the oldest nvcc lists).
        built = sorted((int(m.group(1)), m.group(2)) for m in
                       (re.fullmatch(r"sm_(\d+)([a-z]?)", arch) for arch in torch.cuda.get_arch_list()) if m)
        if built:
            number, suffix = built[0]
            R["arch_list"] = os.environ["TORCH_CUDA_ARCH_LIST"] = f"{number // 10}.{number % 10}{suffix}"
    directory = sys.argv[1]
    sources = []
    for name, text in (("probe_binding.cpp", BINDING), ("probe_kernel.cu", KERNEL)):
        sources.append(os.path.join(directory, name))
        with open(sources[-1], "w") as out:
            out.write(text)
    module = load(name="cudacheck_extension_probe", sources=sources, build_directory=directory, verbose=False)
    R["stage"] = "run"
    R["module_file"] = str(getattr(module, "__file__", "") or "")
    if torch.cuda.is_available():
        x = torch.arange(4096, dtype=torch.float32, device="cuda")
        y = module.twice_plus_one(x)
        torch.cuda.synchronize()
        R["ran"] = True
        R["correct"] = bool(torch.equal(y.cpu(), x.cpu() * 2 + 1))
    R["stage"] = "done"
except BaseException as error:
    R["error"] = (type(error).__name__ + ": " + str(error)).strip()[:16000]
R["seconds"] = time.time() - start
print("CUDACHECK_EXTENSION " + json.dumps(R), flush=True)
)PY";

// A directory of our own under TMPDIR, removed with everything in it at the end.
class ScratchDirectory {
public:
    ScratchDirectory() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cudacheck-compile-XXXXXX";
        if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
        else error_ = std::strerror(errno);
    }
    [[nodiscard]] const std::string& error() const { return error_; }
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;
    ~ScratchDirectory() {
        std::error_code ignored;
        if (!path_.empty()) fs::remove_all(path_, ignored);
    }
    [[nodiscard]] const std::string& path() const { return path_; }

private:
    std::string path_;
    std::string error_;
};

bool write_text(const std::string& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    return static_cast<bool>(out.flush());
}

std::vector<CompileStage> stages_in(const std::string& keep, const std::string& executable) {
    std::vector<CompileStage> stages;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(keep, error)) {
        const std::string name = entry.path().filename().string();
        std::string kind;
        if (name.ends_with(".ptx")) kind = "PTX";
        else if (name.ends_with(".cubin")) kind = "cubin";
        else if (name.ends_with(".fatbin")) kind = "fatbinary";
        else if (name.ends_with(".o") && !name.starts_with("a_dlink")) kind = "host object";
        if (kind.empty()) continue;
        std::error_code size_error;
        stages.push_back({kind, name, static_cast<std::uint64_t>(fs::file_size(entry.path(), size_error))});
    }
    std::error_code size_error;
    if (fs::exists(executable))
        stages.push_back({"executable", fs::path(executable).filename().string(),
                          static_cast<std::uint64_t>(fs::file_size(executable, size_error))});
    const auto order = [](const std::string& kind) {
        static const std::vector<std::string> kinds = {"PTX", "cubin", "fatbinary", "host object", "executable"};
        return std::find(kinds.begin(), kinds.end(), kind) - kinds.begin();
    };
    std::sort(stages.begin(), stages.end(), [&](const CompileStage& a, const CompileStage& b) {
        return std::pair{order(a.kind), a.file} < std::pair{order(b.kind), b.file};
    });
    return stages;
}

std::string first_lines(std::string_view text, std::size_t count) {
    std::vector<std::string> lines;
    for (const std::string& line : sys::split(text, '\n'))
        if (!sys::trim(line).empty() && lines.size() < count) lines.emplace_back(sys::trim(line));
    return fmt::format("{}", fmt::join(lines, " | "));
}

std::string codes_of(const std::vector<const BuildProblem*>& problems) {
    std::vector<std::string> codes;
    for (const BuildProblem* problem : problems) {
        const std::string code(code_string(problem->code));
        if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
    }
    return fmt::format("{}", fmt::join(codes, ", "));
}

}  // namespace

std::optional<ExtensionBuild> parse_extension_result(std::string_view output) {
    const std::size_t at = output.rfind(extension_marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view line = output.substr(at + extension_marker.size());
    line = line.substr(0, line.find('\n'));
    const ordered_json document = ordered_json::parse(line, nullptr, false);
    if (!document.is_object()) return std::nullopt;
    ExtensionBuild build;
    build.attempted = true;
    build.started = true;
    build.stage = document.value("stage", std::string());
    build.ran = document.value("ran", false);
    build.correct = document.value("correct", false);
    build.error = document.value("error", std::string());
    build.seconds = document.value("seconds", 0.0);
    build.module_file = document.value("module_file", std::string());
    build.arch_list = document.value("arch_list", std::string());
    return build;
}

// "an object file", "a shared library", "PTX": a file kind in a sentence.
static std::string kind_in_words(const std::optional<FileKind>& kind) {
    if (!kind) return "a file of unknown kind";
    const std::string_view name = to_string(*kind);
    if (*kind == FileKind::ptx) return std::string(name);
    return fmt::format("{} {}", name.starts_with('o') || name.starts_with('e') ? "an" : "a", name);
}

std::vector<std::string> missing_code(const std::string& keep_directory, const std::string& executable,
                                      const std::vector<int>& sass, int ptx, std::string_view kernel) {
    // The cubins and PTX of the program (the device-link step's own cubin, *_dlink.*, has no kernel).
    std::set<int> cubins;
    std::set<int> ptx_with_kernel;
    std::vector<std::string> problems;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(keep_directory, error)) {
        const std::string name = entry.path().filename().string();
        if (name.find("_dlink") != std::string::npos || !(name.ends_with(".cubin") || name.ends_with(".ptx"))) continue;
        const GpuCodeScan scan = inspect_file(entry.path().string());
        if (scan.error != ScanError::none || scan.objects.empty()) {
            problems.push_back(fmt::format("{} cannot be read back: {}", sys::printable(name), scan.error_message));
            continue;
        }
        const CodeObject& object = scan.objects.front();
        if (name.ends_with(".cubin") && scan.kind == FileKind::cubin) {
            cubins.insert(object.arch.number);
        } else if (name.ends_with(".ptx") && scan.kind == FileKind::ptx) {
            // The kernel's entry: `.visible .entry _Z9scale_addPKjPjjj(` (the PTX ISA, "Kernel Function Declarations").
            const std::optional<std::string> text = sys::read_file(entry.path().string(), 16u << 20);
            bool found = false;
            for (std::size_t at = text ? text->find(".entry") : std::string::npos; at != std::string::npos && !found;
                 at = text->find(".entry", at + 6)) {
                const std::size_t end = text->find_first_of("(\n", at);
                found = text->substr(at, end == std::string::npos ? std::string::npos : end - at).find(kernel) !=
                        std::string::npos;
            }
            if (found) ptx_with_kernel.insert(object.arch.number);
            else problems.push_back(fmt::format("{} has no .entry for the kernel {}", sys::printable(name), kernel));
        } else {
            problems.push_back(
                fmt::format("{} is {}, not what its name says", sys::printable(name), kind_in_words(scan.kind)));
        }
    }
    for (const int number : sass)
        if (!cubins.contains(number)) problems.push_back(fmt::format("no sm_{} cubin", number));
    if (!ptx_with_kernel.contains(ptx)) problems.push_back(fmt::format("no PTX for compute_{} with the kernel", ptx));
    // The executable, with that code embedded.
    const std::string name = fs::path(executable).filename().string();
    if (!sys::exists(executable)) {
        problems.push_back(fmt::format("no executable {}", name));
        return problems;
    }
    const GpuCodeScan scan = inspect_file(executable);
    if (scan.error != ScanError::none && !scan.kind) {
        problems.push_back(fmt::format("{} is not an executable: {}", name, scan.error_message));
        return problems;
    }
    if (scan.kind != FileKind::executable) {
        problems.push_back(fmt::format("{} is {}, not an executable", sys::printable(name), kind_in_words(scan.kind)));
        return problems;
    }
    std::set<int> embedded_sass;
    std::set<int> embedded_ptx;
    for (const CodeObject& object : scan.objects)
        (object.kind == CodeKind::sass ? embedded_sass : embedded_ptx).insert(object.arch.number);
    for (const int number : sass)
        if (!embedded_sass.contains(number)) problems.push_back(fmt::format("{} carries no sm_{} SASS", name, number));
    if (!embedded_ptx.contains(ptx)) problems.push_back(fmt::format("{} carries no compute_{} PTX", name, ptx));
    return problems;
}

namespace {

// A finding's message is a headline; the compiler's or PyTorch's own words that it quotes are
// evidence under its code and subject (shown by -v and in the JSON report).
void add_headlined(ResultBuilder& result, Finding finding) {
    if (std::string head = sys::lead(finding.message, sys::max_headline); head != finding.message) {
        result.evidence(finding.subject ? finding.code + " " + *finding.subject : finding.code, finding.message);
        finding.message = std::move(head);
    }
    result.add(std::move(finding));
}

// The nvcc build of the one-kernel program and its run on each GPU, against what toolkit.build
// predicted (`stops_nvcc`: the problems it said stop nvcc).
void judge_nvcc_build(const CompileOutcome& outcome, const std::vector<const BuildProblem*>& stops_nvcc,
                      ResultBuilder& result, std::vector<std::string>& summary) {
    const auto add = [&result](Finding finding) { add_headlined(result, std::move(finding)); };
    if (outcome.nvcc.empty()) {
        result.evidence("nvcc_build", "not attempted: no nvcc in the toolkit builds take (toolkit.build says why)");
    } else if (!outcome.not_run.empty()) {
        result.evidence("nvcc_build", "not run: " + outcome.not_run);
        summary.push_back("nvcc build not run");
    } else {
        result.evidence("nvcc_command", fmt::format("{}", fmt::join(outcome.command, " ")));
        for (const CompileStage& stage : outcome.stages)
            result.evidence("stage", fmt::format("{}: {} ({} bytes)", stage.kind, stage.file, stage.bytes));
        const bool compiled = outcome.started && !outcome.timed_out && outcome.exit_status == 0;
        result.metric(compile_time, outcome.compile_ms);
        const std::string predicted =
            stops_nvcc.empty() ? std::string() : fmt::format(" (toolkit.build predicted it: {})", codes_of(stops_nvcc));
        if (!compiled) {
            // Killed at its limit: named, with the host compiler it runs (which may be what hangs), not
            // left to the check's own limit.
            const std::string killed =
                fmt::format("`{}` did not finish within {} s and was killed{}", sys::printable(outcome.nvcc),
                            outcome.time_limit_s,
                            outcome.host_compiler.empty() ? std::string()
                                                          : fmt::format(" (it runs the host compiler {})",
                                                                        sys::printable(outcome.host_compiler)));
            const CompileError error =
                outcome.timed_out ? CompileError{Code::compile_failed, killed}
                : !outcome.started
                    ? CompileError{outcome.output.starts_with("cannot create") ? Code::build_tmpdir_unusable
                                                                               : Code::compile_failed,
                                   outcome.output.starts_with("cannot create")
                                       ? outcome.output
                                       : "nvcc could not be started: " + outcome.output}
                    : classify_compile_error(outcome.output);
            const std::string line = error.line.empty() ? first_lines(outcome.output, 2) : error.line;
            Finding finding = make_finding(error.code, fmt::format("nvcc failed to build a one-kernel program: {}{}",
                                                                   line, predicted));
            if (error.code == Code::build_tmpdir_unusable) {
                const TemporaryDirectory& temporary = outcome.temporary;
                const std::string where = temporary.source == "TMPDIR"
                                              ? fmt::format("TMPDIR={}", sys::printable(temporary.path))
                                              : temporary.source;
                finding.message += fmt::format(" (nvcc writes its intermediate files to {}{})", where,
                                               temporary.problem.empty() ? "" : ", and " + temporary.problem);
                finding.remediation = temporary.source == "TMPDIR"
                                          ? "Point TMPDIR at a writable directory with room (`mkdir -p $HOME/tmp && "
                                            "export TMPDIR=$HOME/tmp`), or `unset TMPDIR` (nvcc then uses /tmp)."
                                          : "Make /tmp a writable directory with room, or point TMPDIR at one: `mkdir "
                                            "-p $HOME/tmp && export TMPDIR=$HOME/tmp`.";
            }
            add(std::move(finding));
            if (stops_nvcc.empty() && !outcome.timed_out)  // a hang is reported as one, not as a wrong prediction
                add(make_finding(Code::build_prediction_mismatch,
                                 fmt::format("toolkit.build predicted that nvcc builds work, but nvcc failed: {}",
                                             error.line.empty() ? first_lines(outcome.output, 2) : error.line)));
            summary.push_back("nvcc build failed");
        } else if (!outcome.missing_code.empty()) {
            // nvcc said it succeeded; what it was asked to build is not there (flags can make it stop early).
            std::vector<std::string> variables;
            for (const auto& [variable, value] : outcome.nvcc_flag_variables)
                variables.push_back(fmt::format("{}=\"{}\"", variable, sys::printable(value)));
            std::vector<std::string> shown(outcome.missing_code.begin(),
                                           outcome.missing_code.begin() +
                                               std::min<std::ptrdiff_t>(std::ssize(outcome.missing_code), 4));
            Finding finding =
                make_finding(Code::nvcc_built_nothing,
                             fmt::format("nvcc exited 0 after {:.2f} s, but did not build the program: {}{}{}",
                                         outcome.compile_ms / 1000.0, fmt::join(shown, "; "),
                                         variables.empty()
                                             ? std::string()
                                             : fmt::format("; {} is set, and nvcc adds it to every command line",
                                                           fmt::join(variables, " and ")),
                                         predicted));
            finding.remediation = variables.empty() ? fmt::format(
                                                          "The nvcc that ran ({}) is not NVIDIA's compiler driver or "
                                                          "is damaged: reinstall the toolkit's nvcc, or put the "
                                                          "toolkit's bin directory first on PATH.",
                                                          sys::printable(outcome.nvcc))
                                                    : fmt::format(
                                                          "Remove the option that stops the build from {} (`unset {}` "
                                                          "when nothing else in it is needed).",
                                                          outcome.nvcc_flag_variables.front().first,
                                                          outcome.nvcc_flag_variables.front().first);
            add(std::move(finding));
            if (stops_nvcc.empty())
                add(make_finding(Code::build_prediction_mismatch, fmt::format("toolkit.build predicted that nvcc "
                                                                              "builds work, but nvcc built nothing: {}",
                                                                              fmt::join(shown, "; "))));
            summary.push_back("nvcc reported success but built nothing");
        } else {
            if (!stops_nvcc.empty())
                add(make_finding(Code::build_prediction_mismatch,
                                 fmt::format("toolkit.build predicted that nvcc builds fail ({}), but nvcc built the "
                                             "program",
                                             codes_of(stops_nvcc))));
            std::uint64_t ptx = 0, cubin = 0, fatbin = 0, executable = 0;
            for (const CompileStage& stage : outcome.stages) {
                if (stage.kind == "PTX") ptx += stage.bytes;
                else if (stage.kind == "cubin") cubin += stage.bytes;
                else if (stage.kind == "fatbinary") fatbin += stage.bytes;
                else if (stage.kind == "executable") executable = stage.bytes;
            }
            result.metric(output_size, static_cast<double>(ptx), {{"artifact", "ptx"}});
            result.metric(output_size, static_cast<double>(cubin), {{"artifact", "cubin"}});
            result.metric(output_size, static_cast<double>(fatbin), {{"artifact", "fatbinary"}});
            result.metric(output_size, static_cast<double>(executable), {{"artifact", "executable"}});
            result.evidence("built", fmt::format("PTX {} B, cubin {} B, fatbinary {} B", ptx, cubin, fatbin));
            std::string built = fmt::format("nvcc built it in {:.2f} s", outcome.compile_ms / 1000.0);
            // What the executable carries, read back as `cudacheck inspect` reads it.
            if (outcome.embedded) {
                std::vector<std::string> targets;  // the device-link step adds a cubin of its own: each target once
                const auto add_target = [&](std::string target) {
                    if (std::find(targets.begin(), targets.end(), target) == targets.end())
                        targets.push_back(std::move(target));
                };
                for (const GpuArch& arch : outcome.embedded->sass) add_target(arch.sass_name() + " SASS");
                for (const GpuArch& arch : outcome.embedded->ptx) add_target(arch.virtual_name() + " PTX");
                result.evidence("embedded", fmt::format("{}", fmt::join(targets, ", ")));
                for (const DeviceInfo& device : outcome.devices) {
                    const ImageVerdict verdict = kernel_image_for(*outcome.embedded, device.cc_major, device.cc_minor);
                    result.evidence("gpu_code", fmt::format("GPU {} (sm_{}{}): {}", device.ordinal, device.cc_major,
                                                            device.cc_minor, verdict.describe()));
                }
            } else if (!outcome.inspect_problem.empty()) {
                result.evidence("embedded", "not read: " + outcome.inspect_problem);
            }
            // The run on each GPU.
            const CompiledRun& run = outcome.run;
            if (!run.attempted) {
                result.evidence("run", "not run: " + run.skipped);
                built += "; not run on a GPU";
            } else if (!run.started || run.timed_out || run.exit_status != 0) {
                const std::string what = !run.started    ? run.output
                                         : run.timed_out ? "it did not finish within 30 s and was killed"
                                                         : first_lines(run.output, 3);
                add(make_finding(Code::compiled_program_failed,
                                 fmt::format("the program nvcc built here failed on the GPU: {}", what)));
                built += "; it failed on the GPU";
            } else {
                result.evidence("run", first_lines(run.output, 16));
                built += fmt::format("; ran correctly on {} GPU{}", outcome.devices.size(),
                                     outcome.devices.size() == 1 ? "" : "s");
            }
            summary.push_back(built);
        }
    }
}

// PyTorch's build (torch.utils.cpp_extension.load) of a one-kernel extension, against what toolkit.build predicted for
// PyTorch's side (`stops_jit`: it does not build; `kernels_fail`: its kernels do not run).
void judge_extension_build(const ExtensionBuild& extension, const std::vector<const BuildProblem*>& stops_jit,
                           const std::vector<const BuildProblem*>& kernels_fail, ResultBuilder& result,
                           std::vector<std::string>& summary) {
    const auto add = [&result](Finding finding) { add_headlined(result, std::move(finding)); };
    if (!extension.attempted) {
        if (!extension.skipped.empty()) result.evidence("extension", "not built: " + extension.skipped);
    } else {
        result.evidence("extension_subject", extension.subject);
        // What the probe compiles, and what of a typical extension it leaves out.
        result.evidence("extension_sources", std::string(extension_sources));
        if (!extension.arch_list.empty())
            result.evidence("extension_arch_list",
                            fmt::format("TORCH_CUDA_ARCH_LIST={} for the build: no GPU is visible to PyTorch, and "
                                        "without one PyTorch's builder stops with \"IndexError: list index out of "
                                        "range\" (this PyTorch's oldest architecture)",
                                        extension.arch_list));
        const bool built =
            extension.started && !extension.timed_out && (extension.stage == "run" || extension.stage == "done");
        const bool kernels_ran = extension.stage == "done" && (!extension.ran || extension.correct);
        result.metric(extension_time, extension.seconds * 1000.0);
        if (!built) {
            // A failed ninja build's message is its command lines first; the compiler's own error says why.
            const CompileError cause = classify_compile_error(extension.error);
            const std::string why =
                extension.timed_out
                    ? fmt::format("`{} -c <extension build script>` did not finish within 100 s and was killed",
                                  sys::printable(extension.interpreter))
                : !extension.started      ? extension.output_tail
                : extension.error.empty() ? extension.output_tail
                : extension.error.find("Error building extension") != std::string::npos && !cause.line.empty()
                    ? "Error building extension: " + cause.line
                    : first_lines(extension.error, 2);
            const std::string predicted = stops_jit.empty()
                                              ? std::string()
                                              : fmt::format(" (toolkit.build predicted it: {})", codes_of(stops_jit));
            Finding finding =
                make_finding(Code::extension_build_failed, fmt::format("PyTorch's cpp_extension.load could not build a "
                                                                       "one-kernel extension ({}): {}{}",
                                                                       extension.stage, why, predicted));
            finding.subject = extension.subject;
            add(std::move(finding));
            if (stops_jit.empty() && !extension.timed_out)
                add(make_finding(Code::build_prediction_mismatch,
                                 fmt::format("toolkit.build predicted that PyTorch extension builds work, but "
                                             "cpp_extension.load failed: {}",
                                             why)));
            summary.push_back("PyTorch extension build failed");
        } else {
            // No GPU ran its kernel: the module read back is what says it was built (a success alone
            // may have built nothing).
            const bool empty_module = kernels_ran && !extension.ran && !extension.module_problem.empty();
            if (!stops_jit.empty() && !empty_module)
                add(make_finding(Code::build_prediction_mismatch,
                                 fmt::format("toolkit.build predicted that PyTorch extension builds fail ({}), but "
                                             "cpp_extension.load built one",
                                             codes_of(stops_jit))));
            if (empty_module) {
                const std::string predicted =
                    stops_jit.empty() ? std::string()
                                      : fmt::format(" (toolkit.build predicted it: {})", codes_of(stops_jit));
                Finding finding = make_finding(Code::nvcc_built_nothing,
                                               fmt::format("PyTorch's cpp_extension.load reported success, but "
                                                           "the module it built carries no GPU code: {}{}",
                                                           extension.module_problem, predicted));
                finding.subject = extension.subject;
                add(std::move(finding));
                if (stops_jit.empty())
                    add(make_finding(Code::build_prediction_mismatch,
                                     fmt::format("toolkit.build predicted that PyTorch extension builds work, but "
                                                 "cpp_extension.load built no GPU code: {}",
                                                 extension.module_problem)));
                summary.push_back("PyTorch extension built without GPU code");
            } else if (!kernels_ran) {
                const std::string predicted =
                    kernels_fail.empty() ? std::string()
                                         : fmt::format(" (toolkit.build predicted it: {})", codes_of(kernels_fail));
                Finding finding =
                    make_finding(Code::extension_build_failed,
                                 fmt::format("PyTorch built the extension, but its kernel {} on the GPU: {}{}",
                                             extension.stage == "done" ? "computed a wrong result" : "failed",
                                             first_lines(extension.error, 2), predicted));
                finding.subject = extension.subject;
                add(std::move(finding));
                if (kernels_fail.empty())
                    add(make_finding(Code::build_prediction_mismatch,
                                     fmt::format("toolkit.build predicted that the extension's kernels run here, but "
                                                 "they did not: {}",
                                                 first_lines(extension.error, 2))));
                summary.push_back("PyTorch extension built, its kernel failed");
            } else {
                if (!kernels_fail.empty() && extension.ran)
                    add(make_finding(Code::build_prediction_mismatch,
                                     fmt::format("toolkit.build predicted that the extension's kernels fail here ({}), "
                                                 "but they ran",
                                                 codes_of(kernels_fail))));
                summary.push_back(fmt::format("PyTorch built and {} a one-kernel extension in {:.1f} s",
                                              extension.ran ? "ran" : "imported", extension.seconds));
            }
        }
    }
}

}  // namespace

void judge_compile(const CompileOutcome& outcome, const BuildPrediction& prediction, ResultBuilder& result) {
    std::vector<const BuildProblem*> stops_nvcc;
    std::vector<const BuildProblem*> stops_jit;
    std::vector<const BuildProblem*> kernels_fail;
    for (const BuildProblem& problem : prediction.problems) {
        const bool torch_side = !problem.subject || problem.subject == outcome.extension.subject;
        // Without a GPU the probe build names its own TORCH_CUDA_ARCH_LIST (its evidence says so), so
        // the prediction that builds without one stop (CC318, about the user's builds) is not its.
        const bool own_arch_list =
            problem.code == Code::torch_arch_list_unset_without_gpu && !outcome.extension.arch_list.empty();
        if (problem.stops_nvcc) stops_nvcc.push_back(&problem);
        if (problem.stops_torch_jit && torch_side && !own_arch_list) stops_jit.push_back(&problem);
        if (problem.kernels_fail && torch_side) kernels_fail.push_back(&problem);
    }
    std::vector<std::string> summary;

    judge_nvcc_build(outcome, stops_nvcc, result, summary);
    judge_extension_build(outcome.extension, stops_jit, kernels_fail, result, summary);
    result.summary(summary.empty() ? std::string("nothing to build with")
                                   : fmt::format("{}", fmt::join(summary, "; ")));
}

namespace {

// PyTorch's build of the probe extension, run in the background: it takes tens of seconds (the host
// compiler and nvcc compiling PyTorch's headers), the rest of this check a few, so it starts as soon
// as the check does, before the check waits for the build setup, the driver and the
// devices, none of which it needs.
class ExtensionTask {
public:
    // Starts it once a scratch directory exists: for the first CUDA build of PyTorch found, in the
    // order build_judge_input (toolkit_build.cpp) lists them for toolkit.build's prediction.
    void start(Probes& probes, const ScratchDirectory& scratch) {
        if (decided_ || scratch.path().empty()) return;
        decided_ = true;
        const auto first_cuda_torch = [&]() -> std::pair<const EnvironmentFacts*, const FrameworkFacts*> {
            for (const EnvironmentFacts& environment : probes.python().environments)
                for (const FrameworkFacts& framework : environment.frameworks)
                    if (framework.build.framework == "PyTorch" && framework.build.accelerator == Accelerator::cuda &&
                        framework.build.cuda)
                        return {&environment, &framework};
            return {nullptr, nullptr};
        };
        const auto [environment, framework] = first_cuda_torch();
        if (environment == nullptr) {
            build_.skipped = "no CUDA build of PyTorch is installed";
            return;
        }
        if (environment->environment.interpreter.empty()) {
            build_.skipped = framework_subject(*environment, *framework) + " has no interpreter";
            return;
        }
        build_.attempted = true;
        build_.subject = framework_subject(*environment, *framework);
        build_.interpreter = environment->environment.interpreter;
        const std::string directory = scratch.path() + "/extension";
        std::error_code ignored;
        fs::create_directory(directory, ignored);
        running_ = std::async(std::launch::async, [build = build_, directory] { return run(build, directory); });
    }
    // Waits for it; what was decided without running it otherwise.
    [[nodiscard]] ExtensionBuild result() { return running_.valid() ? running_.get() : build_; }

private:
    static ExtensionBuild run(ExtensionBuild build, const std::string& directory) {
        const trace::Span span("toolkit.compile: PyTorch extension build");
        const sys::CommandResult run =
            sys::run_command({build.interpreter, "-c", std::string(extension_script), directory}, 100s);
        build.started = run.started;
        build.timed_out = run.timed_out;
        const std::optional<ExtensionBuild> parsed =
            run.started && !run.timed_out ? parse_extension_result(run.output) : std::nullopt;
        if (!parsed) {
            build.output_tail = run.started ? tail_lines(run.output, 3) : run.error;
            return build;
        }
        build.stage = parsed->stage;
        build.ran = parsed->ran;
        build.correct = parsed->correct;
        build.error = parsed->error;
        build.seconds = parsed->seconds;
        build.module_file = parsed->module_file;
        build.arch_list = parsed->arch_list;
        // The module PyTorch says it built, read back as `cudacheck inspect` reads it: a success alone
        // may have built no GPU code.
        if (build.stage == "run" || build.stage == "done") {
            const GpuCodeScan scan = build.module_file.empty() ? GpuCodeScan{} : inspect_file(build.module_file);
            if (build.module_file.empty()) build.module_problem = "PyTorch named no module file";
            else if (scan.error != ScanError::none)
                build.module_problem = fmt::format("{}: {}", sys::printable(build.module_file), scan.error_message);
            else if (std::none_of(scan.objects.begin(), scan.objects.end(),
                                  [](const CodeObject& object) { return object.kind != CodeKind::lto_ir; }))
                build.module_problem = fmt::format("{} has no SASS or PTX", sys::printable(build.module_file));
        }
        return build;
    }

    bool decided_ = false;
    ExtensionBuild build_;
    std::future<ExtensionBuild> running_;
};

CompileOutcome compile_and_run(CheckContext& context, const BuildJudgeInput& input, const ScratchDirectory& scratch,
                               ExtensionTask& extension) {
    CompileOutcome outcome;
    outcome.devices = input.devices;
    if (!context.devices.empty()) {
        std::vector<DeviceInfo> selected;
        for (const DeviceInfo& device : input.devices)
            if (std::find(context.devices.begin(), context.devices.end(), device.ordinal) != context.devices.end())
                selected.push_back(device);
        outcome.devices = selected;
    }
    const BuildSetup& setup = input.setup;
    outcome.temporary = setup.temporary;
    outcome.nvcc_flag_variables = setup.nvcc_flags.variables;
    outcome.host_compiler = setup.nvcc_host_compiler.path;
    if (scratch.path().empty()) {
        // Where nvcc would write its own files too: a finding about TMPDIR, not a prediction error.
        outcome.nvcc = setup.files.nvcc;
        const std::string where = setup.temporary.source == "TMPDIR"
                                      ? fmt::format("TMPDIR={}", sys::printable(setup.temporary.path))
                                      : setup.temporary.source;
        outcome.output = fmt::format("cannot create a directory under {}: {}", where, scratch.error());
        return outcome;
    }
    const std::string source = scratch.path() + "/probe.cu";
    const std::string keep = scratch.path() + "/keep";
    const std::string executable = scratch.path() + "/probe";
    std::error_code ignored;
    fs::create_directory(keep, ignored);
    // Started when the check started, unless no toolkit was found then (it runs beside nvcc's build).
    extension.start(context.probes, scratch);

    // nvcc, or its host compiler, that would hang this build too is not run: toolkit.build's finding
    // names it (build/compile_plan).
    const NvccBuildPlan plan = plan_nvcc_build(setup, outcome.devices);
    if (!plan.nvcc.empty() && !plan.not_run.empty()) {
        outcome.nvcc = plan.nvcc;
        outcome.not_run = plan.not_run;
    } else if (!plan.nvcc.empty() && write_text(source, probe_source)) {
        outcome.nvcc = plan.nvcc;
        outcome.command = {plan.nvcc, "-keep", "-keep-dir", keep, "-o", executable, source};
        for (const std::string& flag : plan.gencode) outcome.command.push_back(flag);
        const std::vector<int>& sass = plan.sass;
        const int ptx = plan.ptx;
        const auto start = std::chrono::steady_clock::now();
        const sys::CommandResult run = sys::run_command(outcome.command, std::chrono::seconds(outcome.time_limit_s));
        outcome.compile_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        outcome.started = run.started;
        outcome.timed_out = run.timed_out;
        outcome.exit_status = run.exit_status;
        outcome.output = run.started ? run.output : run.error;
        outcome.stages = stages_in(keep, executable);
        if (outcome.exit_status == 0 && run.started && !run.timed_out)
            outcome.missing_code = missing_code(keep, executable, sass, ptx, "scale_add");
        if (outcome.exit_status == 0 && run.started && !run.timed_out && outcome.missing_code.empty()) {
            const GpuCodeScan scan = inspect_file(executable);
            if (scan.error != ScanError::none) outcome.inspect_problem = scan.error_message;
            else {
                EmbeddedTargets targets;
                for (const CodeObject& object : scan.objects) {
                    if (object.kind == CodeKind::sass) targets.sass.push_back(object.arch);
                    else if (object.kind == CodeKind::ptx) targets.ptx.push_back(object.arch);
                }
                outcome.embedded = targets;
            }
            if (outcome.devices.empty()) {
                outcome.run.skipped = "no GPU is visible (driver.libcuda and cuda.devices say why)";
            } else {
                outcome.run.attempted = true;
                std::vector<std::string> argv = {executable};
                std::vector<int> ordinals;
                for (const DeviceInfo& device : outcome.devices) {
                    argv.push_back(std::to_string(device.ordinal));
                    ordinals.push_back(device.ordinal);
                }
                // Its kernels run in its own process: the GPUs' shared locks keep timed sections of
                // other checks from running beside them (as frameworks.run does).
                const gpu::DevicesWork beside_timed_work(ordinals);
                const sys::CommandResult ran = sys::run_command(argv, 30s);
                outcome.run.started = ran.started;
                outcome.run.timed_out = ran.timed_out;
                outcome.run.exit_status = ran.exit_status;
                outcome.run.output = ran.started ? ran.output : ran.error;
            }
        }
    }
    outcome.extension = extension.result();
    return outcome;
}

}  // namespace

std::unique_ptr<Check> make_toolkit_compile_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "toolkit.compile",
                  .title = "CUDA build, for real",
                  .description =
                      "Builds and runs a one-kernel program with the nvcc and host compiler a build would use (SASS "
                      "for each GPU plus PTX, "
                      "stages kept), and a PyTorch extension (cpp_extension.load); both held to toolkit.build's "
                      "prediction",
                  .min_level = Level::full,
                  .raises = {Code::compile_failed, Code::compiled_program_failed, Code::extension_build_failed,
                             Code::build_prediction_mismatch, Code::host_compiler_unsupported,
                             Code::host_compiler_missing, Code::build_toolkit_incomplete, Code::nvcc_arch_unsupported,
                             Code::nvcc_built_nothing, Code::build_tmpdir_unusable, Code::host_compiler_unusable},
                  .answers =
                      "at `--level full`: the compile flow for real with the nvcc and host compiler a build "
                      "would use: a one-kernel program "
                      "with `-gencode` for each visible GPU plus PTX, its stages (PTX, cubin, fatbinary) kept "
                      "and measured, linked, run and "
                      "verified on each GPU, its GPU code read back; with PyTorch, a `cpp_extension.load` extension "
                      "built, imported and run by "
                      "PyTorch itself; both held to `toolkit.build`'s prediction"},
        [](CheckContext& context, ResultBuilder& result) {
            // PyTorch's build first, when a toolkit is there to build with (without one the check is
            // skipped): build_judge_input waits for the build setup, cuInit and the devices.
            const ScratchDirectory scratch;
            ExtensionTask extension;
            if (!context.probes.toolkits().toolkits.empty()) extension.start(context.probes, scratch);
            const BuildJudgeInput input = [&] {
                const trace::Span waiting("toolkit.compile: build setup, driver, devices");
                return build_judge_input(context.probes, context.environment);
            }();
            const BuildPrediction prediction = predict_builds(input);
            if (prediction.skip) {
                result.skip(*prediction.skip);
                return;
            }
            judge_compile(compile_and_run(context, input, scratch, extension), prediction, result);
        });
}

const CheckRegistration toolkit_compile_registration{630, make_toolkit_compile_check};

}  // namespace cudacheck
