#include "cudacheck/catalog.hpp"

#include "core/system.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace cudacheck {

namespace {

// Sources for the facts behind each entry are in ../shared/cuda-facts.md and docs/errors.md.
constexpr std::array entries{
    CatalogEntry{Code::wsl1_no_gpu, "wsl1-no-gpu", Status::fail, "WSL 1 has no GPU support",
                 "CUDA on Windows Subsystem for Linux needs WSL 2; this distribution runs under WSL 1.",
                 "In PowerShell: `wsl --set-version <distro> 2`, then install the Windows NVIDIA driver (not a Linux one).",
                 "host.os"},
    CatalogEntry{Code::cuda_home_missing, "cuda-home-missing", Status::warn, "CUDA_HOME points nowhere",
                 "CUDA_HOME or CUDA_PATH names a directory that does not exist, so build tools that read it fail.",
                 "Point it at an installed toolkit (e.g. `export CUDA_HOME=/usr/local/cuda`) or unset it.",
                 "env.variables"},
    CatalogEntry{Code::cuda_home_differs_from_nvcc, "cuda-home-differs-from-nvcc", Status::warn,
                 "CUDA_HOME and PATH name different toolkits",
                 "Build systems (PyTorch extensions, CMake) take headers and libraries from CUDA_HOME but compile with the nvcc on PATH; two toolkits mix.",
                 "Make them agree: `export CUDA_HOME=<toolkit of the nvcc on PATH>` or put `$CUDA_HOME/bin` first on PATH.",
                 "env.variables"},
    CatalogEntry{Code::stub_dir_on_ld_library_path, "stub-dir-on-ld-library-path", Status::warn,
                 "toolkit stubs directory on LD_LIBRARY_PATH",
                 "The toolkit's lib64/stubs holds a link-time-only libcuda; at run time it answers every call with CUDA_ERROR_STUB_LIBRARY (34).",
                 "Remove the stubs directory from LD_LIBRARY_PATH; it belongs only on the linker's path (LIBRARY_PATH or -L).",
                 "env.variables"},
    CatalogEntry{Code::cuda_visible_devices_empty, "cuda-visible-devices-empty", Status::warn,
                 "CUDA_VISIBLE_DEVICES hides every GPU",
                 "CUDA_VISIBLE_DEVICES is set but empty (or -1), so CUDA programs see no device at all.",
                 "`unset CUDA_VISIBLE_DEVICES`, or set it to the GPUs to use, e.g. `export CUDA_VISIBLE_DEVICES=0`.",
                 "env.variables"},
    CatalogEntry{Code::cuda_visible_devices_invalid, "cuda-visible-devices-invalid", Status::warn,
                 "CUDA_VISIBLE_DEVICES has an invalid entry",
                 "CUDA stops reading CUDA_VISIBLE_DEVICES at the first invalid entry: the devices after it are hidden.",
                 "Use a comma list of ordinals (0,1), GPU UUIDs (GPU-...) or MIG UUIDs (MIG-...), with no spaces or gaps.",
                 "env.variables"},
    CatalogEntry{Code::cuda_launch_blocking, "cuda-launch-blocking", Status::warn, "CUDA_LAUNCH_BLOCKING is on",
                 "CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous: right while debugging, much slower otherwise.",
                 "`unset CUDA_LAUNCH_BLOCKING` outside debugging sessions.", "env.variables"},
    CatalogEntry{Code::cublas_workspace_config_invalid, "cublas-workspace-config-invalid", Status::warn,
                 "CUBLAS_WORKSPACE_CONFIG is malformed",
                 "cuBLAS expects ':SIZE_KiB:COUNT' entries (e.g. :4096:8); a malformed value is ignored, so deterministic mode is silently off.",
                 "`export CUBLAS_WORKSPACE_CONFIG=:4096:8` (or :16:8 to save memory).", "env.variables"},
    CatalogEntry{Code::cuda_injection_path, "cuda-injection-path", Status::warn, "a tool is injected into every CUDA process",
                 "CUDA_INJECTION64_PATH loads a profiler or tracer into every CUDA program; it slows them and can make them fail.",
                 "`unset CUDA_INJECTION64_PATH` unless you are profiling on purpose.", "env.variables"},
    CatalogEntry{Code::cuda_coredump_on_exception, "cuda-coredump-on-exception", Status::warn,
                 "GPU core dumps are enabled",
                 "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 writes a GPU core dump on every device exception: large files and long stalls.",
                 "`unset CUDA_ENABLE_COREDUMP_ON_EXCEPTION` outside debugging sessions.", "env.variables"},
    CatalogEntry{Code::cuda_legacy_profiler, "cuda-legacy-profiler", Status::warn, "legacy profiling variable set",
                 "CUDA_PROFILE or CUDA_AUTO_BOOST is set: these are legacy controls that recent drivers ignore or that change clocks behaviour.",
                 "Unset the variable; use Nsight Systems (`nsys profile`) for profiling.", "env.variables"},
    CatalogEntry{Code::cuda_cache_disabled, "cuda-cache-disabled", Status::warn, "JIT cache disabled",
                 "CUDA_CACHE_DISABLE=1 makes the driver recompile embedded PTX at every program start.",
                 "`unset CUDA_CACHE_DISABLE`.", "env.variables"},
    CatalogEntry{Code::cuda_module_loading_invalid, "cuda-module-loading-invalid", Status::warn,
                 "CUDA_MODULE_LOADING has an unknown value",
                 "CUDA_MODULE_LOADING accepts LAZY or EAGER; any other value is ignored.",
                 "`export CUDA_MODULE_LOADING=LAZY` (the default since CUDA 12.2) or unset it.", "env.variables"},
    CatalogEntry{Code::cuda_device_order_invalid, "cuda-device-order-invalid", Status::warn,
                 "CUDA_DEVICE_ORDER has an unknown value",
                 "CUDA_DEVICE_ORDER accepts FASTEST_FIRST or PCI_BUS_ID; any other value is ignored.",
                 "`export CUDA_DEVICE_ORDER=PCI_BUS_ID` to number GPUs as nvidia-smi does, or unset it.", "env.variables"},
    CatalogEntry{Code::kernel_module_not_loaded, "kernel-module-not-loaded", Status::fail, "no NVIDIA kernel module",
                 "/proc/driver/nvidia/version is absent: the NVIDIA kernel driver is not installed or not loaded.",
                 "Install the NVIDIA driver for your distribution (e.g. `sudo ubuntu-drivers install` or the CUDA repository's `cuda-drivers`) and reboot.",
                 "driver.kernel_module"},
    CatalogEntry{Code::device_nodes_missing, "device-nodes-missing", Status::fail, "/dev/nvidia* missing",
                 "The device files CUDA opens (/dev/nvidiactl, /dev/nvidia<N>) do not exist.",
                 "On a host: `sudo nvidia-modprobe -u -c=0` or reboot. In a container: start it with GPUs (`docker run --gpus all`, NVIDIA Container Toolkit).",
                 "driver.kernel_module"},
    CatalogEntry{Code::device_nodes_no_access, "device-nodes-no-access", Status::fail, "/dev/nvidia* not accessible",
                 "The device files exist but this user cannot open them for reading and writing.",
                 "Add the user to the group that owns /dev/nvidia* (often `video` or `render`), or fix the driver's NVreg_DeviceFileMode.",
                 "driver.kernel_module"},
    CatalogEntry{Code::nouveau_bound, "nouveau-bound", Status::fail, "nouveau drives the GPU",
                 "The open-source nouveau driver is bound to an NVIDIA GPU; CUDA needs the NVIDIA driver.",
                 "Blacklist nouveau (`blacklist nouveau` in /etc/modprobe.d/blacklist-nouveau.conf), `sudo update-initramfs -u`, install the NVIDIA driver, reboot.",
                 "driver.kernel_module"},
    CatalogEntry{Code::libcuda_not_found, "libcuda-not-found", Status::fail, "no NVIDIA driver library (libcuda.so.1)",
                 "The CUDA driver library libcuda.so.1 cannot be loaded: no NVIDIA driver is installed, or it is not on the loader's path.",
                 "Install the NVIDIA driver (it provides libcuda.so.1); in a container, start it with `--gpus all` through the NVIDIA Container Toolkit.",
                 "driver.libcuda"},
    CatalogEntry{Code::libcuda_stub, "libcuda-stub", Status::fail, "stub libcuda loaded",
                 "The libcuda.so loaded (or first on the loader's path) is the toolkit's link-time stub (lib64/stubs), which fails every call with CUDA_ERROR_STUB_LIBRARY (34).",
                 "Remove the stubs directory from LD_LIBRARY_PATH (and any copy of the stub named libcuda.so.1) so the driver's libcuda is found.",
                 "driver.libcuda, libraries.resolution"},
    CatalogEntry{Code::cuinit_failed, "cuinit-failed", Status::fail, "the CUDA driver does not initialise",
                 "cuInit returned an error: the driver is installed but cannot start CUDA.",
                 "Act on the error named: see the remediation in the message, `dmesg | grep -i nvrm` for kernel messages, and `nvidia-smi`.",
                 "driver.libcuda, cuda.devices"},
    CatalogEntry{Code::libcuda_module_mismatch, "libcuda-module-mismatch", Status::fail,
                 "driver library and kernel module versions differ",
                 "The user-space driver (libcuda) and the loaded kernel module are different versions, typically after a driver upgrade without reboot (\"Driver/library version mismatch\").",
                 "Reboot, or unload and reload the module: `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`.",
                 "driver.libcuda"},
    CatalogEntry{Code::libcuda_symbol_missing, "libcuda-symbol-missing", Status::fail, "libcuda lacks basic functions",
                 "The loaded libcuda.so.1 does not export cuInit/cuDriverGetVersion: it is not a real NVIDIA driver library or is very old.",
                 "Reinstall the NVIDIA driver; check which file is loaded (see evidence) and remove impostors from the loader path.",
                 "driver.libcuda"},
    CatalogEntry{Code::wsl_libcuda_not_from_windows, "wsl-libcuda-not-from-windows", Status::fail,
                 "WSL 2 loads a Linux libcuda",
                 "Under WSL 2 the GPU is driven by the Windows driver, whose libcuda lives in /usr/lib/wsl/lib; a Linux driver's libcuda installed in the distribution shadows it and CUDA fails (\"libcuda.so.1 is not a symbolic link\", no device).",
                 "Remove the Linux driver from the distribution (`sudo apt remove --purge 'libnvidia-compute-*' 'nvidia-driver-*'`; install only the CUDA toolkit inside WSL), keep /usr/lib/wsl/lib in /etc/ld.so.conf.d/ld.wsl.conf, then `sudo ldconfig`.",
                 "driver.libcuda"},
    CatalogEntry{Code::nvml_not_found, "nvml-not-found", Status::warn, "no NVML library (libnvidia-ml.so.1)",
                 "The driver's management library cannot be loaded: nvidia-smi, GPU health monitoring and cluster tools (DCGM) do not work.",
                 "Install the driver's utilities package (Debian/Ubuntu: nvidia-utils-<version> or libnvidia-compute-<version>); in a container include the `utility` driver capability (NVIDIA_DRIVER_CAPABILITIES=compute,utility).",
                 "driver.nvml"},
    CatalogEntry{Code::nvml_version_mismatch, "nvml-version-mismatch", Status::fail, "NVML: driver/library version mismatch",
                 "nvmlInit returns NVML_ERROR_LIB_RM_VERSION_MISMATCH (18), nvidia-smi prints \"Failed to initialize NVML: Driver/library version mismatch\": the user-space driver was upgraded but the old kernel module is still loaded.",
                 "Reboot, or reload the module: `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia` (stop processes using the GPU first).",
                 "driver.nvml"},
    CatalogEntry{Code::nvml_init_failed, "nvml-init-failed", Status::warn, "NVML does not initialise",
                 "nvmlInit failed: nvidia-smi and health queries do not work, though CUDA itself may.",
                 "Act on the error named in the message; run `nvidia-smi` and check `dmesg | grep -i nvrm`.",
                 "driver.nvml"},
    CatalogEntry{Code::nvcc_not_found, "nvcc-not-found", Status::warn, "no CUDA compiler (nvcc)",
                 "No nvcc on PATH, in CUDA_HOME or under /usr/local/cuda*: CUDA programs can run, but nothing can be compiled (PyTorch extensions, xformers builds).",
                 "Install the CUDA toolkit (e.g. `sudo apt install cuda-toolkit-13-0` from NVIDIA's repository, or `conda install -c nvidia cuda-nvcc`).",
                 "toolkit.nvcc"},
    CatalogEntry{Code::nvcc_not_on_path, "nvcc-not-on-path", Status::warn, "nvcc installed but not on PATH",
                 "A CUDA toolkit is installed but its bin directory is not on PATH: builds fail with \"nvcc: command not found\".",
                 "Add the toolkit's bin directory to PATH (e.g. `export PATH=/usr/local/cuda/bin:$PATH` in ~/.bashrc).",
                 "toolkit.nvcc"},
    CatalogEntry{Code::nvcc_unusable, "nvcc-unusable", Status::warn, "nvcc does not run",
                 "nvcc was found but `nvcc --version` failed or printed something unrecognisable.",
                 "Run `nvcc --version` yourself; reinstall the toolkit if it is damaged.", "toolkit.nvcc"},
    CatalogEntry{Code::cuda_symlink_differs, "cuda-symlink-differs", Status::warn,
                 "/usr/local/cuda and PATH name different toolkits",
                 "/usr/local/cuda points to one toolkit while the nvcc on PATH belongs to another; tools that assume /usr/local/cuda mix versions.",
                 "Point the symlink at the toolkit you use (`sudo update-alternatives --config cuda` or `ln -sfn`), or fix PATH.",
                 "toolkit.nvcc"},
    CatalogEntry{Code::driver_insufficient, "driver-insufficient", Status::fail, "driver too old for the CUDA runtime",
                 "The driver supports an older CUDA major version than the runtime needs: \"CUDA driver version is insufficient for CUDA runtime version\" (error 35).",
                 "Install a newer NVIDIA driver (the message names the minimum), or on a data-center GPU install the forward-compatibility package cuda-compat-<major>-<minor>.",
                 "cuda.pairing"},
    CatalogEntry{Code::nvcc_newer_than_driver, "nvcc-newer-than-driver", Status::warn,
                 "nvcc is newer than the driver",
                 "Programs built with this nvcc need a newer driver than the one installed: they fail with error 35 (major) or cannot JIT their PTX (error 222).",
                 "Update the driver to the minimum named, or build with the toolkit that matches the driver.",
                 "cuda.pairing"},
    CatalogEntry{Code::no_device_visible, "no-device-visible", Status::fail, "GPUs present but none visible",
                 "The driver sees GPUs but CUDA reports none: CUDA_VISIBLE_DEVICES (or the container's NVIDIA_VISIBLE_DEVICES) hides them.",
                 "Fix CUDA_VISIBLE_DEVICES (unset it to see every GPU).", "driver.libcuda, cuda.devices"},
    CatalogEntry{Code::no_device_present, "no-device-present", Status::fail, "no CUDA-capable GPU",
                 "The driver initialised but found no CUDA-capable device (CUDA_ERROR_NO_DEVICE, 100).",
                 "Check `nvidia-smi` and `lspci | grep -i nvidia`; in a VM or container, pass the GPU through.",
                 "cuda.devices"},
    CatalogEntry{Code::device_unsupported_by_runtime, "device-unsupported-by-runtime", Status::fail,
                 "GPU too old for this CUDA version",
                 "The GPU's compute capability is below the lowest this CUDA release supports, so no kernel can be built or run for it.",
                 "Use the newest CUDA release that still supports the GPU (the message names it), or a newer GPU.",
                 "cuda.devices"},
    CatalogEntry{Code::compute_mode_prohibited, "compute-mode-prohibited", Status::fail, "GPU in prohibited compute mode",
                 "The GPU's compute mode is Prohibited: no process may create a CUDA context on it (\"all CUDA-capable devices are busy or unavailable\", 46).",
                 "Ask the administrator to set compute mode Default: `sudo nvidia-smi -i <index> -c DEFAULT`.",
                 "cuda.devices"},
    CatalogEntry{Code::device_query_failed, "device-query-failed", Status::fail, "a GPU could not be queried",
                 "A driver API query (name, memory, attributes) failed for a device the driver reported.",
                 "Check `nvidia-smi` and `dmesg | grep -i -e nvrm -e xid` for hardware or driver errors.",
                 "cuda.devices"},
    CatalogEntry{Code::cuda_call_failed, "cuda-call-failed", Status::fail, "a CUDA runtime call failed",
                 "A CUDA runtime call made by the check returned an error (named in the message with its code).",
                 "Act on the error named; `cudacheck -v` shows the evidence, `dmesg | grep -i xid` shows GPU faults.",
                 "cuda.kernel, cuda.memory, cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::gpu_out_of_memory, "gpu-out-of-memory", Status::fail, "GPU memory exhausted",
                 "An allocation failed with cudaErrorMemoryAllocation (\"CUDA out of memory\"): other processes hold the memory, or the GPU is too small for the test.",
                 "Free GPU memory: find the processes with `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`; in PyTorch use smaller batches or `torch.cuda.empty_cache()`.",
                 "cuda.memory, cuda.kernel, cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::no_kernel_image, "no-kernel-image", Status::fail, "no kernel image for this GPU",
                 "The binary carries neither SASS for this GPU's architecture nor PTX the driver can compile for it: \"no kernel image is available for execution on the device\" (209).",
                 "Rebuild with code for the GPU: nvcc -gencode arch=compute_XY,code=sm_XY (plus code=compute_XY for the newest), CMAKE_CUDA_ARCHITECTURES, or TORCH_CUDA_ARCH_LIST for PyTorch extensions.",
                 "cuda.kernel"},
    CatalogEntry{Code::wrong_result, "wrong-result", Status::fail, "the GPU computed a wrong result",
                 "A GPU result differs from the float64 CPU reference beyond the documented tolerance, or is NaN: faulty hardware, a broken library or driver.",
                 "Run again; if it persists, check `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` and `dmesg | grep -i xid`, reinstall the library, and report the GPU to the administrator.",
                 "cuda.kernel, cuda.memory, cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::library_not_found, "library-not-found", Status::fail, "a CUDA library cannot be loaded",
                 "The library's shared object (e.g. libcublas.so.13) is not on the loader's path or in the toolkit directories: \"cannot open shared object file\".",
                 "Install it (the message names the package) or add its directory to LD_LIBRARY_PATH.",
                 "cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::library_symbol_missing, "library-symbol-missing", Status::fail, "a CUDA library lacks a function",
                 "The library loaded but does not export a function its version must have: a different major version or a damaged install.",
                 "Check which file loaded (evidence) and install the version matching the CUDA runtime.",
                 "cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::library_call_failed, "library-call-failed", Status::fail, "a CUDA library call failed",
                 "A cuBLAS, cuFFT, cuDNN, cuRAND or NVRTC call returned an error status (named in the message).",
                 "Act on the status named; library/driver version mismatches are the usual cause (see cuda.pairing).",
                 "cublas.gemm, cufft.fft, cudnn.conv, curand.generate, nvrtc.compile"},
    CatalogEntry{Code::cudnn_sublibrary_missing, "cudnn-sublibrary-missing", Status::fail, "a cuDNN sub-library is missing",
                 "cuDNN 9's libcudnn.so.9 is a shim that loads libcudnn_graph, _ops, _cnn, _adv, _engines_* and _heuristic; one of them cannot be loaded (CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED).",
                 "Install all of cuDNN from one source (the libcudnn9-cuda-<major> package, or the nvidia-cudnn-cu<major> wheel), not a mix.",
                 "cudnn.conv, libraries.resolution"},
    CatalogEntry{Code::cudnn_version_mismatch, "cudnn-version-mismatch", Status::fail, "cuDNN versions do not match",
                 "The cuDNN library, its sub-libraries, the header cudacheck was built with, or the CUDA runtime cuDNN was built for disagree (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, \"cuDNN version incompatibility\").",
                 "Keep one cuDNN install on the loader's path: remove the other copy or reorder LD_LIBRARY_PATH; match its CUDA major to the runtime.",
                 "cudnn.conv"},
    CatalogEntry{Code::nvrtc_compile_failed, "nvrtc-compile-failed", Status::fail, "run-time compilation failed",
                 "NVRTC could not compile a small kernel for this GPU (log in the message): JIT compilation, as used by PyTorch, CuPy and Triton, does not work.",
                 "Check that libnvrtc-builtins matches libnvrtc (same toolkit), and that NVRTC is at least as new as the GPU's architecture.",
                 "nvrtc.compile"},
    CatalogEntry{Code::mig_without_instances, "mig-without-instances", Status::fail, "MIG enabled but no MIG device",
                 "A GPU is in MIG mode without GPU/compute instances that CUDA can use: CUDA sees no device on it (CUDA_ERROR_NO_DEVICE).",
                 "Create instances (`sudo nvidia-smi mig -cgi <profile> -C`, see `nvidia-smi mig -lgip`) and select them with CUDA_VISIBLE_DEVICES=MIG-<uuid>, or disable MIG (`sudo nvidia-smi -i <gpu> -mig 0`, then reset the GPU when idle).",
                 "driver.libcuda"},
    CatalogEntry{Code::device_exclusive_busy, "device-exclusive-busy", Status::fail, "GPU in exclusive mode and in use",
                 "The GPU's compute mode is Exclusive Process and another process already holds a context on it: no other process may use it (\"all CUDA-capable devices are busy or unavailable\", 46).",
                 "Wait for the process named to finish or stop it (`nvidia-smi --query-compute-apps=pid,process_name --format=csv`), use another GPU (CUDA_VISIBLE_DEVICES), or ask the administrator for compute mode Default (`sudo nvidia-smi -i <index> -c DEFAULT`).",
                 "cuda.devices"},
    CatalogEntry{Code::gpu_memory_held_by_others, "gpu-memory-held-by-others", Status::warn, "other processes hold most GPU memory",
                 "Less than a quarter of the GPU's memory is free because other processes hold it: new work on this GPU will likely run out of memory (\"CUDA out of memory\").",
                 "Stop or wait for the processes named (`nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv`), or use another GPU (CUDA_VISIBLE_DEVICES).",
                 "cuda.devices"},
    CatalogEntry{Code::ptx_too_new, "ptx-too-new", Status::fail, "PTX newer than the driver can compile",
                 "The GPU has no SASS in the binary, so the driver must JIT-compile its PTX, and that PTX comes from a newer CUDA than the driver's: \"the provided PTX was compiled with an unsupported toolchain\" (222). Typical under minor-version compatibility (a 13.1 program on a 13.0 driver).",
                 "Update the driver to the minimum of the CUDA version that produced the PTX, or build SASS for the GPU (nvcc -gencode arch=compute_XY,code=sm_XY) so no JIT is needed; for NVRTC, use one no newer than the driver or compile to CUBIN.",
                 "cuda.kernel, nvrtc.compile"},
    CatalogEntry{Code::library_outside_loader_path, "library-outside-loader-path", Status::warn,
                 "a CUDA library is installed but not on the loader's path",
                 "Copies of the library exist (in a toolkit directory, a pip wheel, a conda environment) but none is in LD_LIBRARY_PATH, /etc/ld.so.cache or the default directories, so a C/C++ program fails with \"cannot open shared object file\". Python packages that preload their wheels still work.",
                 "Add the directory named in the message to LD_LIBRARY_PATH, or register it for every program: `echo <dir> | sudo tee /etc/ld.so.conf.d/cuda.conf && sudo ldconfig`.",
                 "libraries.resolution"},
    CatalogEntry{Code::library_versions_differ, "library-versions-differ", Status::warn,
                 "several versions of one CUDA library",
                 "Copies of one library with different versions are installed (system package, toolkit, pip wheel, conda): a C/C++ program loads the one the loader finds first, a Python process that preloads its wheels another, so the two behave differently (\"cuDNN version incompatibility\", undefined symbols).",
                 "Keep one copy: remove the others, or put the directory of the one you want first on LD_LIBRARY_PATH.",
                 "libraries.resolution"},
    CatalogEntry{Code::cudnn_sublibraries_mixed, "cudnn-sublibraries-mixed", Status::fail,
                 "cuDNN sub-libraries from different installs",
                 "libcudnn.so.9 loads its seven sub-libraries (libcudnn_graph, _ops, _cnn, _adv, _engines_*, _heuristic) through the loader; here some resolve to another install or version than libcudnn.so.9 itself (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, 1002).",
                 "Install all of cuDNN from one source and keep only that one on the loader's path (reorder LD_LIBRARY_PATH or remove the other copy).",
                 "libraries.resolution"},
    CatalogEntry{Code::library_cuda_major_mismatch, "library-cuda-major-mismatch", Status::warn,
                 "CUDA libraries of different major versions on the loader's path",
                 "A library resolves only for another CUDA major than the runtime (e.g. libcublas.so.12 beside libcudart.so.13): a program built with the runtime's CUDA fails with \"cannot open shared object file\" for the library.",
                 "Install the library for the runtime's CUDA major (the message names the package), or use the matching runtime.",
                 "libraries.resolution"},
    CatalogEntry{Code::inspect_unreadable, "inspect-unreadable", Status::fail, "a file to inspect cannot be read",
                 "`cudacheck inspect` could not open or memory-map the file: it does not exist, is a directory or special file, or this user may not read it.",
                 "Check the path and its permissions (`ls -l FILE`); inspect the library itself, not a directory (e.g. `cudacheck inspect $(python -c 'import torch, os; print(os.path.dirname(torch.__file__))')/lib/libtorch_cuda.so`).",
                 "inspect"},
    CatalogEntry{Code::inspect_unrecognised, "inspect-unrecognised", Status::fail, "not a file that can carry GPU code",
                 "The file is empty, or neither a 64-bit ELF file (executable, shared library, object, cubin), a fatbinary, nor PTX text: a script, a linker script such as some libfoo.so, an archive (.a) or a 32-bit ELF file.",
                 "Inspect the real binary: resolve linker scripts and symlinks (`readlink -f`, `file FILE`), and unpack archives first (`ar x libfoo.a`).",
                 "inspect"},
    CatalogEntry{Code::inspect_malformed, "inspect-malformed", Status::fail, "a file's ELF or fatbinary headers are inconsistent",
                 "A section, fatbinary or entry header points outside the file or contradicts itself: the file is truncated (an interrupted download or copy) or corrupt. The GPU code listed before the damage is still reported.",
                 "Reinstall or re-download the file and compare its size or checksum with the original; `cuobjdump --list-elf --list-ptx FILE` gives a second opinion.",
                 "inspect"},
    CatalogEntry{Code::check_raised_exception, "check-raised-exception", Status::error, "a check broke",
                 "A check stopped with an unexpected error; this is a cudacheck bug or an unforeseen system state.",
                 "Report it with the JSON output (`cudacheck --format json`) attached.", "any"},
    CatalogEntry{Code::check_crashed, "check-crashed", Status::error, "a check crashed its process",
                 "The process running the check died (a signal such as SIGSEGV or SIGABRT, an exit, or more host memory than --memory-limit): usually a fault inside the driver or a CUDA library, sometimes a cudacheck bug. The other checks ran in a fresh process.",
                 "Look for GPU faults (`sudo dmesg | grep -i -e xid -e nvrm`), update the driver or the library the check uses, and report it with `cudacheck -v -o report.json` attached.",
                 "any check (the supervisor raises it)"},
    CatalogEntry{Code::check_timed_out, "check-timed-out", Status::timeout, "a check did not finish in time",
                 "The check ran past its time limit (--timeout) or the run's (--run-timeout), and its process was killed: a hung GPU, driver or library, or a very slow GPU.",
                 "Check that the GPU responds (`nvidia-smi`, `sudo dmesg | grep -i xid`); on a slow or busy GPU raise the limit with --timeout SECONDS.",
                 "any check (the supervisor raises it)"},
};

}  // namespace

std::string code_string(Code code) { return fmt::format("CC{:03d}", static_cast<int>(code)); }

std::span<const CatalogEntry> catalog() { return entries; }

const CatalogEntry& catalog_entry(Code code) {
    for (const CatalogEntry& entry : entries)
        if (entry.code == code) return entry;
    // Every enumerator has an entry (a unit test walks them); this is unreachable in a correct build.
    return entries.back();
}

const CatalogEntry* find_catalog_entry(std::string_view code_or_slug) {
    const std::string wanted = sys::to_lower(sys::trim(code_or_slug));
    for (const CatalogEntry& entry : entries) {
        const std::string code = sys::to_lower(code_string(entry.code));
        if (wanted == code || wanted == code.substr(2) || wanted == entry.slug) return &entry;
    }
    return nullptr;
}

std::string closest_catalog_codes(std::string_view code_or_slug, std::size_t count) {
    const std::string wanted = sys::to_lower(sys::trim(code_or_slug));
    std::vector<std::pair<std::size_t, const CatalogEntry*>> scored;
    for (const CatalogEntry& entry : entries) {
        const std::string code = sys::to_lower(code_string(entry.code));
        scored.emplace_back(std::min({sys::edit_distance(wanted, code), sys::edit_distance(wanted, code.substr(2)),
                                      sys::edit_distance(wanted, entry.slug)}),
                            &entry);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (std::size_t i = 0; i < std::min(count, scored.size()); ++i)
        text += fmt::format("{}{} ({})", i > 0 ? ", " : "", code_string(scored[i].second->code), scored[i].second->slug);
    return text;
}

std::string docs_anchor(Code code) { return "docs/errors.md#" + sys::to_lower(code_string(code)); }

Finding make_finding(Code code, std::string message, std::string remediation, std::optional<Status> status) {
    const CatalogEntry& entry = catalog_entry(code);
    Finding finding;
    finding.status = status.value_or(entry.severity);
    finding.code = code_string(code);
    finding.message = std::move(message);
    finding.remediation = remediation.empty() ? std::string(entry.remediation) : std::move(remediation);
    return finding;
}

}  // namespace cudacheck
