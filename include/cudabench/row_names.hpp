// How compare tables, reports, fleets and the history name a workload in a few words
// ("matmul fp16 4096³", "memory_bandwidth d2d 1GiB", "llm_decode llama-2-7b fp16 128→256"):
// for each kind, which parameters make up the name and how each is written. Data, host-only, so
// every place that names rows (also without a GPU, and for result files of any build) reads the
// same entries; one generic formatter (src/core/compare/compare_names.cpp) writes them all.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudabench {

enum class name_format {
  text,       // a string as is, anything else as JSON: "fp16", "4096", "true"
  bytes,      // a non-negative integer in the largest exact unit: "1GiB", "1000B"; else as text
  base_name,  // a path's last component: "/models/llama-2-7b/" -> "llama-2-7b"
};

// One part of the name. Left out when a parameter is missing or the value is empty or `omit`.
struct name_part {
  std::vector<std::string> keys;  // one parameter, or several joined by `separator` (all must be present)
  name_format format = name_format::text;
  std::string separator;       // between several keys' values: "×", "→"
  std::string all_equal;       // several keys with one value: it once, then this ("4096³")
  std::string prefix, suffix;  // around the value: "batch 8", "512px"
  std::string omit;            // the usual value, which goes unsaid: batch "1", image_size "224"
};

struct kind_row_name {
  std::string kind;
  std::vector<name_part> parts;  // written after the kind's name, in this order
};

// Builders that keep the entries one line each.
name_part row_part(std::string key, std::string prefix = "", std::string suffix = "", std::string omit = "");
name_part row_part_bytes(std::string key);
name_part row_part_bytes_prefixed(std::string key, std::string prefix);  // "cap 24GiB"
name_part row_part_base_name(std::string key);
name_part row_part_joined(std::vector<std::string> keys, std::string separator, std::string all_equal = "");

// The built-in kind's entry (its description, src/kinds/<kind>.cpp), or null: not known, and its
// rows are named by id.
const kind_row_name* find_row_name(const std::string& kind);

// "<kind> <part> <part> ...": the kind's name and every part that is not left out.
std::string describe_workload(const kind_row_name& names, const nlohmann::ordered_json& params);

// compare.hpp's readable_name with the kind's entry already found (null: name the row by `id`).
std::string readable_name(const std::string& id, const kind_row_name* names, const nlohmann::ordered_json& params,
                          const std::string& metric, const std::string& unit,
                          const std::vector<std::string>& units_of_workload);

}  // namespace cudabench
