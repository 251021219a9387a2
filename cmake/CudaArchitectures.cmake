# Default CUDA architectures for cudacheck's own kernels, chosen before the CUDA language is enabled.
#
# When the user sets none (-DCMAKE_CUDA_ARCHITECTURES=...), build SASS for the lowest minor of every
# major architecture the installed nvcc supports, plus PTX for the newest major. A cubin runs on any
# device of the same major with an equal or higher minor (sm_80 runs on 8.6 and 8.9), so one SASS per
# major covers every supported GPU natively; the PTX lets the driver JIT for GPUs newer than this nvcc
# (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility"). We ask nvcc itself
# rather than CMake's built-in table, which lags new toolkits (CMake 3.25 does not know that CUDA 13
# dropped sm_50..sm_72).
include_guard(GLOBAL)

function(cudacheck_default_cuda_architectures out_var)
  set(nvcc "${CMAKE_CUDA_COMPILER}")
  if(NOT nvcc)
    find_program(CUDACHECK_NVCC NAMES nvcc
      HINTS "$ENV{CUDACXX}" "$ENV{CUDA_HOME}/bin" "$ENV{CUDA_PATH}/bin" "${CUDAToolkit_ROOT}/bin"
            /usr/local/cuda/bin)
    set(nvcc "${CUDACHECK_NVCC}")
    # Let enable_language(CUDA) use the same nvcc, also when it is not on PATH.
    if(nvcc AND NOT DEFINED ENV{CUDACXX})
      set(CMAKE_CUDA_COMPILER "${nvcc}" CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  if(NOT nvcc)
    message(FATAL_ERROR "nvcc not found: install the CUDA toolkit or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc")
  endif()
  execute_process(COMMAND "${nvcc}" --list-gpu-code OUTPUT_VARIABLE codes RESULT_VARIABLE rc
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR codes STREQUAL "")
    message(WARNING "'${nvcc} --list-gpu-code' failed; using nvcc's default architecture")
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  string(REGEX MATCHALL "sm_[0-9]+" codes "${codes}")  # drops the a/f variants: they are not portable
  set(lowest_per_major "")
  set(majors "")
  foreach(code IN LISTS codes)
    string(REGEX REPLACE "sm_([0-9]+)" "\\1" number "${code}")
    math(EXPR major "${number} / 10")
    if(NOT major IN_LIST majors)
      list(APPEND majors ${major})
      set(lowest_${major} ${number})
    elseif(number LESS lowest_${major})
      set(lowest_${major} ${number})
    endif()
  endforeach()
  list(SORT majors COMPARE NATURAL)
  set(archs "")
  foreach(major IN LISTS majors)
    list(APPEND archs "${lowest_${major}}-real")
  endforeach()
  list(GET majors -1 newest_major)
  list(APPEND archs "${lowest_${newest_major}}-virtual")
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  cudacheck_default_cuda_architectures(_cudacheck_archs)
  if(_cudacheck_archs)
    set(CMAKE_CUDA_ARCHITECTURES "${_cudacheck_archs}" CACHE STRING
        "CUDA architectures for cudacheck's kernels (default: every major nvcc supports + PTX for the newest)")
  endif()
endif()
