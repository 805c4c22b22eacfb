# cuDNN is optional at build time: found next to the toolkit, under CUDNN_ROOT, or in the system
# include/lib directories (Debian/Ubuntu packages put it under x86_64-linux-gnu).
find_path(CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include include/x86_64-linux-gnu)
find_library(CUDNN_LIBRARY cudnn
  HINTS ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
  set(CUDABENCH_HAVE_CUDNN ON)
  add_library(cudabench::cudnn INTERFACE IMPORTED)
  target_include_directories(cudabench::cudnn INTERFACE ${CUDNN_INCLUDE_DIR})
  target_link_libraries(cudabench::cudnn INTERFACE ${CUDNN_LIBRARY})
  message(STATUS "cuDNN: ${CUDNN_LIBRARY} (headers ${CUDNN_INCLUDE_DIR})")
else()
  set(CUDABENCH_HAVE_CUDNN OFF)
  message(STATUS "cuDNN: not found; cuDNN workloads report 'unsupported'")
endif()
