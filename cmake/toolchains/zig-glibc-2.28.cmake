# The portable release binary: host code compiled and linked by zig's clang with LLVM's
# libc++ and libc++abi linked in, against glibc 2.28's symbol versions (RHEL 8 and everything newer:
# https://ziglang.org/download/0.15.1/release-notes.html#glibc-version-targeting), so the binary
# needs no GLIBCXX symbol and nothing newer than GLIBC_2.28. nvcc compiles the GPU kernels with
# g++ as its host compiler (nvcc 13.0 accepts clang only up to 20, and zig's clang would work too,
# but g++ needs no wrapper); their host stubs use no C++ library type, only C-like signatures, so
# they link with libc++ code (same Itanium ABI).
#
# zig comes from PyPI's `ziglang` wheel, unpacked by tools/install-deps.sh into .devtools/ (or give
# -DCUDACHECK_ZIG=/path/to/zig). Used by the `release` preset (CMakePresets.json).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CUDACHECK_ZIG_TARGET "x86_64-linux-gnu.2.28" CACHE STRING "zig's target triple, with the glibc version")
if(NOT CUDACHECK_ZIG)
  file(GLOB _zig_candidates "${CMAKE_CURRENT_LIST_DIR}/../../.devtools/ziglang-*/ziglang/zig")
  list(SORT _zig_candidates)
  list(POP_BACK _zig_candidates CUDACHECK_ZIG)
endif()
if(NOT CUDACHECK_ZIG)
  # A Python build (pip wheel ., pyproject.toml) has ziglang among its build requirements.
  find_program(_python NAMES python3 python)
  if(_python)
    execute_process(COMMAND "${_python}" -c "import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))"
                    OUTPUT_VARIABLE CUDACHECK_ZIG OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
endif()
if(NOT CUDACHECK_ZIG OR NOT EXISTS "${CUDACHECK_ZIG}")
  message(FATAL_ERROR "zig not found: run tools/install-deps.sh (it unpacks PyPI's ziglang into .devtools/) or pass -DCUDACHECK_ZIG=/path/to/zig")
endif()
set(CUDACHECK_ZIG "${CUDACHECK_ZIG}" CACHE FILEPATH "the zig executable" FORCE)

# CMake wants one executable per compiler: two small wrappers around `zig cc` / `zig c++`.
set(_wrappers "${CMAKE_BINARY_DIR}/zig-wrappers")
file(MAKE_DIRECTORY "${_wrappers}")
foreach(_tool cc c++)
  file(WRITE "${_wrappers}/zig-${_tool}" "#!/bin/sh\nexec \"${CUDACHECK_ZIG}\" ${_tool} -target ${CUDACHECK_ZIG_TARGET} \"$@\"\n")
  file(CHMOD "${_wrappers}/zig-${_tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CMAKE_C_COMPILER "${_wrappers}/zig-cc")
set(CMAKE_CXX_COMPILER "${_wrappers}/zig-c++")
set(CMAKE_AR "${_wrappers}/zig-ar")
file(WRITE "${_wrappers}/zig-ar" "#!/bin/sh\nexec \"${CUDACHECK_ZIG}\" ar \"$@\"\n")
file(WRITE "${_wrappers}/zig-ranlib" "#!/bin/sh\nexec \"${CUDACHECK_ZIG}\" ranlib \"$@\"\n")
foreach(_tool ar ranlib)
  file(CHMOD "${_wrappers}/zig-${_tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CMAKE_RANLIB "${_wrappers}/zig-ranlib")
set(CMAKE_CUDA_HOST_COMPILER /usr/bin/g++ CACHE FILEPATH "nvcc's host compiler")
# The distribution's headers (/usr/include) must not reach zig's compiler: they are glibc 2.36's.
set(CUDACHECK_PORTABLE ON CACHE BOOL "build the portable release binary" FORCE)
