# Run at every build (cmake -P, from the cudabench_git_commit target): writes OUT, a C++ file
# defining cudabench::build_commit(), with the tree's commit as it is when the binary is built --
# `git rev-parse` HEAD, with "-dirty" when tracked files differ from it -- so a result file names
# the code that produced it, not the code at configure time. OUT is rewritten only when its text
# changes, so an unchanged tree recompiles nothing.
# Where the tree is a copy without .git (the GPU box), $CUDABENCH_GIT_COMMIT names it; FALLBACK is
# that variable as it was at configure time.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(rc EQUAL 0 AND commit)
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    set(commit "${commit}-dirty")
  endif()
elseif(DEFINED ENV{CUDABENCH_GIT_COMMIT} AND NOT "$ENV{CUDABENCH_GIT_COMMIT}" STREQUAL "")
  set(commit "$ENV{CUDABENCH_GIT_COMMIT}")
elseif(FALLBACK)
  set(commit "${FALLBACK}")
else()
  set(commit "unknown")
endif()
string(REPLACE "\\" "\\\\" commit "${commit}")
string(REPLACE "\"" "\\\"" commit "${commit}")
set(text "// Generated at build time by cmake/git_commit.cmake.\n#include \"cudabench/build_commit.hpp\"\n\nconst char* cudabench::build_commit() { return \"${commit}\"; }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
