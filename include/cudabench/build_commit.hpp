// The commit this binary was built from (12 hex digits of HEAD, "-dirty" when tracked files
// differed from it, or $CUDABENCH_GIT_COMMIT where the tree has no .git, else "unknown"). Taken at
// build time by cmake/git_commit.cmake, so a binary rebuilt after a commit or an edit says so; the
// rest of the build information is fixed at configure time (build_config.hpp).
#pragma once

namespace cudabench {

const char* build_commit();

}  // namespace cudabench
