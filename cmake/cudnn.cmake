# cuDNN is optional at build time: found next to the toolkit, under CUDNN_ROOT, or in the system
# include/lib directories (Debian/Ubuntu packages put it under x86_64-linux-gnu).
# A cuDNN built for another CUDA major is not used: cuDNN 9's engine libraries dlopen
# libcublasLt.so.<CUDA major>, so a CUDA 13 cuDNN in a 12.x build would load a second cuBLASLt
# (or fail to load at all where only CUDA 12 is installed). CUDABENCH_CUDNN_STATUS says which
# cuDNN was used or why none was; the binary reports it (resnet50's 'unsupported' message).
find_path(CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include include/x86_64-linux-gnu)
# libcudnn.so.9 too: NVIDIA's pip wheels (nvidia-cudnn-cu12's nvidia/cudnn) ship no unversioned link.
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 NAMES_PER_DIR
  HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

# cudabench_cudnn_cuda_major(LIB OUT): the CUDA major a cuDNN was built for, read from the
# libcublasLt soname its sub-libraries name (cuDNN 9: adv/engines_precompiled; cuDNN 8: *_infer);
# empty when none of them says.
function(cudabench_cudnn_cuda_major lib out)
  get_filename_component(real "${lib}" REALPATH)
  get_filename_component(dir "${real}" DIRECTORY)
  file(GLOB candidates "${dir}/libcudnn_adv*.so*" "${dir}/libcudnn_engines_precompiled*.so*"
                       "${dir}/libcudnn_ops_infer*.so*")
  set(major "")
  foreach(c IN LISTS candidates)
    file(STRINGS "${c}" names REGEX "libcublasLt\\.so\\.[0-9]+" LIMIT_COUNT 1)
    if(names MATCHES "libcublasLt\\.so\\.([0-9]+)")
      set(major "${CMAKE_MATCH_1}")
      break()
    endif()
  endforeach()
  set(${out} "${major}" PARENT_SCOPE)
endfunction()

set(CUDABENCH_HAVE_CUDNN OFF)
set(cudnn_cuda_major "")
if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
  cudabench_cudnn_cuda_major("${CUDNN_LIBRARY}" cudnn_cuda_major)
  if(cudnn_cuda_major AND CUDAToolkit_VERSION_MAJOR AND NOT cudnn_cuda_major STREQUAL CUDAToolkit_VERSION_MAJOR)
    set(CUDABENCH_CUDNN_STATUS
        "the cuDNN found at configure time (${CUDNN_LIBRARY}) is built for CUDA ${cudnn_cuda_major}, and this build uses CUDA ${CUDAToolkit_VERSION}; configure with -DCUDNN_ROOT=<a cuDNN for CUDA ${CUDAToolkit_VERSION_MAJOR}> to enable it")
    message(WARNING "cuDNN: not used: ${CUDABENCH_CUDNN_STATUS}. cuDNN workloads report 'unsupported'.")
  else()
    set(CUDABENCH_HAVE_CUDNN ON)
    set(CUDABENCH_CUDNN_STATUS "${CUDNN_LIBRARY}")
    add_library(cudabench::cudnn INTERFACE IMPORTED)
    target_include_directories(cudabench::cudnn INTERFACE ${CUDNN_INCLUDE_DIR})
    target_link_libraries(cudabench::cudnn INTERFACE ${CUDNN_LIBRARY})
    if(NOT cudnn_cuda_major)
      set(cudnn_cuda_major "an unknown CUDA version")
    endif()
    message(STATUS "cuDNN: ${CUDNN_LIBRARY} (headers ${CUDNN_INCLUDE_DIR}, built for CUDA ${cudnn_cuda_major})")
  endif()
else()
  set(CUDABENCH_CUDNN_STATUS "no cuDNN was found at configure time (set CUDNN_ROOT)")
  message(STATUS "cuDNN: not found; cuDNN workloads report 'unsupported'")
endif()
