// See result.hpp. The reader is strict about what it understands (types, required fields, the
// schema's major version) and ignores keys it does not know, so a 1.x file written by a newer
// cudabench still reads. Every error names the file and the JSON path of the offending value.
#include "cudabench/result.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/stats.hpp"
#include "result_reader.hpp"

namespace cudabench {

// ---- small pieces -------------------------------------------------------------------------------

const char* to_string(status s) {
  switch (s) {
    case status::ok: return "ok";
    case status::failed_validation: return "failed_validation";
    case status::oom: return "oom";
    case status::error: return "error";
    case status::unsupported: return "unsupported";
    case status::skipped: return "skipped";
  }
  return "error";
}

status status_from_string(const std::string& s) {
  for (status v :
       {status::ok, status::failed_validation, status::oom, status::error, status::unsupported, status::skipped})
    if (s == to_string(v)) return v;
  throw input_error(
      fmt::format("unknown status \"{}\" (expected ok, failed_validation, oom, error, unsupported, skipped)", s));
}

metric make_metric(std::string unit, better direction, std::vector<double> samples) {
  const summary s = summarize(samples);  // throws on empty / non-finite samples
  metric m;
  m.unit = std::move(unit);
  m.direction = direction;
  m.samples = std::move(samples);
  m.median = s.median;
  m.mean = s.mean;
  m.stddev = s.stddev;
  m.min = s.min;
  m.max = s.max;
  return m;
}

const metric* workload_result::find_metric(const std::string& name) const {
  for (const auto& [n, m] : metrics)
    if (n == name) return &m;
  return nullptr;
}

std::string result_file::label() const {
  auto it = environment.find("label");
  if (it != environment.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  return "unlabelled";
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ---- writing ------------------------------------------------------------------------------------

nlohmann::ordered_json to_json(const result_file& r) {
  using oj = nlohmann::ordered_json;
  oj j;
  j["schema_version"] = r.schema_version;
  j["tool"] = r.tool;
  j["build"] = r.build;
  j["environment"] = r.environment;
  j["suite"] = r.suite;
  j["settings"] = r.settings;
  j["started_at"] = r.started_at;
  j["finished_at"] = r.finished_at;
  if (r.rounds > 1 || !r.round_log.empty()) {
    j["rounds"] = r.rounds;
    j["round_log"] = r.round_log;
  }
  if (!r.interleave.empty()) j["interleave"] = r.interleave;
  oj workloads = oj::array();
  for (const auto& w : r.workloads) {
    oj o;
    o["id"] = w.id;
    o["kind"] = w.kind;
    o["params"] = w.params;
    o["status"] = to_string(w.state);
    o["message"] = w.message;
    if (w.validation)
      o["validation"] = {{"passed", w.validation->passed},
                         {"max_rel_error", w.validation->max_rel_error},
                         {"tolerance", w.validation->tolerance}};
    oj metrics = oj::object();
    for (const auto& [name, m] : w.metrics) {
      metrics[name] = {{"unit", m.unit},       {"better", m.direction == better::lower ? "lower" : "higher"},
                       {"samples", m.samples}, {"median", m.median},
                       {"mean", m.mean},       {"stddev", m.stddev},
                       {"min", m.min},         {"max", m.max}};
      if (!m.rounds.empty()) metrics[name]["rounds"] = m.rounds;
    }
    o["metrics"] = std::move(metrics);
    o["clocks"] = {{"sm_mhz", w.clocks.sm_mhz},
                   {"throttle_reasons", w.clocks.throttle_reasons},
                   {"throttled", w.clocks.throttled}};
    if (!w.clocks.power_w.empty()) o["clocks"]["power_w"] = w.clocks.power_w;
    if (!w.clocks.energy_absent.empty()) o["clocks"]["energy_absent"] = w.clocks.energy_absent;
    if (!w.tuning.empty()) o["tuning"] = w.tuning;
    if (!w.tuning_by_round.empty()) o["tuning_by_round"] = w.tuning_by_round;
    if (w.peak_memory_bytes || w.oom_requested_bytes) {
      oj mem = oj::object();
      if (w.peak_memory_bytes) mem["peak_bytes"] = *w.peak_memory_bytes;
      if (w.oom_requested_bytes) mem["oom_requested_bytes"] = *w.oom_requested_bytes;
      o["memory"] = std::move(mem);
    }
    workloads.push_back(std::move(o));
  }
  j["workloads"] = std::move(workloads);
  return j;
}

void write_result_file(const result_file& r, const std::string& path, const std::vector<std::string>& inputs) {
  write_file_atomically(path, to_json(r).dump(2) + "\n", inputs);
}

// ---- reading (result_reader.hpp; files: result_stream.cpp) -------------------------------------

result_file result_from_json(const nlohmann::json& j, const std::string& source) {
  return detail::result_reader<nlohmann::json>(source).read(j);
}

result_file result_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return detail::result_reader<nlohmann::ordered_json>(source).read(j);
}

}  // namespace cudabench
