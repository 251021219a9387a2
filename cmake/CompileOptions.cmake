include_guard(GLOBAL)

# Warnings for host code; applied per target through cudacheck_warnings().
add_library(cudacheck_warnings INTERFACE)
target_compile_options(cudacheck_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${CUDACHECK_WERROR}>>:-Werror>)
