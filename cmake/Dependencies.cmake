# Third-party dependencies, all from the distribution's packages (see README: libcli11-dev,
# libfmt-dev, nlohmann-json3-dev, libgtest-dev) and the CUDA toolkit.
include_guard(GLOBAL)

find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CUDAToolkit REQUIRED)

# fmt is used header-only so that the binary has no run-time dependency beyond libc/libstdc++:
# cudacheck must start on machines where little else works.
if(TARGET fmt::fmt-header-only)
  set(CUDACHECK_FMT_TARGET fmt::fmt-header-only)
else()
  set(CUDACHECK_FMT_TARGET fmt::fmt)
endif()

if(CUDACHECK_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
