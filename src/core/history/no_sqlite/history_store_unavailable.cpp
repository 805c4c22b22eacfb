// history_store for builds without SQLite (a GPU box with no network and no libsqlite3-dev):
// everything else of cudabench works; `cudabench history` says why it cannot. CMakeLists.txt
// compiles this file instead of history_store.cpp when find_package(SQLite3) fails.
#include "cudabench/errors.hpp"
#include "cudabench/history_store.hpp"

namespace cudabench {

namespace {
[[noreturn]] void unavailable() {
  throw runtime_failure(
      "this cudabench was built without SQLite, so the run history is not available; install libsqlite3-dev "
      "(Debian/Ubuntu) and rebuild (scripts/bootstrap.sh)");
}
}  // namespace

history_store::history_store(const std::string& path, bool) : path_(path) { unavailable(); }
history_store::~history_store() = default;
int history_store::schema_version() const { unavailable(); }
history_add_result history_store::add_file(const std::string&) { unavailable(); }
history_add_result history_store::add_bytes(std::string_view, const std::string&) { unavailable(); }
history_add_result history_store::add(const history_input&) { unavailable(); }
std::vector<history_run> history_store::runs() const { unavailable(); }
std::vector<history_point> history_store::points(const std::function<bool(const std::string&)>&) const {
  unavailable();
}

}  // namespace cudabench
