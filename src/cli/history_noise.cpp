// See history_noise.hpp.
#include "cli/history_noise.hpp"

#include "cudabench/history_store.hpp"

namespace cudabench::cli {

noise_prior read_history_noise(const std::string& db) {
  const history_store store(db, false);
  return noise_prior::from_history(store.runs(), store.points(), db);
}

}  // namespace cudabench::cli
