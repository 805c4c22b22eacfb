// See history_noise.hpp.
#include "cli/history_noise.hpp"

#include "cudabench/history_store.hpp"

namespace cudabench::cli {

noise_prior read_history_noise(const std::string& db) {
  const history_store store(db, false);
  // Runs that are files of the committed prior (results/ added to a history) are sessions it counts
  // already; compare pools the two, so they are left out here.
  return noise_prior::from_history(store.runs(), store.points(), db, &noise_prior::committed());
}

}  // namespace cudabench::cli
