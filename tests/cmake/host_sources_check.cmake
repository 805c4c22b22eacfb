# Run by ctest host_sources_refuse_cuda_headers (tests/CMakeLists.txt): preprocesses every host-only
# translation unit (cudabench::core and the CLI's host part) the way their build compiles them --
# include/, the generated headers and src/ on the path, no CUDA include directory -- with
# cmake/no_cuda_headers/ searched first and the toolkit's real headers after everything, as a
# machine's default path may hold them. Fails, naming the source, when one reaches a CUDA header:
# a stand-in's #error, or any header read from the toolkit's include directory.
#   cmake -DCOMPILER=c++ -DSOURCE_DIR=. -DBINARY_DIR=build -DCUDA_INCLUDE_DIR=dir
#         -DSOURCES_FILE=list -DINCLUDES_FILE=list -P host_sources_check.cmake
foreach(var COMPILER SOURCE_DIR BINARY_DIR CUDA_INCLUDE_DIR SOURCES_FILE INCLUDES_FILE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "host_sources_check: -D${var}= is required")
  endif()
endforeach()
file(READ ${SOURCES_FILE} sources)
file(READ ${INCLUDES_FILE} dep_dirs)
list(LENGTH sources count)
if(count LESS 1)
  message(FATAL_ERROR "host_sources_check: no sources listed in ${SOURCES_FILE}")
endif()
set(dep_flags "")
foreach(dir ${dep_dirs})
  list(APPEND dep_flags -isystem ${dir})
endforeach()
# -M: the preprocessor only (an #error still stops it), and the headers each source read.
execute_process(COMMAND ${COMPILER} -std=c++17 -M -I${SOURCE_DIR}/cmake/no_cuda_headers -I${SOURCE_DIR}/include
                        -I${BINARY_DIR}/generated -I${SOURCE_DIR}/src ${dep_flags} -isystem ${CUDA_INCLUDE_DIR} ${sources}
                RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "host_sources_check: a host-only source includes a CUDA header (move it, or the part "
                      "that needs CUDA, to cudabench::gpu and include/cudabench/gpu/):\n${errors}")
endif()
# A CUDA header without a stand-in (cufft.h, cuda/std/..., nvtx3/...) is read from the toolkit's
# directory: name the source whose rule lists it.
get_filename_component(cuda_real "${CUDA_INCLUDE_DIR}" REALPATH)
string(REPLACE "\\\n" " " deps "${deps}")
string(REPLACE "\n" ";" rules "${deps}")
set(offenders "")
foreach(rule IN LISTS rules)
  if(rule MATCHES "^[^:]+: +([^ ]+)(.*)$")
    set(source "${CMAKE_MATCH_1}")
    string(REGEX MATCHALL "[^ ]+" headers "${CMAKE_MATCH_2}")
    foreach(header IN LISTS headers)
      string(FIND "${header}" "${CUDA_INCLUDE_DIR}/" at_given)
      string(FIND "${header}" "${cuda_real}/" at_real)
      if(at_given EQUAL 0 OR at_real EQUAL 0)
        list(APPEND offenders "${source} includes ${header}")
      endif()
    endforeach()
  endif()
endforeach()
if(offenders)
  list(JOIN offenders "\n  " lines)
  message(FATAL_ERROR "host_sources_check: host-only sources read CUDA headers:\n  ${lines}")
endif()
message(STATUS "host_sources_check: ${count} host-only sources, none includes a CUDA header")
