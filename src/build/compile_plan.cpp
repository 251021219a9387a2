// What toolkit.compile builds with nvcc and how it reads nvcc's answer (see compile_plan.hpp).
#include "build/compile_plan.hpp"

#include "cuda/arch_coverage.hpp"
#include "util/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace cudacheck {

NvccBuildPlan plan_nvcc_build(const BuildSetup& setup, const std::vector<DeviceInfo>& devices) {
    NvccBuildPlan plan;
    plan.nvcc = setup.files.nvcc;
    if (plan.nvcc.empty()) return plan;
    // nvcc, or its host compiler, that did not answer toolkit.build's questions within their limits
    // would hang this build too: it is not run, and toolkit.build's finding names it.
    if (setup.nvcc_timed_out) {
        plan.not_run = fmt::format("`{} --version` did not finish within its limit (toolkit.build: CC306)",
                                   sys::printable(setup.files.nvcc));
        return plan;
    }
    if (setup.nvcc_host_compiler.unusable.find("did not finish") != std::string::npos) {
        plan.not_run = fmt::format("its host compiler {} did not answer within its limit (toolkit.build: CC336)",
                                   sys::printable(setup.nvcc_host_compiler.path));
        return plan;
    }
    if (setup.temporary.source == "TMPDIR" && setup.temporary.path.empty()) {
        // nvcc 13.0 then writes its tmpxft_* files at / and leaves them there (measured as root, where
        // a -keep build even succeeds while a plain one fails): not run, toolkit.build's finding says why.
        plan.not_run =
            "TMPDIR is set but empty, and nvcc would write its intermediate files at / (toolkit.build: CC335)";
        return plan;
    }
    plan.gencode = gencode_for(devices, setup.nvcc_architectures);
    for (const std::string& flag : plan.gencode) {
        const std::size_t code = flag.find(",code=");
        if (code == std::string::npos) continue;
        const std::optional<GpuArch> arch = parse_gpu_arch(std::string_view(flag).substr(code + 6));
        if (!arch) continue;
        if (flag.find(",code=sm_") != std::string::npos) plan.sass.push_back(arch->number);
        else plan.ptx = arch->number;
    }
    return plan;
}

CompileError classify_compile_error(std::string_view output) {
    const std::vector<std::string> lines = sys::split(output, '\n');
    const auto is_error = [](const std::string& line) {
        return line.find("error") != std::string::npos || line.find("fatal") != std::string::npos ||
               line.find("not found") != std::string::npos || line.find("cannot find") != std::string::npos ||
               line.find("No space left on device") != std::string::npos;
    };
    CompileError error;
    for (const std::string& raw : lines) {
        const std::string line(sys::trim(raw));
        if (line.empty() || !is_error(line) || line.starts_with("In file included")) continue;
        if (error.line.empty()) error.line = line;
        // The specific causes, wherever they appear among the messages.
        // nvcc's own temporary files (tmpxft_*, in TMPDIR), or a disk that is full: not the code's fault.
        if (line.find("tmpxft_") != std::string::npos || line.find("No space left on device") != std::string::npos)
            return {Code::build_tmpdir_unusable, line};
        // nvcc 13.0's answer when its host compiler, asked for its properties, gives none (/bin/true).
        if (line.find("Host compiler targets unsupported OS") != std::string::npos)
            return {Code::host_compiler_unusable, line};
        if (line.find("unsupported GNU version") != std::string::npos ||
            line.find("unsupported clang version") != std::string::npos ||
            line.find("unsupported host compiler") != std::string::npos)
            return {Code::host_compiler_unsupported, line};
        if (line.find("Unsupported gpu architecture") != std::string::npos || line.find("Value '") != std::string::npos)
            return {Code::nvcc_arch_unsupported, line};
        if (line.find("cuda_runtime.h") != std::string::npos || line.find("cannot find -lcudart") != std::string::npos)
            return {Code::build_toolkit_incomplete, line};
        if (line.find("Failed to preprocess host compiler properties") != std::string::npos ||
            (line.find("not found") != std::string::npos &&
             (line.find("gcc") != std::string::npos || line.find("g++") != std::string::npos ||
              line.find("cc1plus") != std::string::npos || line.find("clang") != std::string::npos)))
            return {Code::host_compiler_missing, line};
    }
    return error;
}

std::vector<std::string> gencode_for(const std::vector<DeviceInfo>& devices,
                                     const std::vector<std::string>& nvcc_architectures) {
    std::set<int> numbers;
    for (const DeviceInfo& device : devices) numbers.insert(device.cc_major * 10 + device.cc_minor);
    if (numbers.empty()) {
        std::optional<int> oldest;
        for (const std::string& architecture : nvcc_architectures)
            if (const std::optional<GpuArch> arch = parse_gpu_arch(architecture);
                arch && arch->variant == ArchVariant::generic)
                oldest = std::min(oldest.value_or(arch->number), arch->number);
        numbers.insert(oldest.value_or(75));
    }
    std::vector<std::string> flags;
    for (const int number : numbers) flags.push_back(fmt::format("-gencode=arch=compute_{0},code=sm_{0}", number));
    flags.push_back(fmt::format("-gencode=arch=compute_{0},code=compute_{0}", *numbers.rbegin()));
    return flags;
}

}  // namespace cudacheck
