# Refuses a mixed CUDA build. FindCUDAToolkit looks for cudart/cuBLAS/cuBLASLt on its own search
# path, so a toolkit root without its runtime libraries (or a stale CMakeCache) silently yields,
# say, nvcc 12.4 objects linked to libcudart.so.13 -- a binary that builds and runs but measures
# the wrong CUDA. Usable from a project and from `cmake -P` (tests/cmake/toolkit_check_test.cmake).

# cudabench_library_version(LIB OUT_MAJOR OUT_FULL): the version of a shared library, from the name
# it resolves to (libcudart.so -> libcudart.so.12.4.127) or, for a file named only by its soname,
# from the soname inside it.
function(cudabench_library_version lib out_major out_full)
  get_filename_component(real "${lib}" REALPATH)
  get_filename_component(name "${real}" NAME)
  set(full "")
  if(name MATCHES "\\.so\\.([0-9]+(\\.[0-9]+)*)$")
    set(full "${CMAKE_MATCH_1}")
  elseif(EXISTS "${real}")
    # The soname string sits in .dynstr near the start of the file, so LIMIT_COUNT stops early.
    file(STRINGS "${real}" sonames REGEX "^lib[A-Za-z_]+\\.so\\.[0-9]+$" LIMIT_COUNT 1)
    if(sonames MATCHES "\\.so\\.([0-9]+)$")
      set(full "${CMAKE_MATCH_1}")
    endif()
  endif()
  string(REGEX REPLACE "\\..*" "" major "${full}")
  set(${out_major} "${major}" PARENT_SCOPE)
  set(${out_full} "${full}" PARENT_SCOPE)
endfunction()

# cudabench_check_cuda_consistency(COMPILER_VERSION V COMPILER PATH LIBRARIES name=path...
#                                  [OUT_SUMMARY var])
# Fails configuration when any library's major version differs from nvcc's. cudart's soname major
# is the CUDA major; cuBLAS/cuBLASLt majors follow the CUDA major too (11, 12, 13).
function(cudabench_check_cuda_consistency)
  cmake_parse_arguments(arg "" "COMPILER_VERSION;COMPILER;OUT_SUMMARY" "LIBRARIES" ${ARGN})
  string(REGEX REPLACE "\\..*" "" nvcc_major "${arg_COMPILER_VERSION}")
  set(summary "")
  set(bad "")
  foreach(entry IN LISTS arg_LIBRARIES)
    string(REGEX REPLACE "=.*" "" name "${entry}")
    string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
    cudabench_library_version("${path}" major full)
    if(full STREQUAL "")
      set(full "unknown")
    endif()
    list(APPEND summary "${name} ${full}")
    if(NOT major STREQUAL nvcc_major)
      string(APPEND bad "\n    ${name}: ${path} (version ${full})")
    endif()
  endforeach()
  if(bad)
    message(FATAL_ERROR
      "Mixed CUDA build refused: the CUDA compiler ${arg_COMPILER} is CUDA ${arg_COMPILER_VERSION}, "
      "but these CUDA libraries found for it are not CUDA ${nvcc_major}:${bad}\n"
      "A binary built this way compiles ${arg_COMPILER_VERSION} kernels against other runtime libraries. "
      "Fix: pass -DCUDAToolkit_ROOT=<the root of that nvcc> and make sure it contains the runtime "
      "libraries (lib64/libcudart.so.${nvcc_major}, libcublas.so.${nvcc_major}, libcublasLt.so.${nvcc_major}; "
      "for a root assembled from Debian packages rerun scripts/toolkit-from-debian.sh), or set "
      "CMAKE_CUDA_COMPILER to the nvcc that matches the libraries. Then configure a fresh build "
      "directory (the library paths are cached in CMakeCache.txt).")
  endif()
  if(arg_OUT_SUMMARY)
    string(REPLACE ";" ", " summary "${summary}")
    set(${arg_OUT_SUMMARY} "${summary}" PARENT_SCOPE)
  endif()
endfunction()
