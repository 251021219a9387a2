# Third-party dependencies, all from the distribution's packages (see README: libcli11-dev,
# libfmt-dev, nlohmann-json3-dev, zlib1g-dev, libgtest-dev) and the CUDA toolkit.
include_guard(GLOBAL)

if(CUDACHECK_PORTABLE)
  # The portable binary (cmake/toolchains/zig-glibc-2.28.cmake): the three header-only libraries
  # from the distribution's packages, through a directory that holds nothing else, so that no other
  # header of /usr/include (glibc 2.36's) reaches zig's compiler.
  set(_staged "${CMAKE_BINARY_DIR}/third_party/include")
  file(MAKE_DIRECTORY "${_staged}")
  foreach(_header CLI/CLI.hpp fmt/format.h nlohmann/json.hpp)
    get_filename_component(_folder "${_header}" DIRECTORY)
    find_path(_found_${_folder} "${_header}" PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
    file(CREATE_LINK "${_found_${_folder}}/${_folder}" "${_staged}/${_folder}" SYMBOLIC)
  endforeach()
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  foreach(_target CLI11::CLI11 fmt::fmt-header-only nlohmann_json::nlohmann_json)
    set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_staged}")
  endforeach()
  set_target_properties(fmt::fmt-header-only PROPERTIES INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
else()
  find_package(CLI11 REQUIRED)
  find_package(fmt REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
endif()
find_package(CUDAToolkit REQUIRED)

# zlib (zlib1g-dev), linked statically: reading a wheel (util/zip_archive.cpp) must not make the
# binary need libz.so.1 at load time, so it still starts where it starts today (the release binary's
# shared libraries are checked by tools/check-release-binary.sh). libz.a is found by name because
# FindZLIB's ZLIB_USE_STATIC_LIBS needs CMake 3.24 and this project builds with 3.22. Its objects
# call only C functions that glibc 2.28 has (`nm -u libz.a`: memcpy, malloc, open, read, lseek64,
# __snprintf_chk, ...), so the portable build links the same archive; it sees zlib.h and zconf.h
# through the staged folder, alone.
find_path(CUDACHECK_ZLIB_INCLUDE_DIR zlib.h PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH)
find_library(CUDACHECK_ZLIB_STATIC NAMES libz.a
             PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib
                   /usr/local/lib
             NO_CMAKE_FIND_ROOT_PATH)
if(NOT CUDACHECK_ZLIB_INCLUDE_DIR OR NOT CUDACHECK_ZLIB_STATIC)
  message(FATAL_ERROR "zlib's static library or header not found (libz.a, zlib.h): install zlib1g-dev (tools/deps/build.sh does), or set CUDACHECK_ZLIB_STATIC and CUDACHECK_ZLIB_INCLUDE_DIR")
endif()
add_library(cudacheck::zlib STATIC IMPORTED)
set_target_properties(cudacheck::zlib PROPERTIES IMPORTED_LOCATION "${CUDACHECK_ZLIB_STATIC}")
if(CUDACHECK_PORTABLE)
  foreach(_header zlib.h zconf.h)
    file(CREATE_LINK "${CUDACHECK_ZLIB_INCLUDE_DIR}/${_header}" "${_staged}/${_header}" SYMBOLIC)
  endforeach()
  set_target_properties(cudacheck::zlib PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_staged}")
else()
  set_target_properties(cudacheck::zlib PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${CUDACHECK_ZLIB_INCLUDE_DIR}")
endif()

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
