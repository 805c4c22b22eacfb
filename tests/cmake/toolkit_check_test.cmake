# cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P toolkit_check_test.cmake
# Checks cmake/toolkit_check.cmake and cudnn.cmake's CUDA-major probe on fake library files: a
# consistent set passes, a mixed one fails configuration naming the library. Needs no compiler.
cmake_minimum_required(VERSION 3.24)
set(lib "${WORK_DIR}/lib")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${lib}/12" "${lib}/13" "${lib}/soname" "${lib}/cudnn13")

# Layout of a real toolkit: libX.so -> libX.so.MAJOR -> libX.so.FULL
function(fake_lib dir name full)
  string(REGEX REPLACE "\\..*" "" major "${full}")
  file(WRITE "${dir}/lib${name}.so.${full}" "not an ELF file")
  file(CREATE_LINK "lib${name}.so.${full}" "${dir}/lib${name}.so.${major}" SYMBOLIC)
  file(CREATE_LINK "lib${name}.so.${major}" "${dir}/lib${name}.so" SYMBOLIC)
endfunction()
fake_lib("${lib}/12" cudart 12.4.127)
fake_lib("${lib}/12" cublas 12.4.5.8)
fake_lib("${lib}/12" cublasLt 12.4.5.8)
fake_lib("${lib}/13" cudart 13.0.88)
# A library file named without its version: the soname inside it says 13.
file(WRITE "${lib}/soname/libcublasLt.so" "ELF junk\nlibcublasLt.so.13\nmore junk\n")
# cuDNN 9 for CUDA 13: its engine library names libcublasLt.so.13.
file(WRITE "${lib}/cudnn13/libcudnn.so.9" "dispatcher")
file(CREATE_LINK "libcudnn.so.9" "${lib}/cudnn13/libcudnn.so" SYMBOLIC)
file(WRITE "${lib}/cudnn13/libcudnn_adv.so.9" "junk\nlibcublasLt.so.13\n")

set(failures 0)
# run_case(NAME EXPECT pass|fail LIBS... [MATCH regex...]): the check in a child cmake -P.
function(run_case name expect)
  cmake_parse_arguments(arg "" "" "LIBS;MATCH" ${ARGN})
  set(script "${WORK_DIR}/${name}.cmake")
  file(WRITE "${script}" "include(\"${SOURCE_DIR}/cmake/toolkit_check.cmake\")\n"
    "cudabench_check_cuda_consistency(COMPILER /opt/nvcc COMPILER_VERSION 12.4.131 LIBRARIES ${arg_LIBS} OUT_SUMMARY s)\n"
    "message(STATUS \"summary: \${s}\")\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -P "${script}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(text "${out}${err}")
  set(ok TRUE)
  if(expect STREQUAL "pass" AND NOT rc EQUAL 0)
    set(ok FALSE)
  elseif(expect STREQUAL "fail" AND rc EQUAL 0)
    set(ok FALSE)
  endif()
  foreach(re IN LISTS arg_MATCH)
    if(NOT text MATCHES "${re}")
      set(ok FALSE)
      message(STATUS "${name}: output lacks '${re}'")
    endif()
  endforeach()
  if(ok)
    message(STATUS "PASS ${name}")
  else()
    message(STATUS "FAIL ${name} (exit ${rc}):\n${text}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  endif()
endfunction()

run_case(consistent pass
  LIBS "cudart=${lib}/12/libcudart.so" "cublas=${lib}/12/libcublas.so" "cublasLt=${lib}/12/libcublasLt.so"
  MATCH "summary: cudart 12\\.4\\.127, cublas 12\\.4\\.5\\.8, cublasLt 12\\.4\\.5\\.8")
run_case(mixed_cudart fail
  LIBS "cudart=${lib}/13/libcudart.so" "cublas=${lib}/12/libcublas.so" "cublasLt=${lib}/12/libcublasLt.so"
  MATCH "Mixed CUDA build refused" "CUDA 12\\.4\\.131" "cudart: [^\n]*/13/libcudart\\.so \\(version 13\\.0\\.88\\)"
        "CUDAToolkit_ROOT")
run_case(mixed_by_soname fail
  LIBS "cudart=${lib}/12/libcudart.so" "cublasLt=${lib}/soname/libcublasLt.so"
  MATCH "cublasLt: [^\n]*libcublasLt\\.so \\(version 13\\)")

# cudnn.cmake's probe: only the function is wanted, so stub the find_* calls' results out.
file(WRITE "${WORK_DIR}/cudnn_probe.cmake"
  "set(CUDNN_INCLUDE_DIR \"\")\nset(CUDNN_LIBRARY \"\")\n"
  "include(\"${SOURCE_DIR}/cmake/cudnn.cmake\")\n"
  "cudabench_cudnn_cuda_major(\"${lib}/cudnn13/libcudnn.so\" m)\nmessage(STATUS \"cudnn major: \${m}\")\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -P "${WORK_DIR}/cudnn_probe.cmake" OUTPUT_VARIABLE out ERROR_VARIABLE err)
if("${out}${err}" MATCHES "cudnn major: 13\n")
  message(STATUS "PASS cudnn_cuda_major")
else()
  message(STATUS "FAIL cudnn_cuda_major:\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} toolkit check case(s) failed")
endif()
