#!/usr/bin/env python3
"""One build of toolkit.compile's PyTorch extension probe, in one variant, timed (issue 40).

Run with the torch environment's interpreter, as toolkit.compile runs its script:

    PYTHON bench/extension_build.py VARIANT BUILD_DIRECTORY

Prints one line, "EXTENSION_BUILD {json}": the variant, seconds to import torch, seconds of the
load/load_inline call (write the sources, ninja: compile and link, import the module), the whole
process's seconds, each ninja edge's own milliseconds (from the build directory's .ninja_log), the
module's file, and the error if it failed. bench/extension_build.sh alternates the variants and
takes medians. BUILD_DIRECTORY must be new or empty (a fresh build each time).

The variants (what each proves is in docs/performance.md, "PyTorch extension build"):
  today        load_inline: declaration in cpp_sources, kernel and a torch::Tensor wrapper in
               cuda_sources (load_inline prepends torch/extension.h to the .cpp and torch/types.h,
               cuda.h, cuda_runtime.h to the .cu): the probe before issue 40.
  raw_cu       load_inline(no_implicit_headers=True): the .cpp includes torch/extension.h and holds
               the wrapper; the .cu holds the kernel and a launcher on raw pointers (cuda_runtime.h).
  context_cu   as raw_cu, but the .cu includes ATen/cuda/CUDAContext.h and launches on PyTorch's
               current stream, as real extensions do (it pulls cublas_v2.h, cusparse.h,
               cusolverDn.h, cublasLt.h from the toolkit).
  python_h     toolkit.compile's own build (its sources read from src/checks/toolkit_compile.cpp):
               load() of two source files: the .cpp includes torch/python.h (ATen, pybind11 and
               PyTorch's type casters, not the C++ frontend's nn/optim/data of torch/all.h) with its
               own PYBIND11_MODULE; the .cu as context_cu.
  python_h_types  as python_h, but the .cu is today's (torch/types.h, the wrapper in the .cu).
  op_library   load(is_python_module=False): TORCH_LIBRARY registration (torch.ops), no pybind11;
               the .cpp includes torch/library.h and ATen/core/Tensor.h; the .cu as context_cu.
  single_cu    load() of one .cu holding torch/extension.h, the kernel and PYBIND11_MODULE (one
               translation unit, all of it through nvcc).
  pch          today's sources with load_inline(use_pch=True): PyTorch precompiles
               torch/extension.h into torch/include/torch/extension.h.gch INSIDE the torch
               installation (and any later load_inline without use_pch deletes it again). Run it
               only in an environment of your own; the script removes the file afterwards.
"""
import json
import os
import re
import sys
import time

START = time.time()

KERNEL = r"""
__global__ void twice_plus_one_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
"""

# Today's .cu body (load_inline prepends torch/types.h, cuda.h, cuda_runtime.h).
TODAY_CU = KERNEL + r"""
torch::Tensor twice_plus_one(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = static_cast<int>(x.numel());
    twice_plus_one_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    const cudaError_t launched = cudaGetLastError();
    TORCH_CHECK(launched == cudaSuccess, "CUDA error: ", cudaGetErrorString(launched));
    return y;
}
"""

RAW_CU = "#include <cuda_runtime.h>\n" + KERNEL + r"""
// nullptr when the launch worked, else CUDA's message.
const char* twice_plus_one_launch(const float* x, float* y, int n) {
    twice_plus_one_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
    const cudaError_t launched = cudaGetLastError();
    return launched == cudaSuccess ? nullptr : cudaGetErrorString(launched);
}
"""

CONTEXT_CU = "#include <ATen/cuda/CUDAContext.h>\n#include <cuda_runtime.h>\n" + KERNEL + r"""
const char* twice_plus_one_launch(const float* x, float* y, int n) {
    twice_plus_one_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x, y, n);
    const cudaError_t launched = cudaGetLastError();
    return launched == cudaSuccess ? nullptr : cudaGetErrorString(launched);
}
"""

WRAPPER = r"""
const char* twice_plus_one_launch(const float* x, float* y, int n);

torch::Tensor twice_plus_one(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.is_contiguous(), "a contiguous float CUDA tensor");
    auto y = torch::empty_like(x);
    const char* error = twice_plus_one_launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(x.numel()));
    TORCH_CHECK(error == nullptr, "CUDA error: ", error);
    return y;
}
"""



def product_sources():
    """The two sources toolkit.compile builds (python_h), read from its extension_script in
    src/checks/toolkit_compile.cpp, so that this variant is the check's build and stays so."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src", "checks", "toolkit_compile.cpp")
    with open(path) as source:
        script = source.read().split('extension_script = R"PY(', 1)[1].split(')PY"', 1)[0]
    found = dict(re.findall(r'^(BINDING|KERNEL) = r"""(.*?)"""', script, re.S | re.M))
    return found["BINDING"], found["KERNEL"]


PYTHON_H_TYPES_CPP = r"""#include <torch/python.h>
torch::Tensor twice_plus_one(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice_plus_one", &twice_plus_one, "twice_plus_one"); }
"""
PYTHON_H_TYPES_CU = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + TODAY_CU

OP_LIBRARY_CPP = r"""#include <ATen/core/Tensor.h>
#include <torch/library.h>
#include <ATen/ops/empty_like.h>

const char* twice_plus_one_launch(const float* x, float* y, int n);

at::Tensor twice_plus_one(const at::Tensor& x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat && x.is_contiguous(), "a contiguous float CUDA tensor");
    at::Tensor y = at::empty_like(x);
    const char* error = twice_plus_one_launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(x.numel()));
    TORCH_CHECK(error == nullptr, "CUDA error: ", error);
    return y;
}

TORCH_LIBRARY(cudacheck_probe, m) { m.def("twice_plus_one(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(cudacheck_probe, CUDA, m) { m.impl("twice_plus_one", &twice_plus_one); }
"""

SINGLE_CU = "#include <torch/extension.h>\n" + TODAY_CU + r"""
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice_plus_one", &twice_plus_one, "twice_plus_one"); }
"""

VARIANTS = ["today", "raw_cu", "context_cu", "python_h", "python_h_types", "op_library", "single_cu", "pch"]


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as out:
        out.write(text)
    return path


def ninja_edges(directory):
    """Each output's own milliseconds from ninja's log (format v5+: start, end, mtime, output, hash)."""
    edges = {}
    try:
        with open(os.path.join(directory, ".ninja_log")) as log:
            for line in log:
                if line.startswith("#"):
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 4:
                    edges[fields[3]] = int(fields[1]) - int(fields[0])
    except OSError:
        pass
    return edges


def main():
    variant, directory = sys.argv[1], sys.argv[2]
    result = {"variant": variant, "max_jobs": os.environ.get("MAX_JOBS", "")}
    try:
        import torch
        from torch.utils.cpp_extension import load, load_inline

        result["import_s"] = time.time() - START
        if torch.cuda.device_count() == 0 and not os.environ.get("TORCH_CUDA_ARCH_LIST"):
            os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0+PTX"  # as on one H200; PyTorch needs a list without a GPU
        name = "cudacheck_extension_probe"
        began = time.time()
        sources_dir = os.path.join(directory, "sources")
        os.makedirs(sources_dir, exist_ok=True)
        if variant == "today":
            module = load_inline(name=name, cpp_sources="torch::Tensor twice_plus_one(torch::Tensor x);",
                                 cuda_sources=TODAY_CU, functions=["twice_plus_one"], build_directory=directory)
        elif variant == "pch":
            try:
                module = load_inline(name=name, cpp_sources="torch::Tensor twice_plus_one(torch::Tensor x);",
                                     cuda_sources=TODAY_CU, functions=["twice_plus_one"], build_directory=directory,
                                     use_pch=True)
            finally:
                result["pch_left"] = os.path.exists(os.path.join(os.path.dirname(torch.__file__), "include", "torch",
                                                                 "extension.h.gch"))
        elif variant in ("raw_cu", "context_cu"):
            module = load_inline(name=name, cpp_sources="#include <torch/extension.h>\n" + WRAPPER,
                                 cuda_sources=RAW_CU if variant == "raw_cu" else CONTEXT_CU,
                                 functions=["twice_plus_one"], build_directory=directory, no_implicit_headers=True)
        elif variant == "python_h":
            binding, kernel = product_sources()
            module = load(name=name, sources=[write(sources_dir, "probe_binding.cpp", binding),
                                              write(sources_dir, "probe_kernel.cu", kernel)], build_directory=directory)
        elif variant == "python_h_types":
            module = load(name=name, sources=[write(sources_dir, "binding.cpp", PYTHON_H_TYPES_CPP),
                                              write(sources_dir, "kernel.cu", PYTHON_H_TYPES_CU)],
                          build_directory=directory)
        elif variant == "op_library":
            module = load(name=name, sources=[write(sources_dir, "op.cpp", OP_LIBRARY_CPP),
                                              write(sources_dir, "kernel.cu", CONTEXT_CU)],
                          build_directory=directory, is_python_module=False)
        elif variant == "single_cu":
            module = load(name=name, sources=[write(sources_dir, "extension.cu", SINGLE_CU)],
                          build_directory=directory)
        else:
            raise SystemExit(f"unknown variant {variant}; one of {', '.join(VARIANTS)}")
        result["load_s"] = time.time() - began
        result["module_file"] = module if isinstance(module, str) else str(getattr(module, "__file__", ""))
        if torch.cuda.is_available():
            x = torch.arange(4096, dtype=torch.float32, device="cuda")
            run = torch.ops.cudacheck_probe.twice_plus_one if variant == "op_library" else module.twice_plus_one
            y = run(x)
            torch.cuda.synchronize()
            result["correct"] = bool(torch.equal(y.cpu(), x.cpu() * 2 + 1))
    except BaseException as error:  # noqa: B036 - reported, as toolkit.compile's script does
        result["error"] = (type(error).__name__ + ": " + str(error))[:2000]
    finally:
        if variant == "pch":
            from torch.utils.cpp_extension import remove_extension_h_precompiler_headers

            remove_extension_h_precompiler_headers()
    result["edges_ms"] = ninja_edges(directory)
    result["total_s"] = time.time() - START
    print("EXTENSION_BUILD " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
