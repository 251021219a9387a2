// TORCH_CUDA_ARCH_LIST as PyTorch's own torch/utils/cpp_extension.py reads it when it builds an
// extension (_get_cuda_arch_flags): spaces become ';', the named architectures are replaced by
// their lists (in the file's order, combined names first), each entry must be one of the file's
// supported architectures, with or without "+PTX", and becomes -gencode flags. The names and the
// supported list differ between torch releases, so they are read from the installed torch's file,
// not from a table here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck {

struct TorchArchTables {
    std::vector<std::pair<std::string, std::string>> named;  // ("Ampere", "8.0;8.6+PTX"), in the file's order
    std::vector<std::string> supported;                      // "3.5", ..., "9.0a", "12.1a"
};

// The named_arches and supported_arches of a cpp_extension.py's source; nullopt when the file has
// neither in the form torch writes them.
[[nodiscard]] std::optional<TorchArchTables> read_torch_arch_tables(std::string_view cpp_extension_source);

// What _get_cuda_arch_flags does without TORCH_CUDA_ARCH_LIST (or with "native"), from its source:
// it builds the list from the visible GPUs (torch.cuda.device_count()) and marks the last one +PTX
// with `arch_list[-1] += '+PTX'`, which on an empty list (no GPU visible: a `docker build`, a login
// node, CUDA_VISIBLE_DEVICES="") raises "IndexError: list index out of range" and stops the build.
// torch 2.15.0's torch/utils/cpp_extension.py has it (lines 2774-2792); the same statement is in the
// 1.x and 2.x releases whose tracebacks users post (e.g. "cpp_extension.py, line 1694, in
// _get_cuda_arch_flags: arch_list[-1] += '+PTX'" with torch 1.13/2.0). `native` (2.x) takes the same branch.
struct TorchDefaultArchList {
    std::optional<bool> raises_without_gpu = {};  // the statement is there; nullopt: source not read
    bool accepts_native = false;                   // TORCH_CUDA_ARCH_LIST=native means the visible GPUs
};
[[nodiscard]] TorchDefaultArchList read_torch_default_arch_list(std::string_view cpp_extension_source);

// The tables of an installed torch, from its torch/utils/cpp_extension.py beside the
// torch/version.py among `torch_files` (the files a framework's build was read from); `problem`
// says why there are none.
struct InstalledTorchArchTables {
    std::optional<TorchArchTables> tables = {};
    std::string problem = {};
    TorchDefaultArchList default_list = {};  // nothing known when the file cannot be read
};
[[nodiscard]] InstalledTorchArchTables read_installed_torch_arch_tables(const std::vector<std::string>& torch_files);

struct TorchArchList {
    std::vector<std::string> entries;        // after expansion: "8.0", "8.6+PTX"
    std::vector<std::string> gencode_flags;  // sorted and unique, as torch passes them to nvcc
    std::optional<std::string> error;        // torch's own words: "Unknown CUDA arch (8.7a) or GPU not supported"
};

[[nodiscard]] TorchArchList parse_torch_cuda_arch_list(std::string_view value, const TorchArchTables& tables);

}  // namespace cudacheck
