// Kind `memory_bandwidth` (src/workloads/memory_bandwidth/): how fast bytes move.
#include "kinds.hpp"
#include "param_values.hpp"

namespace cudabench::kinds {
namespace {

kind_schema schema() {
  kind_schema s;
  s.kind = "memory_bandwidth";
  s.description =
      "copy / memset bandwidth: device<->device (counts read + write), host<->device from pinned or pageable "
      "memory, memset";
  param_def op = make_param("op", param_type::string, "what to time");
  op.required = true;
  op.choices = {"d2d", "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "memset"};
  s.params.push_back(op);
  param_def bytes = make_param("bytes", param_type::bytes, "buffer size, e.g. 1GiB or 67108864");
  bytes.required = true;
  bytes.min = 1024;
  s.params.push_back(bytes);
  return s;
}

noise_model noise(const std::string&, const nlohmann::ordered_json& params) {
  const std::string op = string_param(params, "op");
  // Pageable copies go through the driver's staging buffer and the host's memcpy: rounds up to
  // 30%, sessions up to 23% (6-17 GB/s). Only a change far beyond that is a verdict.
  if (op.find("pageable") != std::string::npos) return {0.31, 0.23};
  if (op.find("pinned") != std::string::npos) return {0.03, 0.027};  // PCIe: rounds 0.1-2.9%, sessions <= 2.7%
  return {0.005, 0.004};  // d2d and memset: rounds 0.06-0.5%, sessions 0.05-0.4%
}

}  // namespace

kind_description memory_bandwidth() {
  return {schema(), {"memory_bandwidth", {row_part("op"), row_part_bytes("bytes")}}, noise};
}

}  // namespace cudabench::kinds
